#!/bin/bash
# A real app through --window: weston-terminal hosted by wl-record on
# sway 1.7 headless, driven as a user would with the keyboard (wtype):
# `echo hello` typed, then Return. The file is decoded
# (terminal-check.py): a frame with the prompt alone, then the last frame
# with "$ echo hello" on the first line, "hello" on the second (their
# extents 12:5 characters) and the next prompt on the third.
. "$TEST_LIB"
. "$SWAY_LIB"
. "$WINDOW_LIB"
: "${TERMINAL_CHECK:?TERMINAL_CHECK must point at tests/window/terminal-check.py}"
command -v weston-terminal >/dev/null ||
	skip "weston-terminal is not installed (Debian package weston)"
require_commands grim ffmpeg ffprobe python3 wtype

start_window_sway

# A keyboard for the whole test, as a desktop has (see start_keyboard).
start_keyboard

# The terminal has drawn its prompt: text in the window on sway's output.
terminal_drawn() {
	local x y w h rest
	read -r x y w h rest < <(window_info) || return 1
	"${as_user[@]}" grim "$USER_DIR/screen.png" 2>"$TEST_DIR/grim.log" || return 1
	"$PYTHON" "$TERMINAL_CHECK" ink "$USER_DIR/screen.png" "$x" "$y" "$w" "$h" \
		>"$TEST_DIR/ink.log" 2>&1
}

# A predictable prompt: "$ " from a POSIX shell without start-up files.
start record "${as_user[@]}" "$WL_RECORD" -v --window --size 480x360 "$USER_DIR/terminal.mkv" -- \
	env -u MALLOC_PERTURB_ -u ENV PS1='$ ' weston-terminal --shell=/bin/sh --font-size=20
RECORD_PID=$STARTED_PID
wait_until 20 "the window on sway" window_shown
sway_msg '[app_id=wl-record] focus' >/dev/null || fail "swaymsg could not focus the window"
wait_until 20 "the terminal's prompt in the window" terminal_drawn
sleep 1 # the prompt alone in a few frames
"${as_user[@]}" wtype 'echo hello' || fail "wtype could not type"
sleep 1
"${as_user[@]}" wtype -k Return || fail "wtype could not press Return"
sleep 2
kill -INT "$RECORD_PID"
wait_exit "$RECORD_PID" 30
[ "$EXIT_STATUS" -eq 0 ] || { tail -n 20 "$TEST_DIR/record.log"; fail "wl-record exited $EXIT_STATUS"; }
ffprobe_check "$USER_DIR/terminal.mkv"
"$PYTHON" "$TERMINAL_CHECK" video "$USER_DIR/terminal.mkv" >"$TEST_DIR/check.log" 2>&1 || {
	cat "$TEST_DIR/check.log"
	cp "$USER_DIR/terminal.mkv" /tmp/x/terminal-failed.mkv 2>/dev/null
	fail "the recording does not show 'echo hello' run in the terminal"
}
log "$(cat "$TEST_DIR/check.log" | tr '\n' ' ')"
log "$(grep -- "--window: titled" "$TEST_DIR/record.log" | tail -n 1)"
log "stop: $(grep -E 'asking the command|exited by itself|terminating it' "$TEST_DIR/record.log" |
	tr '\n' ' ')"
pass
