#!/bin/bash
# Touch through the --window. Sway headless has no touch device, so the
# desktop is a fake of our own with a touchscreen (fake_desktop.c: a
# wl_seat with touch only), which configures the window at 640x360: the
# 320x240 recording is shown at 80,0 as 480x360 (scale 1.5, bars left and
# right). wl-record hosts tests/window/input_client.c, which is offered
# touch (seat capabilities 7) and draws a green mark where each touch point
# is or was last. Touches at known window positions:
#   1. down at 230,240 (the recording's 100,160), with a contact of
#      15x9 (10x6 in the recording) at 45 degrees, moved to 380,270
#      (200,180), up: a mark at 200,180;
#   2. down and up at 155,315 (50,210): a mark there;
#   3. down on the left bar (40,180), moved onto the picture, up: it began
#      off the picture, so it goes nowhere: no mark, no touch in the app;
#   4. down and up at 530,90 (300,60).
# The decoded recording's last frame has exactly those three marks.
. "$TEST_LIB"
. "$FAKE_DESKTOP_LIB"
. "$WINDOW_LIB"  # recording_holds
require_commands ffmpeg ffprobe python3
PYTHON=python3
[ -x /usr/bin/python3 ] && PYTHON=/usr/bin/python3

start_fake_desktop 640 360

start record env WAYLAND_DISPLAY=fake-desktop "$WL_RECORD" -v --window --size 320x240 \
	"$TEST_DIR/touch.mkv" -- "$INPUT_CLIENT"
RECORD_PID=$STARTED_PID
wait_until 20 "the window mapped" log_has desktop '^mapped'
wait_until 20 "the window's wl_touch" log_has desktop '^touch bound'
wait_until 20 "touch offered to the app" log_has record 'seat capabilities 7'

app_saw() {
	[ "$(grep -c "$1" "$TEST_DIR/record.log")" -ge "$2" ]
}

desktop "down 1 230 240" "shape 1 15 9" "orientation 1 45" frame
wait_until 10 "touch 1 down in the app" app_saw '^touch down 1 100.0,160.0 on the toplevel' 1
wait_until 10 "touch 1's contact in the app" app_saw '^touch orientation 1 45.0' 1
log_has record '^touch shape 1 10.0x6.0' ||
	fail "touch 1's contact: $(grep '^touch shape' "$TEST_DIR/record.log")"
desktop "motion 1 380 270" frame "up 1" frame
wait_until 10 "touch 1 up in the app" app_saw '^touch up 1' 1
desktop "down 2 155 315" "up 2" frame
wait_until 10 "touch 2 in the app" app_saw '^touch up 2' 1
desktop "down 3 40 180" frame "motion 3 320 180" frame "up 3" frame
# A touch after it (at 530,90: the recording's 300,60), to know that the
# app had its chance to see touch 3.
desktop "down 4 530 90" "up 4" frame
wait_until 10 "touch 4 in the app" app_saw '^touch up 4' 1
log "the app saw: $(grep '^touch' "$TEST_DIR/record.log" | grep -v frame | tr '\n' ';')"
! log_has record '^touch (down|motion|up) 3' || fail "a touch that began on the bar reached the app"
# Drawn after the app says so: recorded before the recording stops.
marks_shown() {
	"$PYTHON" "$INPUT_CHECK" marks "$@"
}
recording_holds "the touch marks" marks_shown 320 240 200,180 50,210 300,60

kill -INT "$RECORD_PID"
wait_exit "$RECORD_PID" 30
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record exited $EXIT_STATUS"
exec 7>&-
ffprobe_check "$TEST_DIR/touch.mkv"
"$PYTHON" "$INPUT_CHECK" marks "$TEST_DIR/touch.mkv" 320 240 200,180 50,210 300,60 \
	>"$TEST_DIR/marks.log" 2>&1 || {
	cat "$TEST_DIR/marks.log"
	fail "the recording does not show the touch marks where the letterbox maps them"
}
log "$(tr '\n' ' ' <"$TEST_DIR/marks.log")"
pass
