#!/bin/bash
# A nested Weston (wayland backend, pixman) with wl-record as its parent:
# it must take the output size wl-record advertises (--size) and present
# its desktop through the fullscreen shell.
. "$TEST_LIB"
require_weston

# 1. wl-record listening, Weston started separately; the still taken 1 s
# after the first frame.
SOCKET=wlr-nested
PNG=$TEST_DIR/nested.png
write_weston_ini "$TEST_DIR/nested.ini" 0xff1a8040
start wl-record "$WL_RECORD" --screenshot --timeout 15 --delay 1 --size 400x300 \
	--socket "$SOCKET" "$PNG"
SERVER=$STARTED_PID
wait_until 5 "wl-record to listen" socket_exists "$SOCKET"
WAYLAND_DISPLAY=$SOCKET start_weston weston-nested --backend=wayland-backend.so --use-pixman \
	--socket=weston-nested --config="$TEST_DIR/nested.ini" --idle-time=0
NESTED=$STARTED_PID
wait_exit "$SERVER" 20
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record --screenshot exited $EXIT_STATUS"
"$PNG_CHECK" "$PNG" --size 400x300 --pixel 0,0,1a8040 --pixel -1,0,1a8040 --pixel 0,-1,1a8040 \
	--pixel -1,-1,1a8040 --pixel 200,150,1a8040 ||
	fail "the still is not the nested Weston's 400x300 desktop with its 1a8040 background"
# Weston exits when its parent goes away: nothing may keep it hanging.
wait_exit "$NESTED" 10
log "nested Weston exited $EXIT_STATUS after wl-record"
stop_all

# 2. The same through wl-record FILE -- COMMAND, the first frame that is not
# black.
PNG=$TEST_DIR/command.png
write_weston_ini "$TEST_DIR/command.ini" 0xff802040
start wl-record-command "$WL_RECORD" --screenshot --timeout 15 --size 320x240 "$PNG" -- \
	env -u MALLOC_PERTURB_ weston --backend=wayland-backend.so --use-pixman --socket=weston-command \
	--config="$TEST_DIR/command.ini" --idle-time=0
SERVER=$STARTED_PID
wait_exit "$SERVER" 20
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record --screenshot -- weston exited $EXIT_STATUS"
"$PNG_CHECK" "$PNG" --size 320x240 --pixel 0,0,802040 --pixel -1,-1,802040 ||
	fail "the still is not the nested Weston's 320x240 desktop with its 802040 background"
pass
