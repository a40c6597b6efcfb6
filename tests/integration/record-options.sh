#!/bin/bash
# Recording options end to end with the presenter: the VA-API fallback with a
# --device that is no render node, a write that fails (ulimit -f), stills
# while recording (SIGUSR1 and --snap), and constant frame rate.
. "$TEST_LIB"
require_file_size_limit 64

# --hold-ms: the presenter stays connected after its last commit, so that a
# loaded machine cannot blank the output over the last picture before it is
# recorded (see record-presenter.sh).
presenter_args=(--size 320x240 --interval-ms 40 --hold-ms 150)

# 1. --device pointing at a non-device: one line saying why, then libx264.
log "case --device /dev/null"
start fallback "$WL_RECORD" --device /dev/null "$TEST_DIR/fallback.mkv" -- \
	"$PRESENTER" "${presenter_args[@]}" --frames 10
wait_exit "$STARTED_PID" 20
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record --device /dev/null exited $EXIT_STATUS"
grep -q "using libx264 (software).*/dev/null" "$TEST_DIR/fallback.log" ||
	fail "no line says why VA-API was not used: $(cat "$TEST_DIR/fallback.log")"
"$VIDEO_CHECK" "$TEST_DIR/fallback.mkv" --commits 10 --pattern --end-repeat --min-psnr 30 ||
	fail "the fallback recording does not hold the 10 frames"

# 2. The file may not grow past 64 KiB: wl-record stops capturing, says so in
# one line, exits 1, and what was written before still plays.
log "case ulimit -f 64"
# Only wl-record is limited: the presenter's own pool (a memfd) counts too.
(
	ulimit -f 64
	exec "$WL_RECORD" --crf 0 --socket wlr-limited "$TEST_DIR/limited.mkv"
) >"$TEST_DIR/limited.log" 2>&1 &
LIMITED=$!
STARTED_PIDS+=("$LIMITED")
wait_until 5 "wl-record to listen" socket_exists wlr-limited
WAYLAND_DISPLAY=wlr-limited start limited-presenter "$PRESENTER" "${presenter_args[@]}" --frames 200
wait_exit "$LIMITED" 30
[ "$EXIT_STATUS" -eq 1 ] || fail "wl-record under ulimit -f exited $EXIT_STATUS, expected 1"
[ "$(grep -c "File too large" "$TEST_DIR/limited.log")" -eq 1 ] ||
	fail "expected one 'File too large' line: $(cat "$TEST_DIR/limited.log")"
"$VIDEO_CHECK" "$TEST_DIR/limited.mkv" --min-frames 2 --pattern --min-psnr 30 ||
	fail "nothing playable before the write failure"

# 2b. stdout closed early (EPIPE): a clear line and status 1, not a death by
# SIGPIPE.
log "case stdout closed early"
set +o pipefail
"$WL_RECORD" - -- "$PRESENTER" "${presenter_args[@]}" --frames 40 2>"$TEST_DIR/epipe.log" |
	head -c 1000 >/dev/null
status=${PIPESTATUS[0]}
[ "$status" -eq 1 ] || fail "wl-record with a closed stdout exited $status, expected 1"
grep -q "Broken pipe" "$TEST_DIR/epipe.log" || fail "no line says the pipe broke: $(cat "$TEST_DIR/epipe.log")"

# 3. Stills while recording: SIGUSR1, then --snap through the pid file. Each
# writes a PNG beside the recording that equals one presented frame, and the
# recording goes on and ends complete.
log "case stills while recording"
start stills "$WL_RECORD" --pid-file "$TEST_DIR/wlr.pid" "$TEST_DIR/stills.mkv" -- \
	"$PRESENTER" "${presenter_args[@]}" --frames 60
RECORDER=$STARTED_PID
wait_until 10 "the pid file" test -s "$TEST_DIR/wlr.pid"
# A still while the presenter draws (one asked for before the first frame
# would be answered by it, which is another case).
wait_until 10 "the presenter drawing" log_has stills '^presenter: output mode'
# The pid file holds "PID START" then the output path; the pid comes first.
read -r recorder_pid _ < "$TEST_DIR/wlr.pid"
kill -USR1 "$recorder_pid"
wait_until 10 "the first still" sh -c 'ls "$0"/stills-*.png >/dev/null 2>&1' "$TEST_DIR"
# --snap waits for a still other than the one the pid file names: the
# first must be named there first, or --snap could take it for its own.
wait_until 10 "the pid file to name the first still" \
	sh -c 'sed -n 3p "$0" | grep -q "/stills-.*\.png$"' "$TEST_DIR/wlr.pid"
"$WL_RECORD" --snap --pid-file "$TEST_DIR/wlr.pid" || fail "--snap failed"
wait_until 10 "the second still" sh -c '[ "$(ls "$0"/stills-*.png | wc -l)" -ge 2 ]' "$TEST_DIR"
wait_exit "$RECORDER" 20
[ "$EXIT_STATUS" -eq 0 ] || fail "the recording with stills exited $EXIT_STATUS"
[ ! -e "$TEST_DIR/wlr.pid" ] || fail "the pid file was left behind"
for png in "$TEST_DIR"/stills-*.png; do
	"$PNG_CHECK" "$png" --size 320x240 --any-pattern 60 || fail "$png is not a presented frame"
done
# Every commit recorded, or replaced by a newer one when a loaded machine
# made wl-record read two at once (counted; the still's work is not a
# reason): exact counts would fail on a busy machine for no fault.
"$VIDEO_CHECK" "$TEST_DIR/stills.mkv" --commits 60 --pattern --end-repeat --min-psnr 30 ||
	fail "the recording with stills lost frames"

# 4. --cfr at 10 fps: frames at exact 100 ms steps whatever the commit times.
log "case --cfr --fps 10"
start cfr "$WL_RECORD" --cfr --fps 10 "$TEST_DIR/cfr.mkv" -- \
	"$PRESENTER" --size 320x240 --interval-ms 250 --frames 8
wait_exit "$STARTED_PID" 20
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record --cfr exited $EXIT_STATUS"
"$VIDEO_CHECK" "$TEST_DIR/cfr.mkv" --cfr-ms 100 --min-frames 18 ||
	fail "--cfr did not give a constant 10 fps"
ffprobe_check "$TEST_DIR/cfr.mkv"

pass
