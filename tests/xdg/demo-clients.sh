#!/bin/bash
# Weston's demo clients on wl-record's xdg-shell: weston-simple-shm (plain
# xdg-shell), weston-flower and weston-terminal (toytoolkit). The stills and
# the recording are decoded and their regions checked.
. "$TEST_LIB"
command -v weston-simple-shm >/dev/null || skip "weston demo clients are not installed"

BG=204080

# 1. simple-shm: a 250x250 opaque window, centred on a 640x480 output over
# --background.
PNG=$TEST_DIR/simple-shm.png
start simple-shm "$WL_RECORD" --size 640x480 --background "#$BG" --timeout 15 "$PNG" -- \
	weston-simple-shm
wait_exit "$STARTED_PID" 30
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record PNG -- weston-simple-shm exited $EXIT_STATUS"
"$REGION_CHECK" "$PNG" --size 640x480 --ref "$BG" \
	--differs 195,115,250x250,95 --matches 0,0,640x110 --matches 0,370,640x110 \
	--matches 0,0,190x480 --matches 450,0,190x480 ||
	fail "simple-shm is not a centred 250x250 window over #$BG"

# 2. The same recorded for 2 s: the animation is in the video.
MKV=$TEST_DIR/simple-shm.mkv
start simple-shm-record "$WL_RECORD" --size 640x480 --background "#$BG" --duration 2 "$MKV" -- \
	weston-simple-shm
wait_exit "$STARTED_PID" 30
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record MKV -- weston-simple-shm exited $EXIT_STATUS"
ffprobe_check "$MKV"
"$REGION_CHECK" "$MKV" --size 640x480 --tolerance 16 --min-frames 10 --min-changes 5 \
	--ref "$BG" --differs 205,125,230x230,90 --matches 0,0,640x100 --matches 0,380,640x100 ||
	fail "the recording does not show simple-shm animating over #$BG"

# 3. flower: ARGB with transparent corners, blended over the background.
PNG=$TEST_DIR/flower.png
start flower "$WL_RECORD" --size 800x600 --background "#$BG" --timeout 15 "$PNG" -- weston-flower
wait_exit "$STARTED_PID" 30
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record PNG -- weston-flower exited $EXIT_STATUS"
"$REGION_CHECK" "$PNG" --size 800x600 --ref "$BG" --differs 390,290,20x20,100 \
	--matches 300,200,20x20 --matches 480,380,20x20 --matches 0,0,800x190 ||
	fail "flower is not blended over #$BG (transparent corners must show the background)"

# 4. terminal: fullscreen at the output size, its prompt drawn at the top
# left, the rest its own background.
PNG=$TEST_DIR/terminal.png
start terminal "$WL_RECORD" --size 800x600 --background "#$BG" --timeout 15 --delay 2 "$PNG" -- \
	env SHELL=/bin/sh PS1='PROMPT$ ' weston-terminal
wait_exit "$STARTED_PID" 30
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record PNG -- weston-terminal exited $EXIT_STATUS"
"$REGION_CHECK" "$PNG" --size 800x600 --ref "$BG" --differs 0,0,800x600,99 \
	--ref-at 400,300 --matches 0,100,800x500 --differs 4,4,66x24,5 ||
	fail "the terminal does not fill the output or its prompt is not drawn"
pass
