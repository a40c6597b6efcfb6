#!/bin/bash
# The screencopy client against tests/screencopy/fake-screencopy, for what
# sway 1.7 never sends: XBGR/ABGR copies (converted), y-inverted copies
# (flipped), protocol v1 (plain copies, no damage: unchanged copies passed
# over) and v2 (no buffer_done), a failed copy and a removed output (the
# file is finished, exit 1, a clear message), and v3's linux_dmabuf offer
# without a render node (shm, and -v says why). Checked by decoding: the PNG
# is exactly pattern frame 0 (also when the desktop keeps changing: a still
# of it is not delayed until it settles), the video the fake's frames in
# order.
. "$TEST_LIB"
: "${FAKE_SCREENCOPY:?FAKE_SCREENCOPY must point at tests/screencopy/fake-screencopy}"

SIZE=320x240

FAKE=$FAKE_SCREENCOPY
# shellcheck source=tests/screencopy/fake-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/fake-lib.sh"

# Stills: exactly the picture, whatever the format, version and flip.
n=0
for variant in "--version 3 --format xbgr --y-invert" "--version 2 --format abgr" \
	"--version 1 --format argb" "--version 3 --format xrgb --y-invert"; do
	n=$((n + 1))
	# shellcheck disable=SC2086 # options, split on purpose
	start_fake "still$n" $variant
	WAYLAND_DISPLAY=still$n timeout 20 "$WL_RECORD" --screenshot "$TEST_DIR/still$n.png" \
		>"$TEST_DIR/still$n.log" 2>&1 ||
		{ status=$?; cat "$TEST_DIR/still$n.log"; fail "$variant: --screenshot exited $status"; }
	"$PNG_CHECK" "$TEST_DIR/still$n.png" --size $SIZE --pattern 0 >/dev/null ||
		fail "$variant: the PNG is not the compositor's picture"
	log "$variant: the PNG is exact"
done

# A still of a changing desktop is the picture of the moment asked for
# (the first copy), as grim takes it: not one after the screen settles.
n=$((n + 1))
start_fake "moving$n" --frames 30
WAYLAND_DISPLAY=moving$n timeout 20 "$WL_RECORD" --screenshot "$TEST_DIR/moving$n.png" \
	>"$TEST_DIR/moving$n.log" 2>&1 ||
	{ status=$?; cat "$TEST_DIR/moving$n.log"; fail "a changing desktop: --screenshot exited $status"; }
"$PNG_CHECK" "$TEST_DIR/moving$n.png" --size $SIZE --pattern 0 ||
	fail "a still of a changing desktop is not its picture when asked (pattern frame 0)"

# Videos: 30 frames, then a still screen; v1 keeps answering with the same
# picture, which must not be recorded again.
for variant in "--version 3 --format xbgr --y-invert" "--version 1 --format xrgb"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	start_fake "video$n" --frames 30 $variant
	WAYLAND_DISPLAY=video$n timeout 30 "$WL_RECORD" --duration 2 --stats-fd 3 \
		"$TEST_DIR/video$n.mkv" >"$TEST_DIR/video$n.log" 2>&1 3>"$TEST_DIR/video$n.stats.json" ||
		{ status=$?; cat "$TEST_DIR/video$n.log"; fail "$variant: the recording exited $status"; }
	ffprobe_check "$TEST_DIR/video$n.mkv"
	# Each of the 30 pictures is in the file or reported replaced.
	"$VIDEO_CHECK" "$TEST_DIR/video$n.mkv" --size $SIZE --pattern --end-repeat --commits 30 \
		--max-frames 30 --stats "$TEST_DIR/video$n.stats.json" >"$TEST_DIR/check$n.log" 2>&1 ||
		{ cat "$TEST_DIR/check$n.log"; fail "$variant: the video is not the frames sent"; }
	log "$variant: $(grep -c . "$TEST_DIR/check$n.log") checks passed"
done

# The cursor: painted in unless --no-cursor (sway headless has no pointer
# to see, so the request is checked: every copy asks the same).
for cursor in 1 0; do
	n=$((n + 1))
	start_fake "cursor$n"
	args=()
	[ "$cursor" = 0 ] && args=(--no-cursor)
	WAYLAND_DISPLAY=cursor$n timeout 20 "$WL_RECORD" "${args[@]}" --screenshot \
		"$TEST_DIR/cursor$n.png" >"$TEST_DIR/cursor$n.log" 2>&1 ||
		{ status=$?; cat "$TEST_DIR/cursor$n.log"; fail "${args[*]}: --screenshot exited $status"; }
	grep -q "^capture overlay_cursor $cursor$" "$TEST_DIR/fake-cursor$n.log" &&
		! grep "^capture" "$TEST_DIR/fake-cursor$n.log" | grep -v -q "overlay_cursor $cursor$" ||
		{ cat "$TEST_DIR/fake-cursor$n.log"; fail "${args[*]:-no option}: not overlay_cursor $cursor"; }
done
# A region: output-relative logical coordinates (the fake's output is at
# 0,0, scale 1), the cursor left out with it too.
n=$((n + 1))
start_fake "region$n"
WAYLAND_DISPLAY=region$n timeout 20 "$WL_RECORD" -g "10,20 30x40" --no-cursor --screenshot \
	"$TEST_DIR/region$n.png" >"$TEST_DIR/region$n.log" 2>&1 ||
	{ status=$?; cat "$TEST_DIR/region$n.log"; fail "-g: --screenshot exited $status"; }
grep -q "^capture overlay_cursor 0 region 10,20 30x40$" "$TEST_DIR/fake-region$n.log" ||
	{ cat "$TEST_DIR/fake-region$n.log"; fail "-g 10,20 30x40 was not asked as such"; }

# The compositor ends the capture: the file so far is kept, exit 1, and why.
check_ended() { # NAME MESSAGE FAKE-ARGS...
	local name=$1 message=$2
	shift 2
	start_fake "$name" --frames 100 "$@"
	WAYLAND_DISPLAY=$name timeout 30 "$WL_RECORD" --stats-fd 3 "$TEST_DIR/$name.mkv" \
		>"$TEST_DIR/$name.log" 2>&1 3>"$TEST_DIR/$name.stats.json"
	local status=$?
	[ "$status" -eq 1 ] || { cat "$TEST_DIR/$name.log"; fail "$name: exit $status, expected 1"; }
	grep -q -F "$message" "$TEST_DIR/$name.log" ||
		{ cat "$TEST_DIR/$name.log"; fail "$name: no '$message'"; }
	ffprobe_check "$TEST_DIR/$name.mkv"
	"$VIDEO_CHECK" "$TEST_DIR/$name.mkv" --size $SIZE --pattern --end-repeat --min-frames 5 --max-frames 10 \
		--stats "$TEST_DIR/$name.stats.json" >/dev/null ||
		fail "$name: the frames before the end are not in the file"
}
# --capture ext-image-copy on a display offering wlr-screencopy only: one
# line naming what there is, no file.
start_fake wlr-only
WAYLAND_DISPLAY=wlr-only timeout 20 "$WL_RECORD" --capture ext-image-copy \
	"$TEST_DIR/wlr-only.mkv" >"$TEST_DIR/wlr-only.log" 2>&1
status=$?
[ "$status" -eq 1 ] && [ ! -e "$TEST_DIR/wlr-only.mkv" ] &&
	grep -q -F -- "--capture ext-image-copy: WAYLAND_DISPLAY=wlr-only offers wlr-screencopy only" \
		"$TEST_DIR/wlr-only.log" ||
	{ cat "$TEST_DIR/wlr-only.log"; fail "--capture ext-image-copy without it: exit $status"; }
check_ended failed "the compositor could not copy the output (screencopy failed)" --fail-at 10

# v3's linux_dmabuf offered: without a render node (no GPU here) the copies
# go into shm, -v says why once, and the video is the frames sent.
n=$((n + 1))
start_fake "dmabuf$n" --frames 30 --dmabuf
WAYLAND_DISPLAY=dmabuf$n timeout 30 "$WL_RECORD" -v --duration 2 --stats-fd 3 "$TEST_DIR/dmabuf$n.mkv" \
	>"$TEST_DIR/dmabuf$n.log" 2>&1 3>"$TEST_DIR/dmabuf$n.stats.json" ||
	{ status=$?; cat "$TEST_DIR/dmabuf$n.log"; fail "dmabuf offered: the recording exited $status"; }
log_has "dmabuf$n" 'the compositor offers dmabuf format 0x34325258 320x240$' ||
	{ cat "$TEST_DIR/dmabuf$n.log"; fail "dmabuf offered: linux_dmabuf was not read"; }
expect_shm_buffers "dmabuf$n"
ffprobe_check "$TEST_DIR/dmabuf$n.mkv"
"$VIDEO_CHECK" "$TEST_DIR/dmabuf$n.mkv" --size $SIZE --pattern --end-repeat --commits 30 \
	--max-frames 30 --stats "$TEST_DIR/dmabuf$n.stats.json" >"$TEST_DIR/check-dmabuf$n.log" 2>&1 ||
	{ cat "$TEST_DIR/check-dmabuf$n.log"; fail "dmabuf offered: the video is not the frames sent"; }
# v2 has no linux_dmabuf: said so.
n=$((n + 1))
start_fake "v2-$n" --version 2 --dmabuf
WAYLAND_DISPLAY=v2-$n timeout 20 "$WL_RECORD" -v --duration 0.5 "$TEST_DIR/v2-$n.mkv" \
	>"$TEST_DIR/v2-$n.log" 2>&1 ||
	{ status=$?; cat "$TEST_DIR/v2-$n.log"; fail "v2: the recording exited $status"; }
expect_shm_buffers "v2-$n" 'the compositor offers no dmabuf XRGB8888/ARGB8888 copy'
check_ended removed "the output was removed" --remove-output-at 10
pass
