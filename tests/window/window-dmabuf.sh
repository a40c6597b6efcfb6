#!/bin/bash
# --window without a copy: a hosted client's dmabuf handed to the desktop
# through its linux-dmabuf. The desktop is another wl-record (it offers
# zwp_linux_dmabuf_v1 v4 with LINEAR buffers, read by the CPU, so no GPU is
# needed); the hosted client is dmabuf-presenter (LINEAR memfd buffers of
# the known pattern, 320x240, one whole-screen surface: the frames are its
# dmabufs, lent). The outer (640x480) shows the inner's window fullscreen:
# the picture scaled 2x. For FORMAT (xrgb, argb: ARGB8888 is shown as its
# opaque twin, XRGB8888) checked:
#   1. the window's pictures went as dmabufs: the inner's stats count them,
#      and at most the first (composed before the surface was lent) copied;
#   2. the outer's screen (--snap, a PNG) and the last frame of its file
#      show the presenter's last frame, scaled back down: the planes went
#      through with the right format, size, stride and damage;
#   3. the inner file holds the pattern's frames in order (the leases the
#      window holds do not take frames from the recording).
. "$TEST_LIB"
require_commands ffmpeg ffprobe
: "${DMABUF_PRESENTER:?DMABUF_PRESENTER must point at tests/dmabuf/dmabuf-presenter}"

FRAMES=20

# outer_shows NAME FRAME: a still of the outer's screen, scaled to the
# picture's size, is pattern frame FRAME (bilinear scaling up and down, and
# the outer's own scaling: a few levels off at the box's edges; a frame
# before or after differs by far more where the box moved).
outer_shows() {
	local still
	still=$("$WL_RECORD" --pid-file "$TEST_DIR/outer.pid" --snap 2>>"$TEST_DIR/snap.log") || return 1
	ffmpeg -v error -i "$still" -vf scale=320:240:flags=area -y "$TEST_DIR/$1-still.png" ||
		return 1
	"$PNG_CHECK" "$TEST_DIR/$1-still.png" --size 320x240 --pattern "$2" --max-diff 64 \
		>"$TEST_DIR/$1-still-check.log" 2>&1
}

case_format() { # FORMAT
	local format=$1 name="dmabuf-$1"
	log "case $format"
	rm -f "$TEST_DIR/outer.pid"
	start "$name" "$WL_RECORD" -v --pid-file "$TEST_DIR/outer.pid" --size 640x480 \
		"$TEST_DIR/$name-outer.mkv" -- \
		sh -c 'exec "$@" 3>"$0"' "$TEST_DIR/$name-inner.stats.json" \
		"$WL_RECORD" -v --window --size 320x240 --stats-fd 3 "$TEST_DIR/$name-inner.mkv" -- \
		"$DMABUF_PRESENTER" --version 4 --format "$format" --size 320x240 --frames $FRAMES \
		--interval-ms 100 --hold-ms 60000
	local outer=$STARTED_PID
	wait_until 40 "the presenter's last frame" log_has "$name" "committed $FRAMES frames"
	wait_until 20 "the outer screen to show the last frame" outer_shows "$name" $((FRAMES - 1))
	log "outer still: $(tail -n 1 "$TEST_DIR/$name-still-check.log")"
	"$WL_RECORD" --pid-file "$TEST_DIR/outer.pid" --stop >/dev/null 2>>"$TEST_DIR/snap.log" ||
		fail "--stop of the outer wl-record failed"
	wait_exit "$outer" 30
	[ "$EXIT_STATUS" -eq 0 ] || fail "$format: the outer wl-record exited $EXIT_STATUS"

	# 1. The path taken, from the inner's stats (-v).
	local stats shown lent copied
	stats=$(grep -- '--window: .* pictures shown' "$TEST_DIR/$name.log" | tail -n 1)
	log "$stats"
	read -r shown lent copied < <(sed -E \
		's/.* ([0-9]+) pictures shown \(([0-9]+) as the frame.s dmabuf, ([0-9]+) copied\).*/\1 \2 \3/' \
		<<<"$stats")
	[[ $shown =~ ^[0-9]+$ && $lent =~ ^[0-9]+$ && $copied =~ ^[0-9]+$ ]] ||
		fail "$format: no window stats in the inner's log"
	[ "$lent" -ge 1 ] && [ "$copied" -le 1 ] && [ $((lent + copied)) -eq "$shown" ] ||
		fail "$format: $lent pictures as dmabufs, $copied copied, $shown shown"

	# 2. The outer's file ends on the window's last picture.
	ffprobe_check "$TEST_DIR/$name-outer.mkv"
	ffmpeg -v error -sseof -1 -i "$TEST_DIR/$name-outer.mkv" -vf scale=320:240:flags=area \
		-update 1 -y "$TEST_DIR/$name-last.png" ||
		fail "$format: cannot take the outer recording's last frame"
	"$PNG_CHECK" "$TEST_DIR/$name-last.png" --size 320x240 --pattern $((FRAMES - 1)) \
		--max-diff 64 || fail "$format: the outer recording's last frame is not the pattern's last"

	# 3. The inner's file.
	# Every commit in the file or reported replaced (the inner's --stats).
	"$VIDEO_CHECK" "$TEST_DIR/$name-inner.mkv" --size 320x240 --pattern --end-repeat \
		--commits $FRAMES --min-psnr 30 --stats "$TEST_DIR/$name-inner.stats.json" ||
		fail "$format: the inner recording"
}

case_format xrgb
case_format argb
# Under -Db_sanitize: a report in any process's log fails the test.
! grep -l -E "Sanitizer|runtime error" "$TEST_DIR"/*.log ||
	fail "a sanitizer reported an error"
pass
