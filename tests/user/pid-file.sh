#!/bin/bash
# Two recordings at once (a hotkey pressed twice without --toggle): the pid
# file names the newest; when it ends, the older one gets the file back, so
# `wl-record --stop` twice ends both. --toggle stops a running one and
# records nothing; with none running it records.
. "$TEST_LIB"
PID_FILE=$XDG_RUNTIME_DIR/wl-record.pid

pid_file_is() { [ "$(cat "$PID_FILE" 2>/dev/null)" = "$1" ]; }

# present SOCKET: a client that keeps presenting until wl-record goes.
present() {
	wait_until 10 "socket $1" socket_exists "$1"
	WAYLAND_DISPLAY=$1 start "presenter-$1" "$PRESENTER" --size 160x120 --frames 100000 \
		--interval-ms 20
}

start first "$WL_RECORD" --socket first "$TEST_DIR/first.mkv"
FIRST=$STARTED_PID
wait_until 10 "the first pid file" pid_file_is "$FIRST"
present first
start second "$WL_RECORD" --socket second "$TEST_DIR/second.mkv"
SECOND=$STARTED_PID
wait_until 10 "the second pid file" pid_file_is "$SECOND"
present second
log_has second "another recording runs \\(pid $FIRST\\)" || fail "the second did not warn"

"$WL_RECORD" --stop || fail "the first --stop exited $?"
wait_exit "$SECOND" 20
[ "$EXIT_STATUS" = 0 ] || fail "the second recording exited $EXIT_STATUS"
"$VIDEO_CHECK" "$TEST_DIR/second.mkv" --min-frames 1 || fail "second.mkv is not a recording"
is_running "$FIRST" || fail "--stop ended the older recording too"
pid_file_is "$FIRST" || fail "the pid file did not go back to $FIRST: $(cat "$PID_FILE" 2>&1)"

"$WL_RECORD" --stop || fail "the second --stop exited $?"
wait_exit "$FIRST" 20
[ "$EXIT_STATUS" = 0 ] || fail "the first recording exited $EXIT_STATUS"
"$VIDEO_CHECK" "$TEST_DIR/first.mkv" --min-frames 1 || fail "first.mkv is not a recording"
[ ! -e "$PID_FILE" ] || fail "the pid file is left after both ended"

# A stale pid file (a process that is not wl-record) is not a recording.
sleep 30 &
STALE=$!
echo "$STALE" >"$PID_FILE"
start toggle "$WL_RECORD" --toggle --socket toggled "$TEST_DIR/toggled.mkv"
TOGGLED=$STARTED_PID
wait_until 10 "--toggle to record" pid_file_is "$TOGGLED"
present toggled
is_running "$STALE" || fail "--toggle signalled a process that is not wl-record"
kill "$STALE"
# --toggle again: stops it, waits until it is gone, records nothing.
"$WL_RECORD" --toggle --socket never "$TEST_DIR/never.mkv" >"$TEST_DIR/toggle2.out" ||
	fail "the stopping --toggle exited $?"
is_running "$TOGGLED" && fail "--toggle returned before the recording ended"
wait_exit "$TOGGLED" 5
[ "$EXIT_STATUS" = 0 ] || fail "the toggled recording exited $EXIT_STATUS"
[ ! -e "$TEST_DIR/never.mkv" ] || fail "the stopping --toggle recorded"
[ ! -s "$TEST_DIR/toggle2.out" ] || fail "the stopping --toggle printed a path"

# Requests that do not go together are bad command lines (status 2).
for args in "--toggle --screenshot" "--toggle --stop" "--toggle --snap" "--toggle x.png"; do
	# shellcheck disable=SC2086
	"$WL_RECORD" $args 2>"$TEST_DIR/bad.err"
	status=$?
	[ "$status" = 2 ] || fail "wl-record $args exited $status, not 2"
	[ "$(wc -l <"$TEST_DIR/bad.err")" = 1 ] || fail "wl-record $args: $(cat "$TEST_DIR/bad.err")"
done
# A name whose strftime expansion does not fit is refused before anything starts.
LONG=$(printf '%%c%.0s' $(seq 300))
"$WL_RECORD" "$TEST_DIR/$LONG.mkv" 2>"$TEST_DIR/long.err"
status=$?
[ "$status" = 2 ] || fail "an over-long expanded name exited $status, not 2"
grep -q "expands to nothing or too much" "$TEST_DIR/long.err" || fail "$(cat "$TEST_DIR/long.err")"
[ -z "$(ls "$TEST_DIR"/*%* 2>/dev/null)" ] || fail "a file was created for the over-long name"
pass
