#!/bin/bash
# weston-simple-egl on llvmpipe (Mesa's software path sends wl_shm buffers):
# fullscreen at the output size, its triangle drawn.
. "$TEST_LIB"
command -v weston-simple-egl >/dev/null || skip "weston-simple-egl is not installed"

PNG=$TEST_DIR/egl.png
start simple-egl env LIBGL_ALWAYS_SOFTWARE=1 EGL_PLATFORM=wayland "$WL_RECORD" --size 640x480 \
	--background '#204080' --timeout 20 --delay 1 "$PNG" -- weston-simple-egl -f
wait_exit "$STARTED_PID" 40
if [ "$EXIT_STATUS" -ne 0 ] && grep -qi "egl\|mesa\|gl" "$TEST_DIR/simple-egl.log"; then
	cat "$TEST_DIR/simple-egl.log"
	skip "weston-simple-egl cannot render here (EGL failed, see above)"
fi
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record PNG -- weston-simple-egl -f exited $EXIT_STATUS"
# Its clear colour (black) fills the output, not wl-record's background; the
# triangle covers the middle.
"$REGION_CHECK" "$PNG" --size 640x480 --ref 000000 --matches 0,0,100x60 \
	--matches 540,420,100x60 --differs 300,230,40x40,90 ||
	fail "simple-egl is not fullscreen at 640x480 with its triangle"
pass
