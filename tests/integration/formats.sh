#!/bin/bash
# Every pixel format wl-record offers on wl_shm, presented by the presenter
# and recorded by the wl-record binary: a still must be the pattern pixel for
# pixel (nothing lost to the conversion, no channel swapped: its red block
# red, its blue block blue), and a video must hold the pattern (PSNR), with
# the mean colour of each block, decoded by ffmpeg, within a tolerance of
# its colour. (LINEAR dmabufs in these formats: tests/dmabuf/end-to-end.sh.)
. "$TEST_LIB"

FORMATS=(xrgb argb xbgr abgr xrgb2101010 argb2101010 xbgr2101010 abgr2101010)
STILL_SIZE=321x241 # odd: no format may rely on even sizes
VIDEO_W=320 VIDEO_H=240
TOLERANCE=40 # per channel, of 255: compression noise, far from a swap (255)

# tests/pattern.c: block i covers x from even(W/16 + i*(W/5)), even(W/10)
# wide, y from even(H/16), even(H/8) tall; red, green, blue, white. The
# checked area keeps 8 px from each edge (the edge ramp, 4:2:0 chroma).
even() { echo $(($1 & ~1)); }
BLOCK_W=$(even $((VIDEO_W / 10))) BLOCK_H=$(even $((VIDEO_H / 8))) BLOCK_Y=$(even $((VIDEO_H / 16)))
BLOCK_COLOURS=("255 0 0" "0 255 0" "0 0 255" "255 255 255")
block_x() { even $((VIDEO_W / 16 + $1 * (VIDEO_W / 5))); }

# block_mean FILE I: "R G B", the mean colour of block I in the first frame,
# decoded and averaged by ffmpeg (an area scale to one pixel).
block_mean() {
	local file=$1 x
	x=$(block_x "$2")
	ffmpeg -v error -i "$file" -frames:v 1 \
		-vf "crop=$((BLOCK_W - 16)):$((BLOCK_H - 16)):$((x + 8)):$((BLOCK_Y + 8)),scale=1:1:flags=area" \
		-f rawvideo -pix_fmt rgb24 - | od -An -tu1 | xargs
}

check_blocks() { # FILE NAME
	local file=$1 name=$2 i c
	for i in 0 1 2 3; do
		local got expected
		got=($(block_mean "$file" "$i"))
		expected=(${BLOCK_COLOURS[$i]})
		[ "${#got[@]}" -eq 3 ] || fail "$name: ffmpeg gave no mean colour for block $i"
		log "$name: block $i mean ${got[*]}, expected ${expected[*]}"
		for c in 0 1 2; do
			local diff=$((got[c] - expected[c]))
			[ "${diff#-}" -le "$TOLERANCE" ] ||
				fail "$name: block $i is ${got[*]}, expected ${expected[*]} (±$TOLERANCE)"
		done
	done
}

still_case() { # FORMAT
	local format=$1 name="still-$1" socket="wlr-formats-$1"
	local png="$TEST_DIR/$name.png"
	log "case $name: presenter --format $format $STILL_SIZE -> wl-record --screenshot"
	start "wl-record-$name" "$WL_RECORD" --screenshot --timeout 10 --size "$STILL_SIZE" \
		--socket "$socket" "$png"
	local server=$STARTED_PID
	wait_until 5 "wl-record to listen on $socket" socket_exists "$socket"
	WAYLAND_DISPLAY=$socket start "presenter-$name" "$PRESENTER" --mode surface \
		--format "$format" --size "$STILL_SIZE" --stride-pad 12 --frames 1 --hold-ms 8000
	local client=$STARTED_PID
	wait_exit "$server" 12
	[ "$EXIT_STATUS" -eq 0 ] || fail "$name: wl-record --screenshot exited $EXIT_STATUS"
	wait_exit "$client" 12
	[ "$EXIT_STATUS" -eq 0 ] || fail "$name: presenter exited $EXIT_STATUS"
	# Exact, and the blocks by name: red (x 20), green (84), blue (148).
	"$PNG_CHECK" "$png" --size "$STILL_SIZE" --pattern 0 \
		--pixel 30,20,ff0000 --pixel 94,20,00ff00 --pixel 158,20,0000ff ||
		fail "$name: the PNG is not pattern frame 0 exactly"
}

video_case() { # FORMAT
	local format=$1 name="video-$1" file="$TEST_DIR/video-$1.mkv"
	log "case $name: wl-record -- presenter --format $format ${VIDEO_W}x$VIDEO_H"
	start "wl-record-$name" "$WL_RECORD" --size "${VIDEO_W}x$VIDEO_H" --stats-fd 3 "$file" -- \
		"$PRESENTER" --mode surface --format "$format" --size "${VIDEO_W}x$VIDEO_H" --frames 8 \
		--interval-ms 60 --hold-ms 150 --times "$file.times" 3>"$file.stats.json"
	wait_exit "$STARTED_PID" 30
	[ "$EXIT_STATUS" -eq 0 ] || fail "$name: wl-record exited $EXIT_STATUS"
	# All 8 frames, each in its format: one that is not in the file must be
	# one wl-record reports replaced (--stats); times as record-presenter.sh.
	# 8, not fewer: a capture losing every 7th frame loses one here.
	"$VIDEO_CHECK" "$file" --size "${VIDEO_W}x$VIDEO_H" --pattern --end-repeat --min-psnr 30 \
		--times "$file.times" --pts-median-late-ms 8.3 --stats "$file.stats.json" ||
		fail "$name: the recording does not hold the pattern"
	check_blocks "$file" "$name"
}

require_commands ffmpeg od
for format in "${FORMATS[@]}"; do
	still_case "$format"
done
for format in "${FORMATS[@]}"; do
	video_case "$format"
done
pass
