#!/bin/bash
# Ctrl+C on a terminal is SIGINT to the foreground process group. With a
# hosted COMMAND, that must mean "stop the recording": COMMAND runs in a
# process group of its own, so only wl-record gets the signal; it finishes
# the file, then asks COMMAND to close. Before, the app died of SIGINT first:
# "stopping: the command exited", exit 130.
. "$TEST_LIB"

# start runs wl-record through setsid: it leads its own process group, as a
# shell's foreground job does.
start rec "$WL_RECORD" -v --size 160x120 "$TEST_DIR/ctrl-c.mkv" -- \
	"$PRESENTER" --size 160x120 --frames 100000 --interval-ms 20
REC=$STARTED_PID
wait_until 15 "the app presenting" log_has rec "mode_successful"
child=
find_child() {
	child=$(pgrep -P "$REC" -x presenter | head -n 1)
	[ -n "$child" ]
}
wait_until 10 "the hosted command" find_child
child_pgrp=$(ps -o pgid= -p "$child" | tr -d ' ')
[ "$child_pgrp" != "$REC" ] ||
	fail "COMMAND (pid $child) is in wl-record's process group $REC: Ctrl+C reaches it"
sleep 1
# Ctrl+C: SIGINT to the whole foreground group.
kill -INT -- "-$REC"
wait_exit "$REC" 20
[ "$EXIT_STATUS" = 0 ] ||
	fail "after Ctrl+C wl-record exited $EXIT_STATUS, not 0 (a stop by the user)"
log_has rec "stopping: received Interrupt" ||
	fail "Ctrl+C was not taken as the user's stop"
! log_has rec "stopping: the command exited" ||
	fail "COMMAND died of the Ctrl+C before wl-record stopped"
! log_has rec "status 130" || fail "COMMAND died of SIGINT"
"$VIDEO_CHECK" "$TEST_DIR/ctrl-c.mkv" --size 160x120 --min-frames 2 ||
	fail "the recording stopped by Ctrl+C does not decode"
pass
