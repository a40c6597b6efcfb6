#!/bin/bash
# weston-simple-egl on llvmpipe (Mesa's software path sends wl_shm buffers):
# fullscreen at the output size, its triangle drawn. The triangle spins about
# its vertical axis (edge-on it covers nothing), so its presence is checked
# over a recording; the still checks the size and the clear colour.
. "$TEST_LIB"
command -v weston-simple-egl >/dev/null || skip "weston-simple-egl is not installed"
export LIBGL_ALWAYS_SOFTWARE=1 EGL_PLATFORM=wayland

PNG=$TEST_DIR/egl.png
start simple-egl "$WL_RECORD" --size 640x480 --background '#204080' --timeout 20 --delay 1 \
	"$PNG" -- weston-simple-egl -f
wait_exit "$STARTED_PID" 40
if [ "$EXIT_STATUS" -ne 0 ] && grep -qi "egl\|mesa\|opengl" "$TEST_DIR/simple-egl.log"; then
	cat "$TEST_DIR/simple-egl.log"
	skip "weston-simple-egl cannot render here (EGL failed, see above)"
fi
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record PNG -- weston-simple-egl -f exited $EXIT_STATUS"
# Its clear colour (black) fills the output, not wl-record's background.
"$REGION_CHECK" "$PNG" --size 640x480 --ref 000000 --matches 0,0,100x60 \
	--matches 540,420,100x60 --matches 0,400,640x80 ||
	fail "simple-egl is not fullscreen at 640x480"

MKV=$TEST_DIR/egl.mkv
start simple-egl-record "$WL_RECORD" --size 640x480 --background '#204080' --duration 2 "$MKV" -- \
	weston-simple-egl -f
wait_exit "$STARTED_PID" 40
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record MKV -- weston-simple-egl -f exited $EXIT_STATUS"
ffprobe_check "$MKV"
# Face-on, the triangle covers the middle of the output.
"$REGION_CHECK" "$MKV" --size 640x480 --tolerance 16 --min-frames 5 --min-changes 3 \
	--ref 000000 --matches 0,0,100x60 --any-frame --differs 280,200,80x80,90 ||
	fail "the recording does not show simple-egl's spinning triangle"
pass
