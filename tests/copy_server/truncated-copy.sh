#!/bin/bash
# Issue 30 §3.1: a hosted client presenting LINEAR dmabufs (memfds) asks
# the copy server for a copy into a wl_shm buffer whose memfd it truncated.
# The copy reads the dmabuf, then writes into the shrunk pool: the write's
# SIGBUS must be caught (the client gets wl_shm.invalid_fd on the buffer),
# later copies still served, and the recording go on: every frame the
# client committed is in the file, which ends normally (exit 0) when the
# client is done. Before the fix, the dmabuf read ended the write's guard
# and wl-record died of SIGBUS (tests/mutations/copy-write-unguarded).
. "$TEST_LIB"
: "${TRUNCATING_COPIER:?TRUNCATING_COPIER must point at tests/copy_server/truncating-copier}"

SIZE=320x240
FRAMES=16
start host "$WL_RECORD" -v --size $SIZE --stats-fd 3 "$TEST_DIR/out.mkv" -- \
	"$TRUNCATING_COPIER" --size $SIZE --frames $FRAMES --bad-copy-at 6 --interval-ms 50 \
	--hold-ms 150 --times "$TEST_DIR/out.times" 3>"$TEST_DIR/out.stats.json"
HOST_PID=$STARTED_PID
wait_exit "$HOST_PID" 60
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record exited $EXIT_STATUS (a signal: $((EXIT_STATUS > 128)))"
for line in "presenting LINEAR dmabufs in a" "a good copy holds frame" \
	"the copy into a truncated pool: wl_shm.invalid_fd on the wl_buffer" \
	"a good copy after it holds frame" "committed $FRAMES frames" "done"; do
	log_has host "^truncating-copier: $line" || fail "the client did not say: $line"
done
log_has host "shm pool shrank under a buffer \(SIGBUS\)" ||
	fail "wl-record did not log the fault it caught"
log "$(grep '^truncating-copier:' "$TEST_DIR/host.log" | tr '\n' ' ')"
ffprobe_check "$TEST_DIR/out.mkv"
"$VIDEO_CHECK" "$TEST_DIR/out.mkv" --size $SIZE --pattern --end-repeat --commits $FRAMES \
	--times "$TEST_DIR/out.times" --pts-median-late-ms 8.3 --stats "$TEST_DIR/out.stats.json" \
	>"$TEST_DIR/check.log" 2>&1 ||
	{ cat "$TEST_DIR/check.log"; fail "the recording is not the client's frames"; }
log "$(tr '\n' ' ' <"$TEST_DIR/check.log")"
pass
