#!/bin/bash
# --window with a dmabuf client on a desktop that takes no dmabufs: sway
# 1.7 headless with the pixman renderer offers no zwp_linux_dmabuf_v1 (its
# renderer imports none). wl-record hosts dmabuf-presenter (LINEAR memfd
# buffers of the known pattern, lent as the frames); the window must fall
# back to copying them into its shm buffers. Checked:
#   1. the desktop really offers no linux-dmabuf (weston-info, when there);
#   2. the window shows the presenter's last frame exactly (a grim of the
#      window at the recording's size: 1:1);
#   3. the window's stats count copies and no dmabuf picture, and -v says
#      once why;
#   4. the file holds the pattern's frames in order.
. "$TEST_LIB"
. "$SWAY_LIB"
. "$WINDOW_LIB"
require_commands grim ffmpeg ffprobe python3
: "${DMABUF_PRESENTER:?DMABUF_PRESENTER must point at tests/dmabuf/dmabuf-presenter}"

PW=320
PH=240
FRAMES=20
start_window_sway

# 1. What makes this the fallback case.
if command -v weston-info >/dev/null; then
	"${as_user[@]}" weston-info >"$TEST_DIR/weston-info.txt" 2>&1 ||
		fail "weston-info cannot read sway's globals"
	grep -q "interface: 'wl_compositor'" "$TEST_DIR/weston-info.txt" ||
		fail "weston-info printed no globals"
	! grep -q zwp_linux_dmabuf_v1 "$TEST_DIR/weston-info.txt" ||
		skip "this sway offers zwp_linux_dmabuf_v1: not the no-dmabuf desktop this test needs"
else
	# A part that did not run: scripts/check-skips.py counts this line.
	log "SKIP: weston-info is not installed: sway's globals not checked for zwp_linux_dmabuf_v1"
fi


start record "${as_user[@]}" "$WL_RECORD" -v --window --size ${PW}x$PH "$USER_DIR/window.mkv" -- \
	"$DMABUF_PRESENTER" --version 4 --size ${PW}x$PH --frames $FRAMES --interval-ms 100 \
	--hold-ms 60000
RECORD_PID=$STARTED_PID
wait_until 20 "the window on sway" window_shown
wait_until 30 "the presenter's last frame" log_has record "committed $FRAMES frames"

# 2. The window's content at the recording's size (what sway adds for its
# border and title bar measured, then taken into account): the pattern's
# last frame, pixel for pixel.
sway_msg "[app_id=wl-record] floating enable, resize set width $PW px height $PH px" >/dev/null ||
	fail "swaymsg could not resize the window"
content_measured() {
	read -r _ _ w h < <(window_info) && [ -n "$h" ]
}
wait_until 10 "the window's new size" content_measured
sway_msg "[app_id=wl-record] resize set width $((2 * PW - w)) px height $((2 * PH - h)) px" \
	>/dev/null || fail "swaymsg could not resize the window"
shows_last_pattern() {
	local x y w h
	read -r x y w h < <(window_info) || return 1
	[ "$w" -eq $PW ] && [ "$h" -eq $PH ] || return 1
	"${as_user[@]}" grim "$USER_DIR/screen.png" 2>"$TEST_DIR/grim.log" || return 1
	"$PNG_CHECK" "$USER_DIR/screen.png" --size 800x600 --pattern $((FRAMES - 1)) \
		--pattern-rect "$x,$y,${PW}x$PH" >"$TEST_DIR/last-check.txt" 2>&1 ||
		{ cat "$TEST_DIR/last-check.txt" >>"$TEST_DIR/screen-checks.log"; return 1; }
}
wait_until 20 "the pattern's last frame 1:1 in the window" shows_last_pattern
log "1:1: $(window_info) shows pattern frame $((FRAMES - 1)) exactly"

sway_msg '[app_id=wl-record] kill' >/dev/null || fail "swaymsg could not close the window"
wait_exit "$RECORD_PID" 30
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record stopped by closing its window exited $EXIT_STATUS"

# 3. The path taken.
stats=$(grep -- '--window: .* pictures shown' "$TEST_DIR/record.log" | tail -n 1)
log "$stats"
read -r shown lent copied < <(sed -E \
	's/.* ([0-9]+) pictures shown \(([0-9]+) as the frame.s dmabuf, ([0-9]+) copied\).*/\1 \2 \3/' \
	<<<"$stats")
[[ $shown =~ ^[0-9]+$ && $lent =~ ^[0-9]+$ && $copied =~ ^[0-9]+$ ]] ||
	fail "no window stats in wl-record's log"
[ "$lent" -eq 0 ] && [ "$copied" -ge 1 ] ||
	fail "$lent pictures as dmabufs, $copied copied, $shown shown on a desktop without linux-dmabuf"
said=$(grep -c "the desktop offers no linux-dmabuf" "$TEST_DIR/record.log")
[ "$said" -eq 1 ] || fail "the missing linux-dmabuf was said $said times, not once"
grep -q "zero-copy: [1-9][0-9]* dmabuf frames" "$TEST_DIR/record.log" ||
	fail "the frames were not the presenter's dmabufs: not the case under test"

# 4. The file.
ffprobe_check "$USER_DIR/window.mkv"
"$VIDEO_CHECK" "$USER_DIR/window.mkv" --size ${PW}x$PH --pattern --end-repeat --commits $FRAMES \
	--min-psnr 30 || fail "the recording"
# Under -Db_sanitize: a report in any process's log fails the test.
! grep -l -E "Sanitizer|runtime error" "$TEST_DIR"/*.log ||
	fail "a sanitizer reported an error"
pass
