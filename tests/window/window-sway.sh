#!/bin/bash
# wl-record --window on a real desktop: sway 1.7 headless (pixman renderer)
# as the user's desktop, wl-record hosting the presenter (solid colour
# steps) and showing it in a window there. Checked from sway's side
# (get_tree, grim of the output) and by decoding the file:
#   1. the window is there: app_id wl-record, the recording mark in its
#      title, decorations drawn by sway (xdg-decoration server-side);
#   2. it shows the recording: the colour steps in order, scaled to fit
#      the tiled window with its aspect kept and black letterbox bars,
#      then floating and resized wide and tall: still the whole picture,
#      aspect kept, bars where they belong; the file keeps its size;
#   3. closing the window (swaymsg kill) ends wl-record with status 0, a
#      complete file with the colours in order, and the hosted app ended;
#   4. the window hidden on another workspace while the pattern's frames
#      come, then shown at the recording's size: exactly the presenter's
#      last frame; sway killed during that recording: one line, status 1, a
#      playable file with the pattern's frames in order.
. "$TEST_LIB"
. "$SWAY_LIB"
. "$WINDOW_LIB"
: "${WINDOW_CHECK:?WINDOW_CHECK must point at tests/window/window-check.py}"
require_commands grim ffmpeg ffprobe python3

PICTURE=320x240
PW=320
PH=240
start_window_sway

# shows COLOURS: a grim of the output has the picture in one of COLOURS
# (comma-separated) scaled into the window's content as it is now.
shows() {
	local colour x y w h rest
	read -r x y w h rest < <(window_info) || return 1
	"${as_user[@]}" grim "$USER_DIR/screen.png" 2>"$TEST_DIR/grim.log" || return 1
	for colour in ${1//,/ }; do
		"$PYTHON" "$WINDOW_CHECK" screen "$USER_DIR/screen.png" "$x" "$y" "$w" "$h" $PW $PH "$colour" \
			>"$TEST_DIR/last-check.txt" 2>&1 && return 0
	done
	# Printed with the other logs when the test fails.
	cat "$TEST_DIR/last-check.txt" >>"$TEST_DIR/screen-checks.log"
	return 1
}
last_check() {
	cat "$TEST_DIR/last-check.txt" 2>/dev/null
}

STEPS=ff0000@0,00ff00@7000,0000ff@14000
start record "${as_user[@]}" "$WL_RECORD" -v --window --size $PICTURE "$USER_DIR/window.mkv" -- \
	"$PRESENTER" --size $PICTURE --colour-steps $STEPS --hold-ms 60000
RECORD_PID=$STARTED_PID

# 1. The window, its title and decorations.
wait_until 20 "the window on sway" window_shown
read -r x y w h border title < <(window_info border name)
log "window content $x,$y ${w}x$h, border $border, title '$title'"
[ "$title" = "● REC — presenter" ] || fail "the window's title is '$title'"
[ "$border" = normal ] || fail "sway draws border '$border' around the window, not its own (normal)"
wait_until 10 "the decoration mode" log_has record "server-side"

# 2. What it shows: the recording's colours, scaled into the tiled window
# (wider than 4:3: bars left and right).
wait_until 20 "red in the tiled window" shows ff0000
log "tiled, red: $(last_check)"
wait_until 20 "green in the tiled window" shows 00ff00
log "tiled, green: $(last_check)"
sway_msg '[app_id=wl-record] floating enable, resize set width 600 px height 200 px' >/dev/null ||
	fail "swaymsg could not make the window floating"
wide() {
	read -r x y w h rest < <(window_info) && [ "$w" -gt $((h * 2)) ] && shows 00ff00,0000ff
}
wait_until 20 "the wide window's picture" wide
log "wide: $(last_check)"
sway_msg '[app_id=wl-record] resize set width 300 px height 500 px' >/dev/null ||
	fail "swaymsg could not resize the window"
tall() {
	read -r x y w h rest < <(window_info) && [ "$h" -gt $((w * 3 / 2)) ] && shows 00ff00,0000ff
}
wait_until 20 "the tall window's picture" tall
log "tall: $(last_check)"
wait_until 20 "blue in the tall window" shows 0000ff

# 3. Closing the window finishes the file.
sway_msg '[app_id=wl-record] kill' >/dev/null || fail "swaymsg could not close the window"
wait_exit "$RECORD_PID" 30
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record stopped by closing its window exited $EXIT_STATUS"
log_has record "stopping: the window was closed" || fail "no word of the window being closed"
wait_until 10 "the hosted presenter's end" bash -c "! pgrep -g $RECORD_PID >/dev/null"
ffprobe_check "$USER_DIR/window.mkv"
size=$(ffprobe -v error -select_streams v:0 -show_entries stream=width,height -of csv=s=x:p=0 \
	"$USER_DIR/window.mkv")
[ "$size" = $PICTURE ] || fail "the window's resizing changed the video: $size"
"$PYTHON" "$WINDOW_CHECK" video "$USER_DIR/window.mkv" $((PW / 2)) $((PH / 2)) ff0000,00ff00,0000ff \
	>"$TEST_DIR/video-check.log" 2>&1 || { cat "$TEST_DIR/video-check.log"; fail "the file's colours"; }
frames=$(grep -o '^[0-9]* frames' "$TEST_DIR/video-check.log" | cut -d' ' -f1)
# Three commits, and --fps 60 for at most ~40 s.
[ "$frames" -ge 3 ] && [ "$frames" -le 2400 ] || fail "$frames frames for three colour steps"
log "closed: $(cat "$TEST_DIR/video-check.log")"
log "$(grep -- '--window:' "$TEST_DIR/record.log" | tail -n 1)"

# 4. The pattern, shown 1:1 (the window's content at the recording's size:
# exactly the presenter's pixels, through copies into the shm buffers),
# then the desktop dies during the recording.
start record2 "${as_user[@]}" "$WL_RECORD" -v --window --size $PICTURE "$USER_DIR/crash.mkv" -- \
	"$PRESENTER" --size $PICTURE --frames 20 --interval-ms 100 --hold-ms 60000
RECORD2_PID=$STARTED_PID
wait_until 20 "the second window" window_shown
# Hidden on another workspace while the frames come (sway sends it no
# frame callbacks there): the recording goes on, and shown again the
# window catches up with everything it missed.
sway_msg '[app_id=wl-record] move to workspace 2' >/dev/null || fail "swaymsg could not move the window"
wait_until 20 "the presenter's last frame" log_has record2 "committed 20 frames"
sway_msg 'workspace 2' >/dev/null || fail "swaymsg could not show workspace 2"
resize_content $PW $PH
shows_last_pattern() {
	local x y w h rest
	read -r x y w h rest < <(window_info) || return 1
	[ "$w" -eq $PW ] && [ "$h" -eq $PH ] || return 1
	"${as_user[@]}" grim "$USER_DIR/screen.png" 2>"$TEST_DIR/grim.log" || return 1
	"$PNG_CHECK" "$USER_DIR/screen.png" --size 800x600 --pattern 19 \
		--pattern-rect "$x,$y,${PW}x$PH" >"$TEST_DIR/last-check.txt" 2>&1 ||
		{ cat "$TEST_DIR/last-check.txt" >>"$TEST_DIR/screen-checks.log"; return 1; }
}
wait_until 20 "the pattern's last frame 1:1 in the window" shows_last_pattern
log "1:1: $(window_info | cut -d' ' -f1-4) shows pattern frame 19 exactly"
kill -KILL "$SWAY_PID"
wait_exit "$RECORD2_PID" 30
[ "$EXIT_STATUS" -eq 1 ] || fail "wl-record whose desktop died exited $EXIT_STATUS, not 1"
[ "$(grep -c "the desktop closed the window's connection" "$TEST_DIR/record2.log")" -eq 1 ] ||
	fail "not one line about the desktop going: $(cat "$TEST_DIR/record2.log")"
ffprobe_check "$USER_DIR/crash.mkv"
"$VIDEO_CHECK" "$USER_DIR/crash.mkv" --size $PICTURE --pattern --end-repeat --min-frames 10 --max-frames 20 \
	>"$TEST_DIR/crash-check.log" 2>&1 || { cat "$TEST_DIR/crash-check.log"; fail "the crash file"; }
log "$(grep -- '--window:' "$TEST_DIR/record2.log" | tail -n 1)"
log "desktop killed: $(grep "the desktop closed" "$TEST_DIR/record2.log")"
pass
