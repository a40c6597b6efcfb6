#!/bin/bash
# wl-record FILE.png -- COMMAND: wl-record runs the client itself with
# WAYLAND_DISPLAY set to its socket and returns once the still is written.
. "$TEST_LIB"

PNG=$TEST_DIR/command.png
start wl-record "$WL_RECORD" --screenshot --timeout 10 --size 320x240 "$PNG" -- \
	"$PRESENTER" --mode for-mode --format argb --size 400x300 --frames 1 --hold-ms 8000
SERVER=$STARTED_PID
wait_exit "$SERVER" 15
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record --screenshot -- presenter exited $EXIT_STATUS"
[ -f "$PNG" ] || fail "no PNG written"
# The first frame that is not black is frame 0 of the pattern.
"$PNG_CHECK" "$PNG" --size 400x300 --pattern 0 || fail "the still is not pattern frame 0"
# The client must not outlive wl-record.
presenter_gone() { ! group_alive "$SERVER"; }
wait_until 3 "the presenter to exit after wl-record" presenter_gone
pass
