#!/bin/bash
# --screenshot takes the first picture that has stayed unchanged for the
# settle time (300 ms), not the first one that is not black (issue 14.4: a
# terminal's cursor before its prompt); a client that never stops changing
# gets its newest picture taken at --timeout, status 0, saying so.
. "$TEST_LIB"

SIZE=320x240

# 1. Black, a first colour 150 ms later, the final one at 300 ms: only the
# final one stays unchanged for 300 ms (the first colour would have at
# 450 ms: 150 ms of margin for a loaded machine).
log "case late final colour"
PNG=$TEST_DIR/settle.png
start wl-record-settle "$WL_RECORD" --screenshot --timeout 10 --size "$SIZE" "$PNG" -- \
	"$PRESENTER" --size "$SIZE" --colour-steps 000000@0,ff0000@150,00ff00@300 --hold-ms 8000
wait_exit "$STARTED_PID" 15
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record --screenshot exited $EXIT_STATUS"
"$PNG_CHECK" "$PNG" --size "$SIZE" --pixel 0,0,00ff00 --pixel 160,120,00ff00 --pixel -1,-1,00ff00 ||
	fail "the still is not the client's final picture"

# 2. --delay first, then the settle time: at the end of --delay 0.2 the
# newest picture (green, from 150 ms) has been unchanged for only 50 ms, so
# it is not taken; blue comes at 250 ms (200 ms before green would have
# settled) and is.
log "case --delay 0.2, then settle"
PNG=$TEST_DIR/delay.png
start wl-record-delay "$WL_RECORD" --screenshot --delay 0.2 --timeout 10 --size "$SIZE" "$PNG" -- \
	"$PRESENTER" --size "$SIZE" --colour-steps ff0000@0,00ff00@150,0000ff@250 --hold-ms 8000
wait_exit "$STARTED_PID" 15
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record --screenshot --delay 0.2 exited $EXIT_STATUS"
"$PNG_CHECK" "$PNG" --size "$SIZE" --pixel 160,120,0000ff ||
	fail "the still after --delay is not the client's final picture"

# 3. A command that draws twice and exits at once: its last picture will
# not change any more, so it is taken then (not a failure, not the first).
log "case the command exits before its picture settled"
PNG=$TEST_DIR/exit.png
start wl-record-exit "$WL_RECORD" --screenshot --timeout 10 --size "$SIZE" "$PNG" -- \
	"$PRESENTER" --size "$SIZE" --colour-steps ff0000@0,00ff00@100
wait_exit "$STARTED_PID" 15
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record --screenshot exited $EXIT_STATUS when the command exited"
"$PNG_CHECK" "$PNG" --size "$SIZE" --pixel 160,120,00ff00 ||
	fail "the still is not the command's last picture"

# 4. A new pattern frame every 50 ms, for 50 s: nothing settles, so the
# newest picture is taken at --timeout 2 (status 0). Taken then, it is a
# frame far from the first (the presenter keeps its schedule: about 35 by
# 2 s); at least 10 allows 1.5 s of start-up delay on a loaded machine.
log "case never settles: --timeout 2"
PNG=$TEST_DIR/changing.png
start wl-record-changing "$WL_RECORD" --screenshot --timeout 2 --size "$SIZE" "$PNG" -- \
	"$PRESENTER" --size "$SIZE" --frames 1000 --interval-ms 50
wait_exit "$STARTED_PID" 15
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record --screenshot --timeout 2 exited $EXIT_STATUS"
log_has wl-record-changing "kept changing" || fail "wl-record did not say the picture kept changing"
"$PNG_CHECK" "$PNG" --size "$SIZE" --any-pattern 1000 >"$TEST_DIR/png-check-changing.log" 2>&1 ||
	{ cat "$TEST_DIR/png-check-changing.log"; fail "the still is no pattern frame"; }
cat "$TEST_DIR/png-check-changing.log"
index=$(sed -n 's/^ok   pattern frame \([0-9]*\).*/\1/p' "$TEST_DIR/png-check-changing.log")
[ -n "$index" ] && [ "$index" -ge 10 ] ||
	fail "the still is pattern frame ${index:-?}: taken before --timeout"

# 5. The same with the default --timeout (10 s): an animated screen is not
# waited on for that long; after 2 s of changing pictures the newest is
# taken (a hotkey still of a moving desktop).
log "case never settles: default --timeout"
PNG=$TEST_DIR/animated.png
start wl-record-animated "$WL_RECORD" --screenshot --size "$SIZE" "$PNG" -- \
	"$PRESENTER" --size "$SIZE" --frames 1000 --interval-ms 50
wait_exit "$STARTED_PID" 15
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record --screenshot of an animation exited $EXIT_STATUS"
log_has wl-record-animated "the picture kept changing for 2 s; taking the newest" ||
	fail "the still of an animation was not taken after 2 s: $(cat "$TEST_DIR/wl-record-animated.log")"
"$PNG_CHECK" "$PNG" --size "$SIZE" --any-pattern 1000 >/dev/null || fail "the animated still is no pattern frame"
pass
