#!/bin/bash
# A nested Weston 10 (wayland backend, pixman) with the fullscreen shell
# disabled: it opens an xdg-shell toplevel, fullscreen at wl-record's output
# size, showing its desktop.
. "$TEST_LIB"
require_weston

# 1. Still.
PNG=$TEST_DIR/nested.png
write_weston_ini "$TEST_DIR/nested.ini" 0xff1a8040
start wl-record "$WL_RECORD" --no-fullscreen-shell --background '#204080' --size 400x300 \
	--timeout 15 --delay 1 "$PNG" -- env -u MALLOC_PERTURB_ weston --backend=wayland-backend.so \
	--use-pixman --fullscreen --socket=weston-xdg --config="$TEST_DIR/nested.ini" --idle-time=0
wait_exit "$STARTED_PID" 30
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record --no-fullscreen-shell -- weston exited $EXIT_STATUS"
grep -q "Using xdg_wm_base" "$TEST_DIR/wl-record.log" ||
	fail "the nested Weston did not say it uses xdg_wm_base"
"$REGION_CHECK" "$PNG" --size 400x300 --ref 1a8040 --matches 0,0,400x300 ||
	fail "the still is not the nested Weston's 400x300 desktop (1a8040)"

# 2. Recorded.
MKV=$TEST_DIR/nested.mkv
write_weston_ini "$TEST_DIR/record.ini" 0xff802040
start wl-record-mkv "$WL_RECORD" --no-fullscreen-shell --size 320x240 --duration 3 "$MKV" -- \
	env -u MALLOC_PERTURB_ weston --backend=wayland-backend.so --use-pixman --fullscreen \
	--socket=weston-xdg-rec --config="$TEST_DIR/record.ini" --idle-time=0
wait_exit "$STARTED_PID" 30
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record --no-fullscreen-shell MKV -- weston exited $EXIT_STATUS"
ffprobe_check "$MKV"
"$REGION_CHECK" "$MKV" --size 320x240 --tolerance 16 --min-frames 1 --ref 802040 \
	--matches 0,0,320x240 || fail "the recording is not the nested 320x240 desktop (802040)"
pass
