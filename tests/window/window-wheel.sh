#!/bin/bash
# The wheel through the --window, by the hosted client's wl_seat version:
# sway 1.7 headless as the desktop (its seat is version 7: wheel steps come
# as axis_discrete), a virtual pointer turning the wheel 3 steps down and 1
# up over the window. wl-record hosts tests/window/input_client.c twice,
# binding wl_seat 8 and then 7; it draws what it got (input-check.py rows):
#   - version 8: axis_value120, 120 a step (row 7: 3*120 - 120 = 240), and
#     never axis_discrete (row 8: 0);
#   - version 7: axis_discrete, one event a wheel frame (row 8: 2);
#   - both: 2 steps in all (row 6).
. "$TEST_LIB"
. "$SWAY_LIB"
. "$WINDOW_LIB"
require_commands ffmpeg ffprobe python3

PW=320
PH=240
start_window_sway
start_virtual_pointer 800 600

window_gone() {
	! window_shown
}

for version in 8 7; do
	name=record$version
	start $name "${as_user[@]}" env INPUT_CLIENT_SEAT=$version "$WL_RECORD" -v --window \
		--size ${PW}x$PH "$USER_DIR/wheel$version.mkv" -- "$INPUT_CLIENT"
	RECORD_PID=$STARTED_PID
	wait_until 20 "the window on sway" window_shown
	wait_until 20 "the app's pointer" log_has $name 'seat capabilities 3'
	log_has $name "wl_seat version $version" || fail "the app did not bind wl_seat $version"
	read -r WX WY WW WH < <(window_info)
	# The middle of the window is on the picture, whatever the letterbox.
	pointer move $((WX + WW / 2)) $((WY + WH / 2))
	wait_until 10 "the pointer in the app" log_has $name 'pointer (enter|motion)'
	pointer scroll 3
	wait_until 10 "3 steps down in the app" log_has $name '^wheel 3'
	pointer scroll -1
	wait_until 10 "1 step up in the app" log_has $name '^wheel -1'
	log "wl_seat $version: $(grep -E '^(axis_|wheel)' "$TEST_DIR/$name.log" | tr '\n' ';')"
	if [ $version = 8 ]; then
		rows=(6=2 7=240 8=0)
	else
		rows=(6=2 7=0 8=2)
	fi
	# Drawn after the app says so: recorded before the window closes.
	recording_holds "the wheel" rows_shown $PW $PH "${rows[@]}"
	sway_msg '[app_id=wl-record] kill' >/dev/null || fail "swaymsg could not close the window"
	wait_exit "$RECORD_PID" 30
	[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record exited $EXIT_STATUS"
	wait_until 10 "the window gone" window_gone
	ffprobe_check "$USER_DIR/wheel$version.mkv"
	"$PYTHON" "$INPUT_CHECK" rows "$USER_DIR/wheel$version.mkv" $PW $PH "${rows[@]}" \
		>"$TEST_DIR/check$version.log" 2>&1 || {
		cat "$TEST_DIR/check$version.log"
		fail "wl_seat $version: the recording does not show the wheel as expected"
	}
	log "wl_seat $version: $(tr '\n' ' ' <"$TEST_DIR/check$version.log")"
done
exec 7>&-
pass
