#!/bin/bash
# Two recordings at once (a hotkey pressed twice without --toggle): the pid
# file names the newest; when it ends, the older one gets the file back, so
# `wl-record --stop` twice ends both. --toggle stops a running one, prints
# its path and records nothing; with none running it records.
. "$TEST_LIB"
PID_FILE=$XDG_RUNTIME_DIR/wl-record.pid

pid_file_is() {
	local pid
	read -r pid _ 2>/dev/null <"$PID_FILE" && [ "$pid" = "$1" ]
}

# present SOCKET: a client that keeps presenting until wl-record goes;
# returns once the newest recording (the pid file's) holds a frame: --snap
# waits for one. A recording stopped before any frame fails by design, so a
# stop that outran a slow (loaded, sanitized) presenter would fail the test.
present() {
	wait_until 10 "socket $1" socket_exists "$1"
	WAYLAND_DISPLAY=$1 start "presenter-$1" "$PRESENTER" --size 160x120 --frames 100000 \
		--interval-ms 20
	"$WL_RECORD" --snap >/dev/null || fail "no frame reached the recording on $1"
}

start first "$WL_RECORD" --socket first "$TEST_DIR/first.mkv"
FIRST=$STARTED_PID
wait_until 10 "the first pid file" pid_file_is "$FIRST"
# --snap before anything is presented (a hotkey pressed as recording
# starts) is answered by the first frame, not dropped.
"$WL_RECORD" --snap >"$TEST_DIR/early-snap.out" 2>"$TEST_DIR/early-snap.err" &
EARLY_SNAP=$!
wait_until 10 "the early --snap to be noted" log_has first "the still will be the first frame"
present first
wait "$EARLY_SNAP" || fail "--snap before the first frame exited $?: $(cat "$TEST_DIR/early-snap.err")"
early=$(cat "$TEST_DIR/early-snap.out")
[[ $early == "$TEST_DIR"/first-*.png ]] || fail "the early --snap printed '$early'"
"$PNG_CHECK" "$early" --size 160x120 || fail "the early still is not a complete 160x120 PNG"
start second "$WL_RECORD" --socket second "$TEST_DIR/second.mkv"
SECOND=$STARTED_PID
wait_until 10 "the second pid file" pid_file_is "$SECOND"
present second
log_has second "another recording runs \\(pid $FIRST\\)" || fail "the second did not warn"

# --snap waits for the still and prints its path (absolute, from any
# folder), so that `f=$(wl-record --snap) && upload "$f"` works; twice, two
# different complete stills of the newest recording.
snap1=$(cd / && "$WL_RECORD" --snap) || fail "--snap exited $?"
[[ $snap1 == "$TEST_DIR"/second-*.png ]] || fail "--snap printed '$snap1', not $TEST_DIR/second-DATE.png"
"$PNG_CHECK" "$snap1" --size 160x120 || fail "the still --snap printed is not a complete PNG"
snap2=$("$WL_RECORD" --snap) || fail "the second --snap exited $?"
[ "$snap2" != "$snap1" ] && [ -f "$snap2" ] || fail "the second --snap printed '$snap2' (first: $snap1)"

# --stop waits for the file and prints its path, so that it can be used
# at once: the path is absolute, and the file decodes.
stopped=$(cd / && "$WL_RECORD" --stop) || fail "the first --stop exited $?"
[ "$stopped" = "$TEST_DIR/second.mkv" ] || fail "--stop printed '$stopped', not $TEST_DIR/second.mkv"
is_running "$SECOND" && fail "--stop returned before the recording ended"
"$VIDEO_CHECK" "$stopped" --min-frames 1 || fail "the file --stop printed is not complete"
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

# A stale pid file: a recording killed with SIGKILL leaves it, and its pid
# may be reused by any process, even another wl-record. --stop and --snap
# must refuse it and remove it, and signal nothing.
start killed "$WL_RECORD" --socket killed "$TEST_DIR/killed.mkv"
KILLED=$STARTED_PID
wait_until 10 "the killed one's pid file" pid_file_is "$KILLED"
kill -KILL "$KILLED"
wait_exit "$KILLED" 10
[ -e "$PID_FILE" ] || fail "SIGKILL left no pid file: the stale case is not tested"
# The pid reused: a live wl-record (--version would exit at once; a process
# named wl-record that runs is what matters) under the stale file's pid is
# not reproducible, so the file is rewritten with a live process's pid,
# keeping the killed recording's start time; once with an unrelated
# process, once with a wl-record that did not write it.
read -r _ STALE_START <"$PID_FILE"
STALE_PATH=$(sed -n 2p "$PID_FILE")
sleep 30 &
SLEEPER=$!
start other "$WL_RECORD" --pid-file "$TEST_DIR/other.pid" --socket other "$TEST_DIR/other.mkv"
OTHER=$STARTED_PID
wait_until 10 "the other recording's pid file" test -s "$TEST_DIR/other.pid"
for victim in "$SLEEPER" "$OTHER"; do
	for request in --snap --stop; do
		printf '%s %s\n%s\n' "$victim" "$STALE_START" "$STALE_PATH" >"$PID_FILE"
		"$WL_RECORD" $request >"$TEST_DIR/stale.out" 2>"$TEST_DIR/stale.err"
		status=$?
		[ "$status" = 1 ] || fail "$request on a stale pid file exited $status, not 1"
		grep -q "no recording is running; removing stale pid file $PID_FILE" "$TEST_DIR/stale.err" ||
			fail "$request on a stale pid file said: $(cat "$TEST_DIR/stale.err")"
		[ ! -s "$TEST_DIR/stale.out" ] || fail "$request on a stale file printed $(cat "$TEST_DIR/stale.out")"
		[ ! -e "$PID_FILE" ] || fail "$request left the stale pid file"
		is_running "$victim" || fail "$request signalled pid $victim, which the file did not write"
	done
done
kill "$SLEEPER"
"$WL_RECORD" --stop --pid-file "$TEST_DIR/other.pid" >/dev/null || fail "stopping the other recording failed"
wait_exit "$OTHER" 20
# No pid file at all: one line, status 1.
"$WL_RECORD" --stop >/dev/null 2>"$TEST_DIR/none.err"
status=$?
[ "$status" = 1 ] || fail "--stop without a recording exited $status, not 1"
[ "$(wc -l <"$TEST_DIR/none.err")" = 1 ] || fail "--stop without a recording: $(cat "$TEST_DIR/none.err")"

# --toggle with a stale file records (and does not signal the stale pid).
sleep 30 &
STALE=$!
printf '%s %s\n%s\n' "$STALE" "$STALE_START" "$STALE_PATH" >"$PID_FILE"
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
# ...and, as --stop does, prints the finished file's path.
[ "$(cat "$TEST_DIR/toggle2.out")" = "$TEST_DIR/toggled.mkv" ] ||
	fail "the stopping --toggle printed '$(cat "$TEST_DIR/toggle2.out")', not the file's path"

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
