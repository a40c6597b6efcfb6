#!/bin/bash
# examples/weston.ini drives a real headless Weston 10: its paths replaced by
# the build's, start-on-startup=true standing in for Ctrl+Alt+S (headless
# Weston has no pointer to pick an output with), and a quiet shell.
#   1. recording: the share records into the fake $HOME's Videos; the
#      second "press" (the ini's own command line run again) stops it
#      through the pid file, and the file is complete.
#   2. recording again, stopped with `wl-record --stop`.
#   3. the screenshot line: one PNG into ~/Pictures.
. "$TEST_LIB"
require_weston
require_commands weston-simple-shm
: "${EXAMPLE_INI:?EXAMPLE_INI must point at examples/weston.ini}"

W=480
H=360
BACKGROUND=336699
PID_FILE=$XDG_RUNTIME_DIR/wl-record.pid
export HOME="$TEST_DIR/home"
mkdir -p "$HOME/Videos" "$HOME/Pictures"
unset XDG_CONFIG_HOME XDG_VIDEOS_DIR XDG_PICTURES_DIR

grep -q '^command=/usr/local/bin/wl-record ' "$EXAMPLE_INI" ||
	fail "the example has no active command=/usr/local/bin/wl-record line"

# make_ini NAME [screenshot]: the example for this build.
make_ini() {
	local ini="$TEST_DIR/$1.ini"
	if [ "${2:-}" = screenshot ]; then
		sed -e 's|^command=|#command=|' -e 's|^#command=\(.*--screenshot.*\)|command=\1|' \
			"$EXAMPLE_INI"
	else
		cat "$EXAMPLE_INI"
	fi | sed -e "s|/usr/local/bin/wl-record|$WL_RECORD|" \
		-e 's|^#start-on-startup=true|start-on-startup=true|' >"$ini"
	printf '\n[shell]\nbackground-color=0xff%s\npanel-position=none\n' "$BACKGROUND" >>"$ini"
	printf 'startup-animation=none\nanimation=none\nlocking=false\n' >>"$ini"
	[ "$(grep -c '^command=' "$ini")" = 1 ] || fail "$ini has not exactly one command= line"
	grep -q '^start-on-startup=true' "$ini" || fail "$ini does not start the share"
	INI_COMMAND=$(sed -n 's/^command=//p' "$ini")
	log "$1: command=$INI_COMMAND"
	INI=$ini
}

# run_weston NAME: headless Weston with the ini, and weston-simple-shm.
run_weston() {
	start_weston "weston-$1" --backend=headless-backend.so --use-pixman --width="$W" \
		--height="$H" --socket="weston-$1" --config="$INI" --idle-time=0
	WESTON_PID=$STARTED_PID
	wait_until 10 "Weston's socket" socket_exists "weston-$1"
	WAYLAND_DISPLAY=weston-$1 start "simple-shm-$1" weston-simple-shm
}

recording_pid() {
	local pid
	read -r pid _ 2>/dev/null <"$PID_FILE" || return 1
	[ -n "$pid" ] && is_running "$pid" && RECORDING_PID=$pid
}

frames_written() { # grows once the encoder has written its first packets
	local file
	file=$(ls "$HOME/Videos/"*.mkv 2>/dev/null | head -n 1)
	[ -n "$file" ] && [ "$(stat -c %s "$file")" -gt 2000 ]
}

check_video() { # FILE
	ffprobe_check "$1"
	"$VIDEO_CHECK" "$1" --size "${W}x$H" --min-frames 2 --pixel "0,0,$BACKGROUND,12" \
		--pixel "-1,-1,$BACKGROUND,12" ||
		fail "$1 does not show Weston's ${W}x$H desktop"
}

# 1. The share starts a recording; the second press stops it.
make_ini record
run_weston record
wait_until 15 "the recording's pid file" recording_pid
FIRST=$RECORDING_PID
comm=$(cat "/proc/$FIRST/comm")
[ "$comm" = wl-record ] || fail "the pid file names $comm, not wl-record"
wait_until 20 "the recording to write frames" frames_written
# The second press: what Weston would run, without a fresh share to serve
# (--toggle never touches it when it stops the running recording).
timeout 30 sh -c "$INI_COMMAND" >"$TEST_DIR/toggle.out" 2>"$TEST_DIR/toggle.log" ||
	fail "the second press ($INI_COMMAND) exited $?"
log_has toggle "stopping the running recording \\(pid $FIRST\\)" ||
	fail "the second press did not stop pid $FIRST"
is_running "$FIRST" && fail "the recording still runs after the second press returned"
[ ! -e "$PID_FILE" ] || fail "the pid file outlived the recording"
is_running "$WESTON_PID" || fail "Weston exited with the recording"
VIDEOS=("$HOME/Videos/"wl-record-*.mkv)
[ "${#VIDEOS[@]}" = 1 ] && [ -f "${VIDEOS[0]}" ] ||
	fail "expected one recording in ~/Videos: ${VIDEOS[*]}"
grep -q -F "${VIDEOS[0]}" "$TEST_DIR/weston-record.log" ||
	fail "the recording did not print its path (Weston's stdout)"
# The stopping press prints the path as --stop does.
[ "$(cat "$TEST_DIR/toggle.out")" = "${VIDEOS[0]}" ] ||
	fail "the second press printed '$(cat "$TEST_DIR/toggle.out")', not ${VIDEOS[0]}"
check_video "${VIDEOS[0]}"
stop_all
rm -f "${VIDEOS[@]}"

# 2. The same, stopped with wl-record --stop.
run_weston stop
wait_until 15 "the recording's pid file" recording_pid
wait_until 20 "the recording to write frames" frames_written
"$WL_RECORD" --stop || fail "wl-record --stop exited $?"
wait_until 20 "the recording to finish" test ! -e "$PID_FILE"
VIDEOS=("$HOME/Videos/"wl-record-*.mkv)
[ -f "${VIDEOS[0]}" ] || fail "no recording after --stop"
check_video "${VIDEOS[0]}"
stop_all

# 3. The screenshot line. start-on-startup shares before the desktop shell
# has drawn anything (a key is pressed on a painted desktop): --delay 1.5
# stands in for that. weston-simple-shm never stops changing the picture,
# so the still is the newest one at --timeout (4 s instead of 10).
make_ini still screenshot
sed -i 's|^\(command=.*--screenshot\)|\1 --delay 1.5 --timeout 4|' "$INI"
grep -q -- '^command=.*--screenshot --delay 1.5 --timeout 4$' "$INI" || fail "no --delay added to $INI"
run_weston still
wait_until 20 "a still in ~/Pictures" compgen -G "$HOME/Pictures/wl-record-*.png"
wait_until 10 "wl-record to print the still's path" log_has weston-still "^$HOME/Pictures/wl-record-.*\\.png$"
STILL=$(compgen -G "$HOME/Pictures/wl-record-*.png")
"$PNG_CHECK" "$STILL" --size "${W}x$H" --pixel "0,0,$BACKGROUND" --pixel "-1,-1,$BACKGROUND" ||
	fail "$STILL does not show Weston's desktop"
[ ! -e "$PID_FILE" ] || fail "a still wrote the pid file"
pass
