#!/bin/bash
# present_surface(CENTER) of a 641x479 surface on an 800x600 output: the
# protocol asks for no scaling, the surface centred, black borders around.
. "$TEST_LIB"

SOCKET=wlr-center
PNG=$TEST_DIR/center.png
start wl-record "$WL_RECORD" --screenshot --timeout 10 --size 800x600 --socket "$SOCKET" "$PNG"
SERVER=$STARTED_PID
wait_until 5 "wl-record to listen" socket_exists "$SOCKET"
WAYLAND_DISPLAY=$SOCKET start presenter "$PRESENTER" --mode surface --method center \
	--size 641x479 --frames 1 --hold-ms 8000
CLIENT=$STARTED_PID
wait_exit "$SERVER" 12
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record --screenshot exited $EXIT_STATUS"
wait_exit "$CLIENT" 12
[ "$EXIT_STATUS" -eq 0 ] || fail "presenter exited $EXIT_STATUS"

# (800-641)/2 = 79.5 and (600-479)/2 = 60.5: either rounding is centred.
BORDERS=(--pixel 0,0,000000 --pixel -1,-1,000000 --pixel 799,0,000000 --pixel 0,599,000000
	--pixel 78,300,000000 --pixel 721,300,000000 --pixel 400,59,000000 --pixel 400,540,000000)
for offset in 79,60 80,60 79,61 80,61; do
	if "$PNG_CHECK" "$PNG" --size 800x600 "${BORDERS[@]}" --pattern 0 \
		--pattern-rect "$offset,641x479" >"$TEST_DIR/png-check-$offset.log" 2>&1; then
		cat "$TEST_DIR/png-check-$offset.log"
		pass
	fi
done
cat "$TEST_DIR/png-check-79,60.log"
fail "the 641x479 pattern is not centred on a black 800x600 output"
