#!/bin/bash
# --window on a HiDPI output: sway 1.7 headless with its output at scale 2
# (800x600 pixels, 400x300 logical). The window's buffer is the recording
# itself, placed with wp_viewporter, so sway maps it straight onto the
# output's pixels: a window whose content is 160x120 logical shows the
# 320x240 recording pixel for pixel, not a 160x120 picture doubled.
# Checked from sway's side with grim (which reads the output's pixels):
#   1. at scale 2, the content is exactly the presenter's last frame;
#   2. the output changed to scale 1 under the running window: the same
#      window at 320x240 logical is again exact;
#   3. the recording is unchanged by all of it: 320x240, every frame.
. "$TEST_LIB"
. "$SWAY_LIB"
. "$WINDOW_LIB"
require_commands grim python3

PW=320
PH=240
start_window_sway 'output HEADLESS-1 scale 2'

output_scale() {
	sway_msg -t get_outputs -r | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)[0]["scale"])'
}
# exact SCALE LW LH: the content is LW x LH logical and, in grim's picture
# of the output (SCALE device pixels per logical one), exactly the pattern's
# last frame.
exact() {
	local scale=$1 x y w h
	read -r x y w h < <(window_info) || return 1
	[ "$w" -eq "$2" ] && [ "$h" -eq "$3" ] || return 1
	"${as_user[@]}" grim "$USER_DIR/screen.png" 2>"$TEST_DIR/grim.log" || return 1
	"$PNG_CHECK" "$USER_DIR/screen.png" --size 800x600 --pattern 19 \
		--pattern-rect "$((x * scale)),$((y * scale)),${PW}x$PH" >"$TEST_DIR/last-check.txt" 2>&1 ||
		{ cat "$TEST_DIR/last-check.txt" >>"$TEST_DIR/screen-checks.log"; return 1; }
}

start record "${as_user[@]}" "$WL_RECORD" -v --window --size ${PW}x$PH "$USER_DIR/hidpi.mkv" -- \
	"$PRESENTER" --size ${PW}x$PH --frames 20 --interval-ms 50 --hold-ms 60000
RECORD_PID=$STARTED_PID
wait_until 20 "the window" window_shown
[ "$(output_scale)" = 2.0 ] || fail "sway's output is at scale $(output_scale), not 2"
wait_until 20 "the presenter's last frame" log_has record "committed 20 frames"

# 1. Scale 2: 160x120 logical is 320x240 of the output's pixels.
resize_content $((PW / 2)) $((PH / 2))
wait_until 20 "the recording pixel for pixel at scale 2" exact 2 $((PW / 2)) $((PH / 2))
log "scale 2: $(window_info) logical shows pattern frame 19 exactly"

# 2. The output back at scale 1 under the running window.
sway_msg 'output HEADLESS-1 scale 1' >/dev/null || fail "swaymsg could not change the scale"
resize_content $PW $PH
wait_until 20 "the recording pixel for pixel at scale 1" exact 1 $PW $PH
log "scale 1: $(window_info) logical shows pattern frame 19 exactly"

# 3. The file: its size, and the pattern's frames in order.
sway_msg '[app_id=wl-record] kill' >/dev/null || fail "swaymsg could not close the window"
wait_exit "$RECORD_PID" 30
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record exited $EXIT_STATUS"
ffprobe_check "$USER_DIR/hidpi.mkv"
"$VIDEO_CHECK" "$USER_DIR/hidpi.mkv" --size ${PW}x$PH --pattern --end-repeat --min-frames 20 \
	--max-frames 20 >"$TEST_DIR/video-check.log" 2>&1 ||
	{ cat "$TEST_DIR/video-check.log"; fail "the file"; }
pass
