#!/bin/bash
# A still client (one commit, then nothing) recorded without --cfr: the
# video must last as long as the recording on every stop path, not end at
# its first frame (issue 14.2): the last picture is repeated one frame
# period before the stop. And --frames N must end with such a client too,
# with N frames in the file. One client moves first (8 pattern frames, then
# still): each of its commits is in the file or reported replaced.
. "$TEST_LIB"
require_commands ffprobe ffmpeg

COLOUR=2080c0
SIZE=320x240
# 60 fps (the default): the last frame may stand at most two periods
# before the end (the repeat stands one period before it), plus MKV's
# millisecond rounding.
MAX_GAP_S=0.040
STILL=("$PRESENTER" --size "$SIZE" --colour-steps "$COLOUR@0")

frame_times() { # FILE: the pts of every video frame, one a line
	ffprobe -v error -select_streams v:0 -show_entries frame=pts_time -of csv=p=0 "$1" |
		awk -F, '$1 != "" { print $1 }'
}

# check_ends_late FILE MIN_DURATION_S: the last frame stands within
# MAX_GAP_S of the file's end, the file lasts at least MIN_DURATION_S, and a
# picture seeked to 2 s in is the client's colour.
check_ends_late() { # FILE MIN_DURATION [PNG_CHECK_OPTION...]: default, the client's colour
	local file=$1 min_duration=$2 duration last
	shift 2
	local picture=("$@")
	[ ${#picture[@]} -gt 0 ] || picture=(--pixel "10,10,$COLOUR,12" --pixel "160,120,$COLOUR,12")
	ffprobe_check "$file"
	duration=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$file")
	last=$(frame_times "$file" | tail -n 1)
	log "$(basename "$file"): $(frame_times "$file" | wc -l) frames, last at $last s, duration $duration s"
	awk -v d="$duration" -v m="$min_duration" 'BEGIN { exit !(d >= m) }' ||
		fail "$file lasts $duration s, expected at least $min_duration s"
	awk -v d="$duration" -v l="$last" -v g="$MAX_GAP_S" 'BEGIN { exit !(l >= d - g) }' ||
		fail "$file: the last frame is at $last s, the video lasts $duration s"
	local png=${file%.*}-2s.png
	ffmpeg -v error -y -ss 2 -i "$file" -frames:v 1 "$png" >"$TEST_DIR/ffmpeg.log" 2>&1 ||
		{ cat "$TEST_DIR/ffmpeg.log"; fail "ffmpeg -ss 2 cannot read $file"; }
	[ -s "$png" ] || fail "ffmpeg -ss 2 finds no picture in $file"
	"$PNG_CHECK" "$png" --size "$SIZE" "${picture[@]}" ||
		fail "the picture 2 s into $file is not the client's"
}

# 1. Stopped by SIGINT about 3 s after the client's only commit.
log "case SIGINT"
start wl-record-sigint "$WL_RECORD" --size "$SIZE" "$TEST_DIR/sigint.mkv" -- \
	"${STILL[@]}" --hold-ms 60000
SERVER=$STARTED_PID
wait_until 10 "the client's commit" log_has wl-record-sigint "committed 1 frames"
sleep 3
kill -INT "$SERVER"
wait_exit "$SERVER" 15
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record exited $EXIT_STATUS after SIGINT"
check_ends_late "$TEST_DIR/sigint.mkv" 2.9

# 2. Stopped by --duration 3 (counted from wl-record's start; the first
# frame comes later, 0.1-0.3 s on a loaded machine).
log "case --duration 3"
start wl-record-duration "$WL_RECORD" --duration 3 --size "$SIZE" "$TEST_DIR/duration.mkv" -- \
	"${STILL[@]}" --hold-ms 60000
wait_exit "$STARTED_PID" 15
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record --duration 3 exited $EXIT_STATUS"
check_ends_late "$TEST_DIR/duration.mkv" 2.5

# 3. Stopped by the app ending 3 s after its commit (MP4 this time).
log "case the command exits (8 frames, then still)"
start wl-record-exit "$WL_RECORD" --size "$SIZE" --stats-fd 3 "$TEST_DIR/exit.mp4" -- \
	"$PRESENTER" --size "$SIZE" --frames 8 --interval-ms 20 --hold-ms 3000 \
	3>"$TEST_DIR/exit.stats.json"
wait_exit "$STARTED_PID" 15
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record -- presenter exited $EXIT_STATUS"
# The last frame, as H.264 keeps it: its saturated box smears by up to 71
# levels at its edge (measured); frame 6's box is elsewhere, 200 off.
check_ends_late "$TEST_DIR/exit.mp4" 2.9 --pattern 7 --max-diff 128
"$VIDEO_CHECK" "$TEST_DIR/exit.mp4" --size "$SIZE" --pattern --end-repeat --commits 8 \
	--stats "$TEST_DIR/exit.stats.json" || fail "exit.mp4 does not hold the 8 frames"


# 4. --frames 10 with a client that commits once: ends (10 periods of
# 60 fps are 0.17 s; the bound is for a loaded machine) with 10 frames,
# one period apart.
log "case --frames 10"
start wl-record-frames "$WL_RECORD" --frames 10 --size "$SIZE" "$TEST_DIR/frames.mkv" -- \
	"${STILL[@]}" --hold-ms 60000
wait_exit "$STARTED_PID" 10
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record --frames 10 exited $EXIT_STATUS"
ffprobe_check "$TEST_DIR/frames.mkv"
"$VIDEO_CHECK" "$TEST_DIR/frames.mkv" --frames 10 --size "$SIZE" --pixel "160,120,$COLOUR,12" ||
	fail "--frames 10 did not give 10 frames of the client's picture"
last=$(frame_times "$TEST_DIR/frames.mkv" | tail -n 1)
# Repeats stand at the starts of the periods after the first frame's, so
# the 10th is 9 periods after the start of the first frame's period: 133 to
# 150 ms after the first frame (MKV rounds to 1 ms), however late the pacer
# ran. Eight periods or fewer would be a frame too many.
awk -v l="$last" 'BEGIN { exit !(l >= 0.132 && l < 1.0) }' ||
	fail "the 10th frame is at $last s, expected 0.133-0.150 s"
pass
