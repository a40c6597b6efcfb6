#!/bin/bash
# Input through the --window on a real desktop: sway 1.7 headless as the
# user's desktop, with a virtual pointer (tests/window/virtual_pointer.c:
# sway headless has no input devices) and wtype for keys. wl-record hosts
# tests/window/input_client.c, which draws what it receives; the file is
# then decoded (input-check.py). The window (tiled, so larger than the
# 320x240 recording and letterboxed) gets:
#   1. a left click at a window position: the app's click mark is at the
#      recording position the letterbox maps it to;
#   2. keys typed with wtype (which sends its own keymap): the app reads
#      the keysyms through the keymap it was passed;
#   3. a right click: the app opens a popup with a grab; a click on the
#      window's letterbox bar (outside the grabbing client) dismisses it
#      (popup_done) and reaches no one;
#   4. three wheel steps;
#   5. the app's pointer image (set_cursor) is the pointer over the window,
#      the desktop's arrow (cursor theme) over the bars.
#
# window-input.sh weston: the same through a whole nested desktop, Weston
# 10 (wayland backend, kiosk-shell) presenting through the fullscreen
# shell, with the app in it: Weston's own seat takes our pointer and keys
# (the keymap too) and passes them on. Weston draws its own pointer and
# keeps menus' grabs to itself: 1, 2 and 4 only.
. "$TEST_LIB"
. "$SWAY_LIB"
. "$WINDOW_LIB"
require_commands grim ffmpeg ffprobe python3 wtype
NESTED=${1:-}
if [ "$NESTED" = weston ]; then
	require_weston
	compgen -G '/usr/lib/*/weston/kiosk-shell.so' >/dev/null ||
		skip "Weston's kiosk-shell is not installed"
fi

PW=320
PH=240
start_window_sway

start_virtual_pointer 800 600

# A keyboard for the whole test (see start_keyboard).
start_keyboard

HOSTED=("$INPUT_CLIENT")
if [ "$NESTED" = weston ]; then
	printf '[core]\nidle-time=0\n\n[autolaunch]\npath=%s\n' "$INPUT_CLIENT" >"$TEST_DIR/weston.ini"
	chmod 0644 "$TEST_DIR/weston.ini"
	HOSTED=(env -u MALLOC_PERTURB_ weston --backend=wayland-backend.so --use-pixman
		--shell=kiosk-shell.so --socket=weston-input --config="$TEST_DIR/weston.ini")
fi
start record "${as_user[@]}" "$WL_RECORD" -v --window --size ${PW}x$PH "$USER_DIR/input.mkv" -- \
	"${HOSTED[@]}"
RECORD_PID=$STARTED_PID
wait_until 20 "the window on sway" window_shown
wait_until 20 "the app's pointer" log_has record 'seat capabilities 3'
measure_window $PW $PH
[ "$FW" -ne $PW ] || fail "the window is the recording's size: the mapping would not be tested"
[ "$FX" -gt 8 ] || fail "no letterbox bar to click on: window ${WW}x$WH"
# to_picture OX OY: the recording point under output point OX,OY, as the
# app sees it (the integer part of its coordinates).
to_picture() {
	"$PYTHON" -c "import math; print(math.floor(($1 - $WX - $FX) * $PW / $FW), math.floor(($2 - $WY - $FY) * $PH / $FH))"
}

# 1. A left click.
read -r OX OY < <(to_output 230 170)
read -r CX CY < <(to_picture "$OX" "$OY")
pointer move "$OX" "$OY"
wait_until 10 "the pointer in the app" log_has record 'pointer (enter|motion)'
# The app's pointer image (16x16 cyan, hotspot 8,8) is the desktop's
# pointer over the window.
shows_cursor() {
	"${as_user[@]}" grim -c "$USER_DIR/cursor.png" 2>/dev/null &&
		"$PYTHON" "$INPUT_CHECK" pixel "$USER_DIR/cursor.png" $(($1 + $3)) $(($2 + $4)) 00ffff \
			>"$TEST_DIR/cursor-check.log" 2>&1
}
if [ -z "$NESTED" ]; then
	wait_until 10 "the app's cursor on the desktop" shows_cursor "$OX" "$OY" 6 6
	shows_cursor "$OX" "$OY" -7 -7 || fail "the cursor's hotspot: $(cat "$TEST_DIR/cursor-check.log")"
	shows_cursor "$OX" "$OY" 10 0 &&
		fail "a cursor larger than the app's: $(cat "$TEST_DIR/cursor-check.log")"
	log "the app's cursor is the desktop's pointer at $OX,$OY"
fi
pointer click 272
wait_until 10 "the click in the app" log_has record 'button 272 pressed on the toplevel'
log "clicked at output $OX,$OY: $(grep 'button 272 pressed' "$TEST_DIR/record.log" | head -n 1)"

# 2. Keys, with wtype's own keymap.
# Which keysyms they are is for input-check.py to say, from the file.
keys_in_app() {
	[ "$(grep -c '^key [0-9]* keysym' "$TEST_DIR/record.log")" -ge "$1" ]
}
KEYS=0
for key in q Z 7; do
	KEYS=$((KEYS + 1))
	"${as_user[@]}" wtype "$key" || fail "wtype could not type"
	wait_until 10 "key $KEYS ($key) in the app" keys_in_app $KEYS
done
log "keys: $(grep '^key [0-9]* keysym' "$TEST_DIR/record.log" | tr '\n' ';')"
# Each keymap (the desktop's, then wtype's) reached the app in a sealed file
# of wl-record's, never the desktop's own.
grep -q '^keymap of [0-9]* bytes, sealed' "$TEST_DIR/record.log" || fail "the app got no keymap"
if grep '^keymap of' "$TEST_DIR/record.log" | grep -q 'not sealed'; then
	fail "a keymap reached the app unsealed: $(grep '^keymap of' "$TEST_DIR/record.log" | tr '\n' ';')"
fi

# 3. A popup, dismissed by a click outside.
BX=-1
BY=-1
if [ -z "$NESTED" ]; then
	read -r OX2 OY2 < <(to_output 60 150)
	read -r BX BY < <(to_picture "$OX2" "$OY2")
	pointer move "$OX2" "$OY2"
	pointer click 273
	wait_until 10 "the popup" log_has record 'popup shown'
	# The app's "popup shown" is no proof that a recorded frame shows it: a
	# commit is taken at the next frame, and a click before then dismisses
	# the popup unseen. Wait for it in the file itself, decoded. A Matroska
	# cluster reaches the file only when a frame a second later comes, so
	# the pointer moves to and fro over the toplevel meanwhile (the app
	# redraws its pointer mark there; the grab is its own), away from the
	# popup, the click mark and the block rows.
	read -r WIGGLE_X WIGGLE_Y < <(to_output 200 200)
	WIGGLES=0
	popup_in_file() {
		WIGGLES=$((WIGGLES + 1))
		pointer move $((WIGGLE_X + WIGGLES % 2 * 4)) "$WIGGLE_Y"
		"$PYTHON" "$INPUT_CHECK" popup "$USER_DIR/input.mkv" $PW $PH "$BX" "$BY" \
			>"$TEST_DIR/popup-check.log" 2>&1
	}
	wait_until 20 "the popup in the recording" popup_in_file
	log "$(cat "$TEST_DIR/popup-check.log") (after $WIGGLES pointer moves)"
	BAR_X=$((WX + FX / 2))
	BAR_Y=$((WY + WH / 2))
	pointer move $BAR_X $BAR_Y
	# Off the app (on the bar) the pointer is the desktop's own again: its
	# theme's arrow, or wlroots' built-in one where no cursor theme is
	# installed (a minbase root has no /usr/share/icons).
	not_app_cursor() {
		! shows_cursor "$@"
	}
	wait_until 10 "the desktop's arrow over the bar" not_app_cursor $BAR_X $BAR_Y 6 6
	pointer click 272
	wait_until 10 "the popup dismissed" log_has record 'popup done'
fi
# The app's pointer goes back before the wheel turns.
read -r OX3 OY3 < <(to_output 280 200)
pointer move "$OX3" "$OY3"
pointer scroll 3
wait_until 10 "the wheel in the app" log_has record 'wheel 3'
# Drawn after it says so: recorded before the window closes.
recording_holds "the three wheel steps" rows_shown $PW $PH 6=3

sway_msg '[app_id=wl-record] kill' >/dev/null || fail "swaymsg could not close the window"
wait_exit "$RECORD_PID" 30
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record exited $EXIT_STATUS"
exec 7>&-
ffprobe_check "$USER_DIR/input.mkv"
LAST_BUTTON=273
DISMISSED=1
[ -z "$NESTED" ] || { LAST_BUTTON=272; DISMISSED=0; }
"$PYTHON" "$INPUT_CHECK" "$USER_DIR/input.mkv" $PW $PH "$CX" "$CY" "$BX" "$BY" 37,5a,71 \
	$LAST_BUTTON $DISMISSED 3 \
	>"$TEST_DIR/input-check.log" 2>&1 || {
	cat "$TEST_DIR/input-check.log"
	grep -E 'pointer|button|key|popup|wheel' "$TEST_DIR/record.log" | tail -n 40
	fail "the recording does not show the input"
}
log "$(cat "$TEST_DIR/input-check.log")"
pass
