#!/bin/bash
# The wheel from a wl_seat 8 desktop through the --window: sway 1.7 is
# version 7, so the desktop is our fake (fake_desktop.c, its seat at
# version 8) sending a high-resolution wheel: axis_value120 60, 60, 60
# and then -120 (a turn back). wl-record hosts tests/window/input_client.c
# twice, binding wl_seat 8 and then 7; it draws what it got
# (input-check.py rows):
#   - version 8: the value120 passed on as they came: 60+60+60-120 = 60
#     in all (row 7), no axis_discrete (row 8: 0), whole steps per frame
#     -1 (row 6: the last frame's);
#   - version 7: whole steps only, summed as wlroots does: one at the
#     second 60, none at the third, one back at the turn (row 8: 2 events,
#     row 6: 1 - 1 = 0), and no value120 (row 7: 0).
. "$TEST_LIB"
. "$FAKE_DESKTOP_LIB"
. "$WINDOW_LIB"  # recording_holds
require_commands ffmpeg ffprobe python3
PYTHON=python3
[ -x /usr/bin/python3 ] && PYTHON=/usr/bin/python3

start_fake_desktop 640 360 8

app_frames() {
	[ "$(grep -c '^wheel ' "$TEST_DIR/$1.log")" -ge "$2" ]
}

MAPPED=0
for version in 8 7; do
	name=record$version
	start $name env WAYLAND_DISPLAY=fake-desktop INPUT_CLIENT_SEAT=$version "$WL_RECORD" -v \
		--window --size 320x240 "$TEST_DIR/wheel$version.mkv" -- "$INPUT_CLIENT"
	RECORD_PID=$STARTED_PID
	MAPPED=$((MAPPED + 1))
	mapped() {
		[ "$(grep -c '^mapped' "$TEST_DIR/desktop.log")" -ge $MAPPED ]
	}
	wait_until 20 "the window mapped" mapped
	wait_until 20 "the app's pointer" log_has $name 'seat capabilities 7'
	log_has $name "wl_seat version $version" || fail "the app did not bind wl_seat $version"
	# The middle of the window: the recording's 160,120.
	desktop "enter 320 180"
	wait_until 10 "the pointer in the app" log_has $name 'pointer enter toplevel 160.0,120.0'
	desktop "wheel 60 7.5" "wheel 60 7.5" "wheel 60 7.5" "wheel -120 -15"
	# A v7 client hears of whole steps only: 2 wheel frames; v8 of all 4.
	wait_until 10 "the wheel in the app" app_frames $name $((version == 8 ? 4 : 2))
	log "wl_seat $version: $(grep -E '^(axis_|wheel)' "$TEST_DIR/$name.log" | tr '\n' ';')"
	if [ $version = 8 ]; then
		rows=(6=-1 7=60 8=0)
	else
		rows=(6=0 7=0 8=2)
	fi
	# Drawn after the app says so: recorded before the recording stops.
	recording_holds "the wheel" rows_shown 320 240 "${rows[@]}"
	kill -INT "$RECORD_PID"
	wait_exit "$RECORD_PID" 30
	[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record exited $EXIT_STATUS"
	ffprobe_check "$TEST_DIR/wheel$version.mkv"
	"$PYTHON" "$INPUT_CHECK" rows "$TEST_DIR/wheel$version.mkv" 320 240 "${rows[@]}" \
		>"$TEST_DIR/check$version.log" 2>&1 || {
		cat "$TEST_DIR/check$version.log"
		fail "wl_seat $version: the recording does not show the wheel as expected"
	}
	log "wl_seat $version: $(tr '\n' ' ' <"$TEST_DIR/check$version.log")"
done
exec 7>&-
pass
