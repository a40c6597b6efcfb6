#!/bin/bash
# Recording the real Weston 10 through screen-share, stopped every way a
# user or a script stops a recorder: SIGINT, SIGTERM, SIGHUP, two SIGINTs
# in a row, and the main Weston dying. Every time wl-record must exit 0 and
# leave a complete file (trailer, index, duration) that ends on Weston's
# desktop.
. "$TEST_LIB"
require_weston
require_commands weston-simple-shm

W=320
H=240
BACKGROUND=336699

# record_case NAME HOW: HOW is a signal name, "INT INT", or "kill-weston".
record_case() {
	local name=$1 how=$2
	local file="$TEST_DIR/$name.mkv" status_file="$TEST_DIR/$name.status"
	local shell_pid_file="$TEST_DIR/$name.shpid" socket="weston-$name"
	# /bin/sh -c runs this; wl-record runs in the foreground of that shell,
	# so signals reach it as they would from a terminal's kill.
	local command="echo \$\$ >$shell_pid_file; $(perturb_env) $WL_RECORD $file 2>$TEST_DIR/wl-record-$name.log; echo \$? >$status_file"
	write_weston_ini "$TEST_DIR/$name.ini" "0xff$BACKGROUND" "$command"

	log "case $name: stop by $how"
	start_weston "weston-$name" --backend=headless-backend.so --use-pixman --width="$W" \
		--height="$H" --socket="$socket" --config="$TEST_DIR/$name.ini" --idle-time=0
	local weston=$STARTED_PID
	wait_until 10 "Weston's socket" socket_exists "$socket"
	WAYLAND_DISPLAY=$socket start "simple-shm-$name" weston-simple-shm
	wait_until 10 "the share's shell" test -s "$shell_pid_file"
	local recorder=
	find_recorder() { recorder=$(child_named "$(cat "$shell_pid_file")" wl-record); }
	wait_until 10 "wl-record to run under the share" find_recorder
	# Record a while from the first frame (the file gets its header then; a
	# loaded machine may take a while to get there): simple-shm animates, so
	# frames keep coming.
	wait_until 20 "the first frame in $name.mkv" test -s "$file"
	sleep 1.5
	is_running "$recorder" || fail "wl-record ended before it was asked to"
	case $how in
	kill-weston) kill -KILL "$weston" ;;
	"INT INT") kill -INT "$recorder"; sleep 0.02; kill -INT "$recorder" ;;
	*) kill "-$how" "$recorder" ;;
	esac
	wait_until 15 "wl-record to finish after $how" test -s "$status_file"
	local status
	status=$(cat "$status_file")
	[ "$status" = 0 ] || fail "wl-record stopped by $how exited $status"
	"$VIDEO_CHECK" "$file" --size "${W}x$H" --min-frames 10 --min-duration-ms 1000 \
		--expect-tags --pixel 0,0,"$BACKGROUND",8 --pixel -1,-1,"$BACKGROUND",8 ||
		fail "the recording stopped by $how is not complete"
	ffprobe_check "$file"
	stop_all
}

record_case sigint INT
record_case sigterm TERM
record_case sighup HUP
record_case double-sigint "INT INT"
record_case weston-killed kill-weston
pass
