#!/bin/bash
# wl-record against fake-portal.c (a stand-in for xdg-desktop-portal) and
# the PipeWire producer of tests/pipewire/ (known frames), for what the real
# stack cannot show:
#   closed   the session closed from the portal's side (the user stopped
#            sharing from the desktop's indicator; xdpw 0.7 never does
#            this): one line, status 1, the file finished and its frames
#            the producer's.
#   options  what wl-record asks for: monitor and window, the cursor drawn
#            in (embedded) or, with --no-cursor, hidden; persist_mode 2;
#            the stored token offered on the next run and replaced by the
#            new one each time (single use); the session closed on SIGINT.
#   bad-fd-index  OpenPipeWireRemote's handle names no descriptor it sent
#            (-1, one past the end, INT32_MAX, INT32_MIN): one clear line,
#            status 1, no crash (no sanitizer report), no file.
#   forged-response  another process on the bus sends a Response
#            ("cancelled") to wl-record on its Start request before the
#            portal's own (2 s late): ignored, the recording follows the
#            portal's answer.
. "$TEST_LIB"
. "$PIPEWIRE_LIB"
: "${FAKE_PORTAL:?FAKE_PORTAL must point at tests/portal/fake-portal}"
MODE=${1:?usage: fake.sh MODE}
CHECK=$PIPEWIRE_CHECK
export XDG_STATE_HOME="$TEST_DIR/state"
TOKEN="$XDG_STATE_HOME/wl-record/portal-token"

start_pipewire
start producer "$PRODUCER" wlr-test-video
PRODUCER_PID=$STARTED_PID
wait_until 10 "the producer's node" node_exists wlr-test-video
NODE=$(node_property wlr-test-video id)
[ -n "$NODE" ] || fail "no id for the producer's node"
PORTAL_ARGS=()
[ "$MODE" != bad-fd-index ] || PORTAL_ARGS=(bad-fd-index)
[ "$MODE" != forged-response ] || PORTAL_ARGS=(slow)
start fake-portal "$FAKE_PORTAL" "$NODE" "${PORTAL_ARGS[@]}"
PORTAL_PID=$STARTED_PID
wait_until 10 "the fake portal" log_has fake-portal '^ready'

# record_until_int NAME ARG...: records, stops with SIGINT after some frames.
record_until_int() {
	local name=$1 frames
	shift
	start "$name" "$WL_RECORD" -v --capture portal "$@" "$TEST_DIR/$name.mkv"
	local pid=$STARTED_PID
	wait_until 15 "the stream" log_has "$name" "PipeWire stream: 320x240"
	frames=$(grep -c '^frame ' "$TEST_DIR/producer.log")
	wait_until 15 "more frames" producer_frames $((frames + 12))
	kill -INT "$pid"
	wait_exit "$pid" 20
	[ "$EXIT_STATUS" -eq 0 ] || fail "$name: exited $EXIT_STATUS"
}

stream_or_exit() {
	log_has record "PipeWire stream: 320x240" || ! is_running "$RECORD_PID"
}

case $MODE in
closed)
	start record "$WL_RECORD" -v --capture portal "$TEST_DIR/out.mkv"
	RECORD_PID=$STARTED_PID
	wait_until 15 "the stream" log_has record "PipeWire stream: 320x240"
	wait_until 15 "the producer's frames" producer_frames 12
	kill -USR1 "$PORTAL_PID"
	wait_exit "$RECORD_PID" 15
	[ "$EXIT_STATUS" -eq 1 ] || fail "exited $EXIT_STATUS after the portal closed the session"
	[ "$(grep -c "the screen cast was stopped from the desktop (the portal closed the session): the recording ends here" "$TEST_DIR/record.log")" -eq 1 ] ||
		{ cat "$TEST_DIR/record.log"; fail "not one line saying the portal closed the session"; }
	# Closed by the portal: wl-record does not close it again.
	! log_has fake-portal '^Close ' || fail "a session the portal closed was closed again"
	python3 "$CHECK" "$TEST_DIR/out.mkv" "$TEST_DIR/producer.log" memfd ||
		fail "the file is not complete"
	;;
options)
	record_until_int first
	log_has fake-portal "^SelectSources types=3 multiple=0 cursor_mode=2 persist_mode=2 restore_token=none$" ||
		{ cat "$TEST_DIR/fake-portal.log"; fail "the first run's options"; }
	log_has fake-portal '^Close /org/freedesktop/portal/desktop/session/' ||
		fail "the session was not closed on SIGINT"
	[ "$(cat "$TOKEN")" = fake-token-1 ] || fail "stored token: $(cat "$TOKEN")"
	[ "$(stat -c %a "$TOKEN")" = 600 ] || fail "the token file is mode $(stat -c %a "$TOKEN")"
	record_until_int second --no-cursor
	log_has fake-portal "^SelectSources types=3 multiple=0 cursor_mode=1 persist_mode=2 restore_token=fake-token-1$" ||
		{ cat "$TEST_DIR/fake-portal.log"; fail "the second run's options"; }
	[ "$(cat "$TOKEN")" = fake-token-2 ] || fail "the token was not replaced: $(cat "$TOKEN")"
	python3 "$CHECK" "$TEST_DIR/second.mkv" "$TEST_DIR/producer.log" memfd ||
		fail "the second file is not the producer's frames"
	;;
bad-fd-index)
	for handle in -1 1 2147483647 -2147483648; do
		timeout 30 "$WL_RECORD" -q --capture portal "$TEST_DIR/bad.mkv" >"$TEST_DIR/bad.log" 2>&1
		status=$?
		cat "$TEST_DIR/bad.log"
		[ "$status" -eq 1 ] || fail "handle $handle: exited $status, not 1"
		! grep -q Sanitizer "$TEST_DIR/bad.log" || fail "handle $handle: a sanitizer report"
		[ "$(wc -l <"$TEST_DIR/bad.log")" -eq 1 ] &&
			grep -q "the portal's OpenPipeWireRemote answer names descriptor $handle, but it sent 1$" \
				"$TEST_DIR/bad.log" || fail "handle $handle: not one clear line"
		log_has fake-portal "^OpenPipeWireRemote handle $handle$" ||
			fail "the fake portal did not send handle $handle"
		[ ! -s "$TEST_DIR/bad.mkv" ] || fail "handle $handle: a failed start left a recording"
	done
	;;
forged-response)
	start record "$WL_RECORD" -v --capture portal "$TEST_DIR/out.mkv"
	RECORD_PID=$STARTED_PID
	# Start is wl-record's third request.
	wait_until 20 "the Start request" log_has fake-portal '^request .*_3$'
	read -r _ caller path < <(grep '^request .*_3$' "$TEST_DIR/fake-portal.log")
	"$FAKE_PORTAL" --forge "$caller" "$path" >"$TEST_DIR/forger.log" 2>&1 ||
		fail "cannot forge: $(cat "$TEST_DIR/forger.log")"
	! log_has fake-portal "^Response $path$" ||
		fail "the portal answered before the forgery: nothing was tested"
	wait_until 15 "the stream" stream_or_exit
	! log_has record "refused" || fail "the forged Response was believed"
	wait_until 15 "the producer's frames" producer_frames 12
	kill -INT "$RECORD_PID"
	wait_exit "$RECORD_PID" 20
	[ "$EXIT_STATUS" -eq 0 ] || { cat "$TEST_DIR/record.log"; fail "exited $EXIT_STATUS"; }
	python3 "$CHECK" "$TEST_DIR/out.mkv" "$TEST_DIR/producer.log" memfd ||
		fail "the file is not complete"
	;;
*)
	fail "unknown mode $MODE"
	;;
esac
pass
