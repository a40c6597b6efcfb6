#!/bin/bash
# ext-image-copy-capture served by wl-record's own display: a hosted
# pattern client recorded by a second wl-record through the protocol
# (--capture ext-image-copy), frame by frame in increasing order over the
# time the client drew them, and stills of the hosted screen exactly the
# client's frames (the last one with the source chosen as usual: wl-record's
# display is now a desktop that can be copied). Both wl-records stop by SIGINT with exit 0 (the
# sanitizer build catches leaks on the way out). A client presenting
# LINEAR dmabufs 1:1 (frames that are its buffer, lent) is copied exactly
# too.
. "$TEST_LIB"
: "${PATTERN_CLIENT:?PATTERN_CLIENT must point at tests/screencopy/pattern-client}"
: "${DMABUF_PRESENTER:?DMABUF_PRESENTER must point at tests/dmabuf/dmabuf-presenter}"

SIZE=320x240
FRAMES=30
HOST=wl-record-host

start host "$WL_RECORD" -v --socket $HOST --size $SIZE --stats-fd 3 "$TEST_DIR/hosted.mkv" -- \
	"$PATTERN_CLIENT" --size $SIZE --frames $FRAMES --interval-ms 50 3>"$TEST_DIR/hosted.stats.json"
HOST_PID=$STARTED_PID
wait_until 20 "the client's first frame" log_has host "^ready $SIZE"
client_pid() {
	CLIENT_PID=$(child_named "$HOST_PID" pattern-client)
}
wait_until 10 "the pattern client's pid" client_pid

# A still of the hosted screen through the protocol: frame 0 exactly.
shot() { # NAME ARG...
	WAYLAND_DISPLAY=$HOST timeout 30 "$WL_RECORD" -v "${@:2}" --screenshot \
		"$TEST_DIR/$1.png" >"$TEST_DIR/$1.log" 2>&1 ||
		{ status=$?; cat "$TEST_DIR/$1.log"; fail "--screenshot $1 exited $status"; }
	grep -q "on WAYLAND_DISPLAY=$HOST via ext-image-copy-capture" "$TEST_DIR/$1.log" ||
		{ cat "$TEST_DIR/$1.log"; fail "$1: not copied through ext-image-copy-capture"; }
}
shot first --capture ext-image-copy
"$PNG_CHECK" "$TEST_DIR/first.png" --size $SIZE --pattern 0 ||
	fail "the still before the client moved is not its frame 0"

# A recording through the protocol while the client draws its frames.
start copy env WAYLAND_DISPLAY=$HOST "$WL_RECORD" -v --capture ext-image-copy \
	"$TEST_DIR/client.mkv"
COPY_PID=$STARTED_PID
wait_until 20 "the copy to start" log_has copy \
	"on WAYLAND_DISPLAY=$HOST via ext-image-copy-capture"
sleep 0.5
kill -USR1 "$CLIENT_PID"
wait_until 30 "the client's last frame" log_has host '^done'
sleep 0.5
kill -INT "$COPY_PID"
wait_exit "$COPY_PID" 30
[ "$EXIT_STATUS" -eq 0 ] || fail "the copying wl-record stopped by SIGINT exited $EXIT_STATUS"
ffprobe_check "$TEST_DIR/client.mkv"
# Every frame is a client frame later than the one before (a frame copied
# twice or out of order fails), spread over the ~1.5 s the client drew.
"$VIDEO_CHECK" "$TEST_DIR/client.mkv" --size $SIZE --pattern --end-repeat --min-frames 20 \
	--max-frames $FRAMES --min-duration-ms 1300 >"$TEST_DIR/check-client.log" 2>&1 ||
	{ cat "$TEST_DIR/check-client.log"; fail "the copied recording is not the client's frames"; }
log "$(tr '\n' ' ' <"$TEST_DIR/check-client.log")"

# A still now, the source chosen as usual: a wl-record display is a
# desktop that offers ext-image-copy-capture. Exactly the last frame.
shot last
"$PNG_CHECK" "$TEST_DIR/last.png" --size $SIZE --pattern $((FRAMES - 1)) ||
	fail "the still is not the client's last frame"

kill -INT "$HOST_PID"
wait_exit "$HOST_PID" 30
[ "$EXIT_STATUS" -eq 0 ] || fail "the hosting wl-record stopped by SIGINT exited $EXIT_STATUS"
# The host's own recording is unaffected by serving copies: every one of
# the client's frames, in the file or reported replaced (--stats).
"$VIDEO_CHECK" "$TEST_DIR/hosted.mkv" --size $SIZE --pattern --end-repeat --commits $FRAMES \
	--max-frames $FRAMES --stats "$TEST_DIR/hosted.stats.json" >"$TEST_DIR/check-hosted.log" 2>&1 ||
	{ cat "$TEST_DIR/check-hosted.log"; fail "the host's recording is not the client's frames"; }

# A dmabuf client: from its second commit on (the first one comes before
# the surface is presented), the screen's frames are its buffers themselves
# (a lease), read for the copy. Its last frame held on screen, copied
# exactly.
start dmabuf-host "$WL_RECORD" -v --socket $HOST-dmabuf --size $SIZE "$TEST_DIR/dmabuf-host.mkv" \
	-- "$DMABUF_PRESENTER" --version 4 --immed --format xrgb --size $SIZE --frames 3 \
	--interval-ms 50 --hold-ms 20000
DMABUF_HOST_PID=$STARTED_PID
wait_until 20 "the dmabuf client's frames" log_has dmabuf-host "^dmabuf-presenter: committed 3 frames"
HOST=$HOST-dmabuf shot dmabuf --capture ext-image-copy
"$PNG_CHECK" "$TEST_DIR/dmabuf.png" --size $SIZE --pattern 2 ||
	fail "the still of a dmabuf client is not its last frame"
kill -INT "$DMABUF_HOST_PID"
wait_exit "$DMABUF_HOST_PID" 30
[ "$EXIT_STATUS" -eq 0 ] || fail "the dmabuf host stopped by SIGINT exited $EXIT_STATUS"
pass
