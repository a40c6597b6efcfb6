#!/bin/bash
# Drag and drop within the hosted app, on a real desktop: sway 1.7
# headless, a virtual pointer (virtual_pointer.c) over the --window, and
# wl-record hosting tests/window/dnd_client.c: a press on its toplevel
# starts a drag with a 16x16 cyan icon, dropped on its red subsurface,
# which reads the data through wl-record and turns blue. The app's log
# shows the drag's events (enter, motion, drop, the data, finished), and
# the file (dnd-check.py) the icon at the pointer during the drag, gone
# after it, and the target blue.
. "$TEST_LIB"
. "$SWAY_LIB"
. "$WINDOW_LIB"
require_commands ffmpeg ffprobe python3

PW=320
PH=240
start_window_sway
start_virtual_pointer 800 600

start record "${as_user[@]}" "$WL_RECORD" -v --window --size ${PW}x$PH \
	"$USER_DIR/dnd.mkv" -- "$DND_CLIENT"
RECORD_PID=$STARTED_PID
wait_until 20 "the window on sway" window_shown
wait_until 20 "the app" log_has record '^ready'
measure_window $PW $PH

read -r OX OY < <(to_output 40 40)
pointer move "$OX" "$OY"
pointer press 272
wait_until 10 "the drag started" log_has record '^drag start'
wait_until 10 "the drag over the app" log_has record '^enter toplevel'
read -r OX OY < <(to_output 120 80)
pointer move "$OX" "$OY"
read -r OX OY < <(to_output 240 150)
pointer move "$OX" "$OY"
wait_until 10 "the drag over the target" log_has record '^enter target'
read -r OX OY < <(to_output 250 160)
pointer move "$OX" "$OY"
wait_until 10 "a motion over the target" log_has record '^motion'
# Where the app was last told the drag is (its icon's corner).
AT=$(grep -E '^(enter target|motion) ' "$TEST_DIR/record.log" | tail -n 1 | sed -E 's/.* //')
# A recorded frame with the icon there before the drop: in the file being
# written, decoded. A Matroska cluster reaches the file only when a frame a
# second later comes, so meanwhile the pointer moves off and back (by 6
# output pixels: a step under a recording pixel moves no icon, draws no
# frame); the icon follows it and ends where the app was told it is.
ICON_MOVES=0
icon_in_file() {
	ICON_MOVES=$((ICON_MOVES + 1))
	pointer move $((OX + 6)) "$OY"
	pointer move "$OX" "$OY"
	"$PYTHON" "$DND_CHECK" icon "$USER_DIR/dnd.mkv" $PW $PH "$AT" >"$TEST_DIR/icon-check.log" 2>&1
}
wait_until 20 "the icon at $AT in the recording" icon_in_file
log "$(cat "$TEST_DIR/icon-check.log") (after $ICON_MOVES pointer moves)"
pointer release 272
wait_until 10 "the drop" log_has record '^dropped '
grep -q "^dropped dragged through wl-record$" "$TEST_DIR/record.log" ||
	fail "the target got: $(grep '^dropped' "$TEST_DIR/record.log")"
wait_until 10 "the source told it is finished" log_has record '^finished'
grep -q '^drop performed' "$TEST_DIR/record.log" || fail "no dnd_drop_performed"
grep -q '^cancelled' "$TEST_DIR/record.log" && fail "the drag was cancelled"
log "dropped at $AT: $(grep -E '^(drag|enter|drop|finished)' "$TEST_DIR/record.log" | tr '\n' ';')"
# The blue target, icon gone, recorded before the window closes.
end_shown() {
	"$PYTHON" "$DND_CHECK" end "$@"
}
recording_holds "the end of the drag" end_shown $PW $PH 200 100 100

sway_msg '[app_id=wl-record] kill' >/dev/null || fail "swaymsg could not close the window"
wait_exit "$RECORD_PID" 30
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record exited $EXIT_STATUS"
exec 7>&-
ffprobe_check "$USER_DIR/dnd.mkv"
"$PYTHON" "$DND_CHECK" "$USER_DIR/dnd.mkv" $PW $PH 200 100 100 "$AT" \
	>"$TEST_DIR/dnd-check.log" 2>&1 || {
	cat "$TEST_DIR/dnd-check.log"
	fail "the recording is wrong"
}
log "$(cat "$TEST_DIR/dnd-check.log")"
pass
