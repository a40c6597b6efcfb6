#!/bin/bash
# wl-record --window with another wl-record as the desktop: a desktop that
# offers wp_viewporter and subsurfaces but no xdg-decoration nor primary
# selection (each said once under -v; the window has neither), and whose
# recording shows what the window drew.
# The outer wl-record (640x360, 16:9) hosts the inner one (320x240, 4:3),
# whose window is configured fullscreen: the picture scaled to 480x360 with
# black bars left and right. Checked by decoding both files: the colour
# steps in order in each, the bars black in every outer frame, the outer's
# last frame the window's scaled picture; --duration on the outer ends the
# inner recording as any stop does (its file complete).
. "$TEST_LIB"
: "${WINDOW_CHECK:?WINDOW_CHECK must point at tests/window/window-check.py}"
require_commands ffmpeg ffprobe python3
PYTHON=python3
[ -x /usr/bin/python3 ] && PYTHON=/usr/bin/python3

start outer "$WL_RECORD" -v --duration 4 --size 640x360 "$TEST_DIR/outer.mkv" -- \
	"$WL_RECORD" -v --window --size 320x240 "$TEST_DIR/inner.mkv" -- \
	"$PRESENTER" --size 320x240 --colour-steps ff0000@0,00ff00@1000,0000ff@2000 --hold-ms 20000
OUTER_PID=$STARTED_PID
wait_exit "$OUTER_PID" 40
[ "$EXIT_STATUS" -eq 0 ] || fail "the outer wl-record exited $EXIT_STATUS"
log_has outer "--window: the desktop offers no xdg-decoration: the window has no title bar" ||
	fail "no word of the missing decorations"
# Nor a primary selection (the outer one has no --window): said once.
said=$(grep -c "the desktop offers no zwp_primary_selection_device_manager_v1: no primary selection" \
	"$TEST_DIR/outer.log")
[ "$said" -eq 1 ] || fail "the missing primary selection said $said times, not once"
log_has outer "window 640x360: the 320x240 picture at 80,0 as 480x360" ||
	fail "the window's picture is not placed at 80,0 as 480x360"
for file in inner outer; do
	ffprobe_check "$TEST_DIR/$file.mkv"
done
size=$(ffprobe -v error -select_streams v:0 -show_entries stream=width,height -of csv=s=x:p=0 \
	"$TEST_DIR/inner.mkv")
[ "$size" = 320x240 ] || fail "the inner recording is $size, not 320x240"
"$PYTHON" "$WINDOW_CHECK" video "$TEST_DIR/inner.mkv" 160 120 ff0000,00ff00,0000ff ||
	fail "the inner recording's colours"
"$PYTHON" "$WINDOW_CHECK" video "$TEST_DIR/outer.mkv" 320 180 ff0000,00ff00,0000ff ||
	fail "the window's colours in the outer recording"
for x in 40 600; do
	"$PYTHON" "$WINDOW_CHECK" video "$TEST_DIR/outer.mkv" $x 180 000000 ||
		fail "the bar at x=$x is not black in every outer frame"
done
ffmpeg -v error -sseof -0.2 -i "$TEST_DIR/outer.mkv" -frames:v 1 -y "$TEST_DIR/last.png" ||
	fail "cannot take the outer recording's last frame"
"$PYTHON" "$WINDOW_CHECK" screen "$TEST_DIR/last.png" 0 0 640 360 320 240 0000ff ||
	fail "the outer recording's last frame is not the window's scaled picture"
pass
