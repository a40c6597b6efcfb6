#!/bin/bash
# The ext-image-copy-capture client against tests/screencopy/fake-ext-copy
# (no compositor on Debian 12 offers the protocol): frames in order with
# the fake's presentation times (not the time wl-record read them), the
# buffer damage a reused buffer needs (the fake writes nothing else), XBGR
# converted, -g cropped from the copied output, a turned output recorded
# upright, --no-cursor as options 0, a
# failed copy asked again, a mode change followed (new buffers, the stream
# keeps its size), a stopped session or repeated failures ending the file
# with exit 1 and a clear message, and a display offering both protocols
# copied through ext-image-copy-capture; dmabufs offered without a render
# node copied into shm, and why said under -v. Checked by decoding.
. "$TEST_LIB"
: "${FAKE_EXT_COPY:?FAKE_EXT_COPY must point at tests/screencopy/fake-ext-copy}"

SIZE=320x240

FAKE=$FAKE_EXT_COPY
# shellcheck source=tests/screencopy/fake-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/fake-lib.sh"

# record NAME ARG...: wl-record on display NAME, its output in NAME.log;
# sets STATUS.
record() {
	local name=$1
	shift
	WAYLAND_DISPLAY=$name timeout 30 "$WL_RECORD" -v "$@" >"$TEST_DIR/$name.log" 2>&1
	STATUS=$?
}

expect_ok() { # NAME WHAT
	[ "$STATUS" -eq 0 ] || { cat "$TEST_DIR/$1.log"; fail "$2: exited $STATUS"; }
}

# A video: every frame the fake answered, in order, stamped with its
# presentation times (0, 8 or 16 ms before the answer: stamping with the
# time of reading is 8 ms late on median), and pixel-exact up to H.264
# although each copy writes only the damaged part of a reused buffer.
start_fake video --frames 30 --times "$TEST_DIR/video.times"
record video --duration 2 "$TEST_DIR/video.mkv"
expect_ok video "the recording"
grep -q "via ext-image-copy-capture" "$TEST_DIR/video.log" ||
	{ cat "$TEST_DIR/video.log"; fail "the status line does not say ext-image-copy-capture"; }
ffprobe_check "$TEST_DIR/video.mkv"
"$VIDEO_CHECK" "$TEST_DIR/video.mkv" --size $SIZE --pattern --fixed-background --end-repeat --min-frames 28 \
	--max-frames 30 --times "$TEST_DIR/video.times" --pts-median-late-ms 3 \
	>"$TEST_DIR/check-video.log" 2>&1 ||
	{ cat "$TEST_DIR/check-video.log"; fail "the video is not the frames sent at their times"; }
log "video: $(grep -c '^ok' "$TEST_DIR/check-video.log") checks passed"

# Stills: exactly the picture, converted from XBGR too.
for format in xrgb xbgr; do
	start_fake "still-$format" --format $format
	record "still-$format" --screenshot "$TEST_DIR/still-$format.png"
	expect_ok "still-$format" "--screenshot of $format"
	"$PNG_CHECK" "$TEST_DIR/still-$format.png" --size $SIZE --pattern 0 >/dev/null ||
		fail "$format: the PNG is not the compositor's picture"
done

# -g: the protocol copies the whole output; the region is cropped from it
# (the fake's output is at 0,0, scale 1): the same pixels as the full
# still cropped by ffmpeg (which also checks the size).
start_fake region
record region -g "10,20 30x40" --screenshot "$TEST_DIR/region.png"
expect_ok region "-g --screenshot"
"$PNG_CHECK" "$TEST_DIR/region.png" --size 30x40 >/dev/null || fail "-g: not a 30x40 picture"
rgb() { ffmpeg -v error -i "$1" "${@:2}" -f rawvideo -pix_fmt rgb24 - ; }
cmp -s <(rgb "$TEST_DIR/region.png") <(rgb "$TEST_DIR/still-xrgb.png" -vf crop=30:40:10:20) ||
	fail "-g 10,20 30x40: not that part of the output"

# On an output of scale 2 (logical 160x120), the region is in logical
# coordinates and recorded in the output's pixels: twice as big.
start_fake region-scaled --scale 2
record region-scaled -g "5,10 15x20" --screenshot "$TEST_DIR/region-scaled.png"
expect_ok region-scaled "-g --screenshot at scale 2"
cmp -s <(rgb "$TEST_DIR/region-scaled.png") <(rgb "$TEST_DIR/still-xrgb.png" -vf crop=30:40:10:20) ||
	fail "-g 5,10 15x20 at scale 2: not the pixels 10,20 30x40 of the output"

# A turned output (wl_output transforms 1, 3 and 7: 90, 270, flipped-270):
# the copy is the picture turned for the panel and says so; the still,
# the video and -g (logical coordinates of the 240x320 output) are upright.
for transform in 1 3 7; do
	start_fake "turned$transform" --transform $transform
	record "turned$transform" --screenshot "$TEST_DIR/turned$transform.png"
	expect_ok "turned$transform" "--screenshot of an output turned by transform $transform"
	"$PNG_CHECK" "$TEST_DIR/turned$transform.png" --size 240x320 --pattern 0 >/dev/null ||
		fail "transform $transform: the still is not the upright picture"
	start_fake "turned-region$transform" --transform $transform
	record "turned-region$transform" -g "10,20 30x40" --screenshot \
		"$TEST_DIR/turned-region$transform.png"
	expect_ok "turned-region$transform" "-g of an output turned by transform $transform"
	cmp -s <(rgb "$TEST_DIR/turned-region$transform.png") \
		<(rgb "$TEST_DIR/turned$transform.png" -vf crop=30:40:10:20) ||
		fail "transform $transform: -g 10,20 30x40 is not that part of the upright picture"
done
start_fake turned-video --transform 1 --frames 20
record turned-video --duration 1.5 "$TEST_DIR/turned-video.mkv"
expect_ok turned-video "a recording of a turned output"
"$VIDEO_CHECK" "$TEST_DIR/turned-video.mkv" --size 240x320 --pattern --fixed-background --end-repeat --min-frames 18 \
	--max-frames 20 >"$TEST_DIR/check-turned-video.log" 2>&1 ||
	{ cat "$TEST_DIR/check-turned-video.log"; fail "the video of a turned output is not upright"; }

# The cursor: painted in unless --no-cursor.
for cursor in 1 0; do
	start_fake "cursor$cursor"
	args=()
	[ "$cursor" = 0 ] && args=(--no-cursor)
	record "cursor$cursor" "${args[@]}" --screenshot "$TEST_DIR/cursor$cursor.png"
	expect_ok "cursor$cursor" "${args[*]} --screenshot"
	grep -q -x "session options $cursor" "$TEST_DIR/fake-cursor$cursor.log" ||
		{ cat "$TEST_DIR/fake-cursor$cursor.log"; fail "${args[*]:-no option}: not options $cursor"; }
done

# A copy that fails once is asked again: nothing missing.
start_fake failed-once --frames 20 --fail-at 5
record failed-once --duration 1.5 "$TEST_DIR/failed-once.mkv"
expect_ok failed-once "a recording with a failed copy"
"$VIDEO_CHECK" "$TEST_DIR/failed-once.mkv" --size $SIZE --pattern --fixed-background --end-repeat --min-frames 19 \
	--max-frames 20 >"$TEST_DIR/check-failed-once.log" 2>&1 ||
	{ cat "$TEST_DIR/check-failed-once.log"; fail "a failed copy lost frames"; }

# A mode change: new constraints, the copy under way fails with
# buffer_constraints; the client copies at the new size and the stream
# keeps its own (pillarboxed: the sides are black).
start_fake resized --frames 30 --resize-at 10 --resize 160x240
record resized --duration 2 "$TEST_DIR/resized.mkv"
expect_ok resized "a recording across a mode change"
grep -q "^capture [0-9]* 160x240$" "$TEST_DIR/fake-resized.log" ||
	{ cat "$TEST_DIR/fake-resized.log"; fail "no copy at the new size"; }
grep -q "^capture [0-9]* 320x240$" "$TEST_DIR/fake-resized.log" ||
	fail "no copy at the first size"
"$VIDEO_CHECK" "$TEST_DIR/resized.mkv" --size $SIZE --min-frames 25 --pixel 4,120,000000,16 \
	--pixel -5,120,000000,16 >"$TEST_DIR/check-resized.log" 2>&1 ||
	{ cat "$TEST_DIR/check-resized.log"; fail "the video does not follow the mode change"; }

# The compositor ends the capture: the file so far is kept, exit 1, and why.
check_ended() { # NAME MESSAGE FAKE-ARGS...
	local name=$1 message=$2
	shift 2
	start_fake "$name" --frames 100 "$@"
	record "$name" "$TEST_DIR/$name.mkv"
	[ "$STATUS" -eq 1 ] || { cat "$TEST_DIR/$name.log"; fail "$name: exit $STATUS, expected 1"; }
	grep -q -F "$message" "$TEST_DIR/$name.log" ||
		{ cat "$TEST_DIR/$name.log"; fail "$name: no '$message'"; }
	ffprobe_check "$TEST_DIR/$name.mkv"
	"$VIDEO_CHECK" "$TEST_DIR/$name.mkv" --size $SIZE --pattern --fixed-background --end-repeat --min-frames 5 \
		--max-frames 10 >/dev/null || fail "$name: the frames before the end are not in the file"
}
check_ended stopped "the compositor stopped the capture (ext-image-copy-capture session stopped)" \
	--stop-at 10
check_ended failing "the compositor could not copy the output (ext-image-copy-capture failed 3 times" \
	--fail-from 10

# Both protocols offered: the successor is used (the fake's wlr-screencopy
# fails every copy).
start_fake both --also-wlr
record both --screenshot "$TEST_DIR/both.png"
expect_ok both "--screenshot with both protocols"
grep -q "via ext-image-copy-capture" "$TEST_DIR/both.log" || fail "both: not ext-image-copy-capture"
! grep -q "^wlr capture" "$TEST_DIR/fake-both.log" || fail "both: wlr-screencopy was used"
# ... unless forced: --capture wlr-screencopy copies through it (and the
# fake fails that copy).
start_fake forced-wlr --also-wlr
record forced-wlr --capture wlr-screencopy --screenshot "$TEST_DIR/forced-wlr.png"
[ "$STATUS" -eq 1 ] && grep -q "^wlr capture" "$TEST_DIR/fake-forced-wlr.log" ||
	{ cat "$TEST_DIR/forced-wlr.log"; fail "--capture wlr-screencopy did not use wlr-screencopy"; }
grep -q "via wlr-screencopy" "$TEST_DIR/forced-wlr.log" ||
	fail "--capture wlr-screencopy: the status line does not say so"
# --capture ext-image-copy and screencopy take ext-image-copy-capture.
for method in ext-image-copy screencopy; do
	start_fake "forced-$method" --also-wlr
	record "forced-$method" --capture $method --screenshot "$TEST_DIR/forced-$method.png"
	expect_ok "forced-$method" "--capture $method"
	grep -q "via ext-image-copy-capture" "$TEST_DIR/forced-$method.log" ||
		fail "--capture $method: not through ext-image-copy-capture"
done

# dmabufs offered (dmabuf_device and an XRGB8888 LINEAR dmabuf_format):
# without a render node (no GPU here) the copies go into shm, -v says why
# once, and the video is the frames sent as before.
start_fake dmabuf --frames 30 --dmabuf
record dmabuf --duration 2 "$TEST_DIR/dmabuf.mkv"
expect_ok dmabuf "the recording with dmabufs offered"
log_has dmabuf 'ext-image-copy-capture buffers: dmabuf format 0x34325258$' ||
	{ cat "$TEST_DIR/dmabuf.log"; fail "dmabuf: the dmabuf constraints were not read"; }
expect_shm_buffers dmabuf
ffprobe_check "$TEST_DIR/dmabuf.mkv"
"$VIDEO_CHECK" "$TEST_DIR/dmabuf.mkv" --size $SIZE --pattern --fixed-background --end-repeat --min-frames 28 \
	--max-frames 30 >"$TEST_DIR/check-dmabuf.log" 2>&1 ||
	{ cat "$TEST_DIR/check-dmabuf.log"; fail "dmabuf offered: the video is not the frames sent"; }
# The rule's other refusals, said as such: none offered, a still, -g cut
# by the CPU, an encoder that reads pixels.
start_fake no-dmabuf
record no-dmabuf --duration 0.5 "$TEST_DIR/no-dmabuf.mkv"
expect_ok no-dmabuf "a recording without dmabufs offered"
expect_shm_buffers no-dmabuf 'the compositor offers no dmabuf XRGB8888/ARGB8888 copy'
start_fake dmabuf-still --dmabuf
record dmabuf-still --screenshot "$TEST_DIR/dmabuf-still.png"
expect_ok dmabuf-still "--screenshot with dmabufs offered"
expect_shm_buffers dmabuf-still 'a still wants pixels'
"$PNG_CHECK" "$TEST_DIR/dmabuf-still.png" --size $SIZE --pattern 0 >/dev/null ||
	fail "dmabufs offered: the PNG is not the compositor's picture"
start_fake dmabuf-region --dmabuf
record dmabuf-region -g "10,20 30x40" --duration 0.5 "$TEST_DIR/dmabuf-region.mkv"
expect_ok dmabuf-region "-g with dmabufs offered"
expect_shm_buffers dmabuf-region '-g is cut out of the copy by the CPU'
start_fake dmabuf-x264 --dmabuf
record dmabuf-x264 --codec libx264 --duration 0.5 "$TEST_DIR/dmabuf-x264.mkv"
expect_ok dmabuf-x264 "--codec libx264 with dmabufs offered"
expect_shm_buffers dmabuf-x264 '--codec libx264 reads pixels \(no VA-API map\)'
# What a user reads at the default level: the start line fits 100 columns
# and names WAYLAND_DISPLAY once; a still is not announced as a recording;
# -g past the edge of the only output says so, with the output's size (it
# spans no outputs).
start_fake plain --frames 30
WAYLAND_DISPLAY=plain timeout 30 "$WL_RECORD" --duration 1 "$TEST_DIR/plain.mkv" \
	>/dev/null 2>"$TEST_DIR/plain.log"
start_line=$(grep -m1 '^wl-record: recording ' "$TEST_DIR/plain.log")
[ -n "$start_line" ] || { cat "$TEST_DIR/plain.log"; fail "no start line"; }
[ "${#start_line}" -le 100 ] || fail "the start line has ${#start_line} characters: $start_line"
[ "$(grep -o WAYLAND_DISPLAY <<<"$start_line" | wc -l)" = 1 ] ||
	fail "the start line does not name WAYLAND_DISPLAY once: $start_line"
start_fake plain-still
WAYLAND_DISPLAY=plain-still timeout 30 "$WL_RECORD" --screenshot "$TEST_DIR/plain.png" \
	>/dev/null 2>"$TEST_DIR/plain-still.log"
! grep -q '^wl-record: recording' "$TEST_DIR/plain-still.log" ||
	fail "--screenshot announces a recording: $(cat "$TEST_DIR/plain-still.log")"
grep -q '^wl-record: taking a still of ' "$TEST_DIR/plain-still.log" ||
	fail "--screenshot does not say it takes a still: $(cat "$TEST_DIR/plain-still.log")"
start_fake edge
WAYLAND_DISPLAY=edge timeout 30 "$WL_RECORD" -g "300,200 100x100" --screenshot \
	"$TEST_DIR/edge.png" >/dev/null 2>"$TEST_DIR/edge.log"
status=$?
[ "$status" = 2 ] || fail "-g past the edge exited $status, not 2"
! grep -q "spanning" "$TEST_DIR/edge.log" ||
	fail "-g past the edge of the only output is blamed on spanning: $(cat "$TEST_DIR/edge.log")"
grep -q "outside .*320x240" "$TEST_DIR/edge.log" ||
	fail "-g past the edge does not say it is outside the 320x240 output: $(cat "$TEST_DIR/edge.log")"

pass
