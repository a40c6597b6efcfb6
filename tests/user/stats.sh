#!/bin/bash
# --stats-fd: the one-line JSON summary that scripts read instead of the log.
# Its figures are checked against the files themselves (ffprobe decodes the
# recording: frames_encoded is the number of frames in it, width and height
# its size, bytes its size on disk), for a recording, a still and a bad
# command line. And the logging levels: -q leaves stderr empty, even with
# libx265 (whose banner bypasses FFmpeg's logging), and -v names file:line.
. "$TEST_LIB"

command -v python3 >/dev/null || skip "python3 is needed to parse the JSON"
command -v ffprobe >/dev/null || skip "ffprobe is needed to count the frames"

# check_json FILE PYTHON_EXPRESSION...: each expression, with `s` the parsed
# summary, must be true.
check_json() {
	local file=$1
	shift
	python3 - "$file" "$@" <<'EOF' || fail "summary $file: see above"
import json, sys
text = open(sys.argv[1]).read()
lines = text.splitlines()
if len(lines) != 1 or not text.endswith("\n"):
    sys.exit(f"expected exactly one line, got {text!r}")
s = json.loads(lines[0])
bad = [e for e in sys.argv[2:] if not eval(e, {"s": s})]
for e in bad:
    print(f"false: {e}  (summary: {lines[0]})")
sys.exit(1 if bad else 0)
EOF
}

# probe FILE ENTRY: one value of the video stream ("nb_read_frames", "width"...).
probe() {
	ffprobe -v error -count_frames -select_streams v:0 -show_entries "stream=$2" \
		-of default=noprint_wrappers=1:nokey=1 "$1"
}

KEYS="kind path status reason exit_status command_status encoder width height frames_submitted
frames_dropped frames_encoded frames_replaced frames_unreadable bytes duration_s latency_p50_ms latency_p99_ms write_ms dmabuf_frames
dmabuf_frames_mapped hop_dmabuf_import hop_vaapi_map hop_scale_vaapi start_monotonic_ns"
PY_KEYS="all(k in s for k in '$(echo $KEYS)'.split())"

# A recording of 45 frames of an odd size (161x121: the stream is 160x120).
# On a loaded machine the queue may be full: a refused frame is offered
# again at the next period (frames_submitted counts offers), so only the
# frames encoded are bounded by the 45 commits. The last picture may be
# encoded once more at the stop (when it is older than two periods by
# then): one frame more than offered and kept. Every commit is accounted
# for: kept by the encoder, or replaced by a newer one first (10 ms apart,
# two often fall in one 60 fps period); a commit lost on the way is in
# neither count.
video=$TEST_DIR/video.mkv
monotonic_ns() {
	python3 -c 'import time; print(time.monotonic_ns())'
}
before_ns=$(monotonic_ns)
timeout 60 "$WL_RECORD" --stats-fd 3 --size 161x121 "$video" -- \
	"$PRESENTER" --size 161x121 --frames 45 --interval-ms 10 \
	3>"$TEST_DIR/video.json" >"$TEST_DIR/video.out" 2>"$TEST_DIR/video.log"
status=$?
after_ns=$(monotonic_ns)
[ "$status" = 0 ] || fail "the recording exited $status"
frames=$(probe "$video" nb_read_frames)
width=$(probe "$video" width)
height=$(probe "$video" height)
bytes=$(stat -c %s "$video")
log "ffprobe: $frames frames, ${width}x$height, $bytes bytes"
[ "$frames" -gt 0 ] || fail "the recording has no frames"
check_json "$TEST_DIR/video.json" "$PY_KEYS" \
	"s['kind'] == 'video'" "s['path'] == '$video'" "s['status'] == 'ok'" \
	"s['exit_status'] == 0" "s['command_status'] == 0" \
	"s['reason'] == 'the command exited'" "s['encoder'] == 'libx264'" \
	"s['frames_encoded'] == $frames" "(s['width'], s['height']) == ($width, $height) == (160, 120)" \
	"s['bytes'] == $bytes" \
	"0 <= s['frames_encoded'] - (s['frames_submitted'] - s['frames_dropped']) <= 1" \
	"s['frames_encoded'] <= 45 + 1" \
	"s['frames_submitted'] - s['frames_dropped'] + s['frames_replaced'] == 45" \
	"s['frames_unreadable'] == 0" \
	"0 < s['duration_s'] < 60" \
	"0 < s['latency_p50_ms'] <= s['latency_p99_ms'] < 10000" \
	"s['dmabuf_frames_mapped'] == 0 and s['hop_vaapi_map'] is False" "s['write_ms'] is None" \
	"$before_ns < s['start_monotonic_ns'] < $after_ns"

# --cfr: the latency is not measured (null), the frames are the file's.
timeout 60 "$WL_RECORD" --stats-fd 3 --cfr --fps 30 --duration 1 "$TEST_DIR/cfr.mkv" -- \
	"$PRESENTER" --size 160x120 --frames 100000 --interval-ms 20 \
	3>"$TEST_DIR/cfr.json" >"$TEST_DIR/cfr.out" 2>"$TEST_DIR/cfr.log"
status=$?
[ "$status" = 0 ] || fail "the --cfr recording exited $status"
check_json "$TEST_DIR/cfr.json" "$PY_KEYS" "s['status'] == 'ok'" \
	"s['reason'] == '--duration reached'" "s['command_status'] is None" \
	"s['latency_p50_ms'] is None and s['latency_p99_ms'] is None" \
	"s['frames_encoded'] == $(probe "$TEST_DIR/cfr.mkv" nb_read_frames)"

# Stopped by a signal: the reason names it (the words are built in a
# buffer of the signal handler's; the summary must hold its own copy).
"$WL_RECORD" --stats-fd 3 "$TEST_DIR/signal.mkv" -- \
	"$PRESENTER" --size 160x120 --frames 100000 --interval-ms 20 \
	3>"$TEST_DIR/signal.json" >/dev/null 2>"$TEST_DIR/signal.log" &
recorder=$!
for _ in $(seq 100); do
	[ -s "$TEST_DIR/signal.mkv" ] && grep -q 'recording' "$TEST_DIR/signal.log" && break
	sleep 0.1
done
sleep 0.5
kill -INT "$recorder"
wait "$recorder"
status=$?
[ "$status" = 0 ] || fail "the recording stopped by SIGINT exited $status"
check_json "$TEST_DIR/signal.json" "$PY_KEYS" "s['status'] == 'ok'" \
	"s['reason'] == 'received Interrupt'" "s['frames_encoded'] > 0"

# A still: its size from the PNG, no frame counts to speak of but one.
still=$TEST_DIR/still.png
timeout 60 "$WL_RECORD" --stats-fd 4 "$still" -- \
	"$PRESENTER" --size 200x100 --frames 100000 --interval-ms 20 \
	4>"$TEST_DIR/still.json" >"$TEST_DIR/still.out" 2>"$TEST_DIR/still.log"
status=$?
[ "$status" = 0 ] || fail "the still exited $status"
check_json "$TEST_DIR/still.json" "$PY_KEYS" "s['kind'] == 'still'" "s['status'] == 'ok'" \
	"s['encoder'] == 'png'" "(s['width'], s['height']) == ($(probe "$still" width), $(probe "$still" height)) == (200, 100)" \
	"s['bytes'] == $(stat -c %s "$still")" "s['frames_encoded'] == 1" "s['latency_p50_ms'] is None" "s['write_ms'] > 0" \
	"s['frames_replaced'] == 0" \
	"s['start_monotonic_ns'] is None"

# Failures: a settings error still writes its line (status usage, exit 2);
# an fd that is not open is a bad command line, before anything runs.
timeout 20 "$WL_RECORD" --stats-fd 3 --codec nosuchcodec "$TEST_DIR/bad.mkv" \
	3>"$TEST_DIR/bad.json" >/dev/null 2>"$TEST_DIR/bad.log"
status=$?
[ "$status" = 2 ] || fail "--codec nosuchcodec exited $status, not 2"
check_json "$TEST_DIR/bad.json" "$PY_KEYS" "s['status'] == 'usage'" "s['exit_status'] == 2" \
	"s['frames_encoded'] is None and s['encoder'] is None"
timeout 20 "$WL_RECORD" --stats-fd 9 "$TEST_DIR/never.mkv" 9>&- >/dev/null 2>"$TEST_DIR/closed.log"
status=$?
[ "$status" = 2 ] || fail "--stats-fd on a closed fd exited $status, not 2"
[ "$(wc -l <"$TEST_DIR/closed.log")" = 1 ] || fail "--stats-fd on a closed fd: $(cat "$TEST_DIR/closed.log")"

# -q: nothing at all on stderr for a good recording (the presenter's own
# lines go elsewhere), with libx264 and with libx265 when there is one.
codecs=libx264
"$WL_RECORD" --list-encoders | grep -q '^libx265' && codecs="$codecs libx265"
# libx265 3.5 leaks in its own FrameFilter::init: under ASan that one
# library's leaks are suppressed, ours are still reported.
printf 'leak:libx265.so\n' >"$TEST_DIR/lsan.supp"
for codec in $codecs; do
	LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$TEST_DIR/lsan.supp:print_suppressions=0" \
	timeout 60 "$WL_RECORD" -q --codec "$codec" "$TEST_DIR/quiet-$codec.mkv" -- \
		sh -c 'exec "$@" >/dev/null 2>&1' sh "$PRESENTER" --size 160x120 --frames 10 \
		>/dev/null 2>"$TEST_DIR/quiet-$codec.log"
	status=$?
	[ "$status" = 0 ] || fail "-q --codec $codec exited $status"
	[ ! -s "$TEST_DIR/quiet-$codec.log" ] ||
		fail "-q --codec $codec printed on stderr: $(head -3 "$TEST_DIR/quiet-$codec.log")"
done
log "-q was quiet with: $codecs"

# -v: wl-record's own lines name their file:line; FFmpeg's come through the
# same logger ("wl-record: ffmpeg: libx264: ...").
timeout 60 "$WL_RECORD" -v "$TEST_DIR/verbose.mkv" -- \
	sh -c 'exec "$@" >/dev/null 2>&1' sh "$PRESENTER" --size 160x120 --frames 10 \
	>/dev/null 2>"$TEST_DIR/verbose.log"
status=$?
[ "$status" = 0 ] || fail "-v exited $status"
grep -Eq '^wl-record: record: src/pipeline/recording\.c:[0-9]+: wrote ' "$TEST_DIR/verbose.log" ||
	fail "-v: the 'wrote' line does not carry src/pipeline/recording.c:LINE"
grep -q '^wl-record: ffmpeg: libx264: ' "$TEST_DIR/verbose.log" ||
	fail "-v: no libx264 line through the logger"
untagged=$(grep '^wl-record: ' "$TEST_DIR/verbose.log" | grep -v '^wl-record: ffmpeg: ' |
	grep -Ev '^wl-record: ([a-z_-]+: )?[a-z_/]+\.c:[0-9]+: ')
[ -z "$untagged" ] || fail "-v lines without file:line: $untagged"
grep -v '^wl-record: ' "$TEST_DIR/verbose.log" | grep -q . &&
	fail "-v: lines bypassed the logger: $(grep -v '^wl-record: ' "$TEST_DIR/verbose.log" | head -3)"

pass
