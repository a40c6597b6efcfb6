#!/bin/bash
# The real Weston 10 shares its headless output with wl-record through
# screen-share.so: Weston forks the command with WAYLAND_SERVER_SOCKET set
# (and its own WAYLAND_DISPLAY, which must lose), presents for mode and
# commits ARGB8888 buffers. The still must have the output size and show
# what Weston showed.
. "$TEST_LIB"
require_weston
require_commands weston-simple-shm

W=480
H=360

# share_case NAME BACKGROUND_RGB [WL_RECORD_OPTION...]: starts Weston with
# the share pointed at wl-record --screenshot and weston-simple-shm as a
# client; leaves the PNG at $TEST_DIR/NAME.png, wl-record's status checked.
share_case() {
	local name=$1 background=$2
	shift 2
	local png="$TEST_DIR/$name.png" status_file="$TEST_DIR/$name.status"
	local socket="weston-$name"
	# /bin/sh -c runs this; the status file tells the test how it ended.
	local command="$(perturb_env) $WL_RECORD --screenshot --timeout 10 $* $png 2>$TEST_DIR/wl-record-$name.log; echo \$? >$status_file"
	write_weston_ini "$TEST_DIR/$name.ini" "0xff$background" "$command"

	log "case $name: Weston ${W}x$H, background $background"
	start_weston "weston-$name" --backend=headless-backend.so --use-pixman --width="$W" \
		--height="$H" --socket="$socket" --config="$TEST_DIR/$name.ini" --idle-time=0
	WESTON_PID=$STARTED_PID
	wait_until 10 "Weston's socket $socket" socket_exists "$socket"
	WAYLAND_DISPLAY=$socket start "simple-shm-$name" weston-simple-shm
	wait_until 20 "wl-record to finish the screen share" test -s "$status_file"
	local status
	status=$(cat "$status_file")
	[ "$status" = 0 ] || fail "wl-record under screen-share exited $status"
	[ -f "$png" ] || fail "no PNG written at $png"
	log_has "wl-record-$name" "listening on" &&
		fail "wl-record opened a listening socket although WAYLAND_SERVER_SOCKET was set"
	# Weston outlives the share.
	sleep 0.2
	is_running "$WESTON_PID" || fail "Weston exited when the share ended"
	stop_all
}

# weston-simple-shm's 250x250 buffer has a 20-pixel white frame (the only
# white on screen) around its animation: wherever the shell placed it, the
# white pixels must span exactly 250x250.

# 1. A coloured background, the still taken 1.5 s after the first frame:
# the desktop as it settled, background at the corners, simple-shm mapped.
share_case colour 336699 --delay 1.5
"$PNG_CHECK" "$TEST_DIR/colour.png" --size "${W}x$H" --pixel 0,0,336699 --pixel -1,0,336699 \
	--pixel 0,-1,336699 --pixel -1,-1,336699 --colour-bbox ffffff,250x250 ||
	fail "the still does not show Weston's ${W}x$H output: 336699 background and simple-shm"

# 2. A black background, no delay: the first frame that is not black is the
# one that shows simple-shm.
share_case black 000000
"$PNG_CHECK" "$TEST_DIR/black.png" --size "${W}x$H" --pixel 0,0,000000 --pixel -1,-1,000000 \
	--colour-bbox ffffff,250x250 ||
	fail "the still does not show weston-simple-shm's 250x250 window on the black output"
pass
