#!/bin/bash
# --capture pipewire= when things go wrong: each a clear line, no hang.
#   producer-killed  the producer dies mid-recording: one line, exit 1 as
#                    for any source that ends, and the file is complete
#                    and playable up to then;
#   pipewire-killed  PipeWire itself dies: the same;
#   no-server        PipeWire is not running: one line at start, exit 1,
#                    no file left;
#   missing-node     a node that is not there: one line naming the video
#                    nodes there are, exit 1; an empty NODE is a bad
#                    command line (exit 2); the node found by its id and
#                    by its object.serial as well as by its name;
#   bad-cursor-offset  a producer whose cursor bitmap offset wraps in 32
#                    bits (producer --bad-cursor-offset): one line saying
#                    its cursor is not drawn, the recording goes on and
#                    its file is whole (before, a read 4 GiB away: SIGSEGV).
. "$TEST_LIB"
. "$(dirname "$0")/pipewire-lib.sh"
fault=${1:?FAULT}
CHECK=$(dirname "$0")/check.py
out="$TEST_DIR/out.mkv"

# run_record: runs wl-record to its end (stderr in record.log); sets EXIT_STATUS.
run_record() {
	start record "$WL_RECORD" "$@"
	wait_exit "$STARTED_PID" 20
}

# one_line PATTERN: record.log is exactly one line, matching PATTERN.
one_line() {
	local n
	n=$(wc -l <"$TEST_DIR/record.log")
	[ "$n" = 1 ] || fail "$n lines on stderr, expected one: $(cat "$TEST_DIR/record.log")"
	log_has record "$1" || fail "unexpected message: $(cat "$TEST_DIR/record.log")"
	log "message: $(cat "$TEST_DIR/record.log")"
}

case $fault in
producer-killed)
	start_pipewire
	start producer "$PRODUCER" wlr-test-video
	producer_pid=$STARTED_PID
	wait_until 10 "the producer's node" node_exists wlr-test-video
	start record "$WL_RECORD" --capture pipewire=wlr-test-video "$out"
	record_pid=$STARTED_PID
	wait_until 15 "the producer's first frames" producer_frames 12
	kill -KILL "$producer_pid"
	wait_exit "$record_pid" 15
	[ "$EXIT_STATUS" = 1 ] || fail "wl-record exited $EXIT_STATUS after its node went, not 1"
	log_has record "PipeWire node 'wlr-test-video' .*went away|PipeWire stream .*(disconnected|failed)" ||
		fail "no line saying the node went: $(cat "$TEST_DIR/record.log")"
	n=$(grep -c -E "went away|disconnected|failed" "$TEST_DIR/record.log")
	[ "$n" = 1 ] || fail "$n lines about the end, expected one"
	grep -E "went away|disconnected|failed" "$TEST_DIR/record.log" | sed "s/^/$TEST_NAME: /"
	# Finished properly: it decodes, its frames are the producer's.
	python3 "$CHECK" "$out" "$TEST_DIR/producer.log" memfd || fail "$out is not complete"
	;;
pipewire-killed)
	start_pipewire
	start producer "$PRODUCER" wlr-test-video
	wait_until 10 "the producer's node" node_exists wlr-test-video
	start record "$WL_RECORD" --capture pipewire=wlr-test-video "$out"
	record_pid=$STARTED_PID
	wait_until 15 "the producer's first frames" producer_frames 12
	kill -KILL "$PIPEWIRE_PID"
	wait_exit "$record_pid" 15
	[ "$EXIT_STATUS" = 1 ] || fail "wl-record exited $EXIT_STATUS after PipeWire went, not 1"
	n=$(grep -c -E "went away|disconnected|failed" "$TEST_DIR/record.log")
	[ "$n" = 1 ] || fail "$n lines about the end, expected one: $(cat "$TEST_DIR/record.log")"
	log_has record "PipeWire went away" || fail "no line saying PipeWire went"
	grep -E "went away" "$TEST_DIR/record.log" | sed "s/^/$TEST_NAME: /"
	python3 "$CHECK" "$out" "$TEST_DIR/producer.log" memfd || fail "$out is not complete"
	;;
no-server)
	require_pipewire
	unset PIPEWIRE_REMOTE
	run_record --capture pipewire=wlr-test-video "$out"
	[ "$EXIT_STATUS" = 1 ] || fail "wl-record exited $EXIT_STATUS without PipeWire, not 1"
	one_line "PipeWire is not running"
	[ ! -e "$out" ] || fail "$out was left behind"
	;;
missing-node)
	start_pipewire
	start producer "$PRODUCER" wlr-test-video
	wait_until 10 "the producer's node" node_exists wlr-test-video
	run_record --capture pipewire=no-such-node "$out"
	[ "$EXIT_STATUS" = 1 ] || fail "wl-record exited $EXIT_STATUS for a missing node, not 1"
	one_line "^wl-record: no PipeWire video node 'no-such-node' \(found: wlr-test-video\)$"
	[ ! -e "$out" ] || fail "$out was left behind"

	run_record --capture pipewire= "$out"
	[ "$EXIT_STATUS" = 2 ] || fail "wl-record exited $EXIT_STATUS for an empty NODE, not 2"
	one_line "pipewire=NODE"

	id=$(node_property wlr-test-video id)
	serial=$(node_property wlr-test-video object.serial)
	[ -n "$id" ] && [ -n "$serial" ] || fail "cannot read the node's id and serial"
	for node in "$id" "$serial"; do
		rm -f "$out"
		run_record -v --duration 1 --capture pipewire="$node" "$out"
		[ "$EXIT_STATUS" = 0 ] || fail "wl-record exited $EXIT_STATUS for node $node"
		log_has record "recording the PipeWire node 'wlr-test-video' \(id $id, serial $serial\)" ||
			fail "pipewire=$node did not find wlr-test-video"
		ffprobe -v error "$out" || fail "$out (pipewire=$node) does not decode"
	done
	;;
bad-cursor-offset)
	start_pipewire
	start producer "$PRODUCER" wlr-test-video --cursor --bad-cursor-offset
	wait_until 10 "the producer's node" node_exists wlr-test-video
	run_record --duration 2 --capture pipewire=wlr-test-video "$out"
	[ "$EXIT_STATUS" = 0 ] || fail "wl-record exited $EXIT_STATUS, not 0: $(cat "$TEST_DIR/record.log")"
	n=$(grep -c "cursor bitmap does not fit" "$TEST_DIR/record.log")
	[ "$n" = 1 ] || fail "$n lines about the cursor, expected one: $(cat "$TEST_DIR/record.log")"
	log_has record "^wl-record: the PipeWire producer's cursor bitmap does not fit in its metadata: the cursor is not drawn$" ||
		fail "unexpected message: $(cat "$TEST_DIR/record.log")"
	python3 "$CHECK" "$out" "$TEST_DIR/producer.log" memfd || fail "$out is not complete"
	;;
*) fail "unknown fault $fault" ;;
esac
pass
