#!/bin/bash
# --cursor: the hosted app's pointer image drawn into the recording. sway
# 1.7 headless is the user's desktop, a virtual pointer (virtual_pointer.c)
# moves over the --window, and wl-record hosts tests/window/input_client.c,
# whose pointer image (set_cursor) is 16x16 cyan with its hotspot at 8,8.
# The pointer goes to P1 on the app, onto the window's letterbox bar (off
# the app), to P2, onto the bar again. The file is decoded
# (cursor-check.py): the cyan square's top-left corner is where the app saw
# the pointer less the hotspot, at P1 in some frame and then at P2 in a
# later one, and gone in the last. The window shows it too.
#
# window-cursor.sh off: the same without --cursor: no cyan in any frame,
# while the app's own pointer mark shows the pointer was at P1 and P2.
. "$TEST_LIB"
. "$SWAY_LIB"
. "$WINDOW_LIB"
require_commands grim ffmpeg ffprobe python3
MODE=${1:-on}

PW=320
PH=240
start_window_sway

start_virtual_pointer 800 600


CURSOR_ARGS=(--cursor)
[ "$MODE" = off ] && CURSOR_ARGS=()
start record "${as_user[@]}" "$WL_RECORD" -v --window "${CURSOR_ARGS[@]}" --size ${PW}x$PH \
	"$USER_DIR/cursor.mkv" -- "$INPUT_CLIENT"
RECORD_PID=$STARTED_PID
wait_until 20 "the window on sway" window_shown
wait_until 20 "the app's pointer" log_has record 'seat capabilities 3'
measure_window $PW $PH
[ "$FX" -gt 8 ] || fail "no letterbox bar to move onto: window ${WW}x$WH"
# Output pixel OX,OY is RRGGBB. grim shows sway's own pointer too (a
# software cursor on the headless output): 16x16, the app's image, at the
# pointer. The window shows the recording scaled up (over 2x), so the
# recorded image is larger and is seen beside it.
output_shows() {
	"${as_user[@]}" grim "$USER_DIR/shown.png" 2>/dev/null &&
		"$PYTHON" "$INPUT_CHECK" pixel "$USER_DIR/shown.png" "$1" "$2" "$3" \
			>"$TEST_DIR/shown-check.log" 2>&1
}
[ $((FW * 10 / PW)) -ge 20 ] || fail "the window shows the recording at ${FW}x$FH: too small to tell the two pointers apart"
# The pointer where the app last saw it, whole pixels.
app_pointer() {
	grep -E '^pointer (enter toplevel|motion) ' "$TEST_DIR/record.log" | tail -n 1 |
		sed -E 's/.* ([0-9.]+),([0-9.]+)$/\1 \2/' |
		"$PYTHON" -c "import math, sys; x, y = map(float, sys.stdin.read().split()); print(math.floor(x), math.floor(y))"
}
motions() {
	grep -cE '^pointer (enter toplevel|motion) ' "$TEST_DIR/record.log"
}
leaves() {
	grep -c '^pointer leave' "$TEST_DIR/record.log"
}
app_moved() {
	[ "$(motions)" -gt "$1" ]
}
app_left() {
	[ "$(leaves)" -gt "$1" ]
}

# Each point (away from the app's block rows, top left, 256x112), then
# the letterbox bar (off the app, which keeps its mark where it last saw
# the pointer).
POSITIONS=()
for target in "60 150" "262 200"; do
	read -r OX OY < <(to_output $target)
	before=$(motions)
	pointer move "$OX" "$OY"
	wait_until 10 "the pointer in the app" app_moved "$before"
	read -r AX AY < <(app_pointer)
	POSITIONS+=("$AX,$AY")
	log "pointer at output $OX,$OY, app $AX,$AY"
	if [ "$MODE" = on ]; then
		wait_until 10 "the recorded pointer in the window beside the desktop's" \
			output_shows $((OX + 13)) $((OY + 13)) 00ffff
	fi
	before=$(leaves)
	pointer move $((WX + FX / 2)) $((WY + WH / 2))
	wait_until 10 "the pointer off the app" app_left "$before"
	if [ "$MODE" = on ]; then
		wait_until 10 "no recorded pointer in the window" \
			output_shows $((OX + 13)) $((OY + 13)) 404040
	else
		read -r MX MY < <(to_output "$AX" "$AY")
		wait_until 10 "the app's pointer mark in the window" output_shows "$MX" "$MY" ffffff
		output_shows $((OX + 13)) $((OY + 13)) 404040 ||
			fail "without --cursor: $(cat "$TEST_DIR/shown-check.log")"
	fi
done
# The last picture into the file before it is finished: a still of the
# recording passes the file's end check (no cyan; without --cursor, the
# app's mark where it last saw the pointer).
cursor_shown() {
	local still=$1 mode=$2
	shift 2
	"$PYTHON" "$CURSOR_CHECK" "$mode" "$still" "$@"
}
LAST_MARK=()
[ "$MODE" = on ] || LAST_MARK=("${POSITIONS[-1]}")
recording_holds "the last picture" cursor_shown "$MODE" $PW $PH 16 8 8 "${LAST_MARK[@]}"

sway_msg '[app_id=wl-record] kill' >/dev/null || fail "swaymsg could not close the window"
wait_exit "$RECORD_PID" 30
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record exited $EXIT_STATUS"
exec 7>&-
ffprobe_check "$USER_DIR/cursor.mkv"
"$PYTHON" "$CURSOR_CHECK" "$MODE" "$USER_DIR/cursor.mkv" $PW $PH 16 8 8 "${POSITIONS[@]}" \
	>"$TEST_DIR/cursor-check.log" 2>&1 || {
	cat "$TEST_DIR/cursor-check.log"
	fail "the recording's pointer is wrong"
}
log "$(cat "$TEST_DIR/cursor-check.log")"
pass
