#!/bin/bash
# The clipboard through the --window, both ways, on a real desktop: sway
# 1.7 headless, wl-copy and wl-paste (wl-clipboard) as its other clients,
# wtype for keys. wl-record hosts tests/window/clip_client.c, which pastes
# on "p" into a file and copies its own text on "c".
#   1. wl-copy on the desktop while the window has the keyboard; "p" in
#      the app: the file holds the desktop's text, through the window.
#   2. "c" in the app: wl-paste on the desktop prints the app's text.
#   3. The window loses the keyboard (another workspace): the app is told
#      there is no selection, and is offered nothing of what is copied on
#      the desktop meanwhile; back on the window, it is offered the new
#      selection and pastes it.
#   4. The window's own marker type never reaches the app.
. "$TEST_LIB"
. "$SWAY_LIB"
require_commands wtype wl-copy wl-paste

cat >"$TEST_DIR/sway.conf" <<CONF
output HEADLESS-1 mode 800x600
xwayland disable
CONF
start_sway "$TEST_DIR/sway.conf"

# A keyboard for the whole test (see start_keyboard).
start_keyboard

DESKTOP_TEXT="from the desktop"
APP_TEXT="from the app: $$"
PASTED="$USER_DIR/pasted.txt"
start record "${as_user[@]}" "$WL_RECORD" -v --window --size 320x240 "$USER_DIR/clip.mkv" -- \
	"$CLIP_CLIENT" "$PASTED" "$APP_TEXT"
RECORD_PID=$STARTED_PID
# The only window: it has the keyboard, and the app with it.
wait_until 20 "the app with the keyboard" log_has record '^keyboard enter'

# 1. Desktop to app.
start copy "${as_user[@]}" wl-copy --foreground "$DESKTOP_TEXT"
wait_until 10 "the desktop's selection offered to the app" log_has record '^offer text/plain;charset=utf-8'
"${as_user[@]}" wtype p || fail "wtype could not type"
pasted() {
	[ -f "$PASTED" ]
}
wait_until 10 "the paste in the app" pasted
[ "$(cat "$PASTED")" = "$DESKTOP_TEXT" ] ||
	fail "the app pasted '$(cat "$PASTED")', not '$DESKTOP_TEXT'"
log "the app pasted '$(cat "$PASTED")' from the desktop"

# 2. App to desktop.
"${as_user[@]}" wtype c || fail "wtype could not type"
wait_until 10 "the app's copy" log_has record '^copied'
desktop_has_app_text() {
	[ "$("${as_user[@]}" timeout 5 wl-paste -n 2>/dev/null)" = "$APP_TEXT" ]
}
wait_until 10 "the app's text on the desktop" desktop_has_app_text
log "the desktop pasted '$("${as_user[@]}" timeout 5 wl-paste -n)' from the app"
"${as_user[@]}" timeout 5 wl-paste -l >"$TEST_DIR/desktop-types.log"
grep -qx 'text/plain' "$TEST_DIR/desktop-types.log" ||
	fail "the desktop is not offered text/plain: $(tr '\n' ' ' <"$TEST_DIR/desktop-types.log")"

# 3. The window without the keyboard.
since() {
	tail -n +$(($1 + 1)) "$TEST_DIR/record.log"
}
told_none_since() {
	since "$1" | grep -q '^keyboard leave' && since "$1" | grep -q '^selection none'
}
MARK=$(wc -l <"$TEST_DIR/record.log")
sway_msg workspace 2 >/dev/null || fail "swaymsg could not change the workspace"
wait_until 10 "the app told there is no selection" told_none_since "$MARK"
SECOND_TEXT="copied elsewhere: $$"
start copy2 "${as_user[@]}" wl-copy --foreground "$SECOND_TEXT"
desktop_has_second_text() {
	[ "$("${as_user[@]}" timeout 5 wl-paste -n 2>/dev/null)" = "$SECOND_TEXT" ]
}
wait_until 10 "the second text on the desktop" desktop_has_second_text
since "$MARK" | grep -q '^offer' &&
	fail "the app was offered the desktop's selection without the keyboard: $(since "$MARK" | tr '\n' ';')"
MARK=$(wc -l <"$TEST_DIR/record.log")
sway_msg workspace 1 >/dev/null || fail "swaymsg could not change the workspace"
offered_since() {
	since "$1" | grep -q '^offer text/plain;charset=utf-8'
}
wait_until 10 "the new selection offered to the app" offered_since "$MARK"
rm -f "$PASTED"
"${as_user[@]}" wtype p || fail "wtype could not type"
wait_until 10 "the second paste in the app" pasted
[ "$(cat "$PASTED")" = "$SECOND_TEXT" ] ||
	fail "the app pasted '$(cat "$PASTED")', not '$SECOND_TEXT'"
log "back on the window, the app pasted '$(cat "$PASTED")'"

# 4. What the app was offered.
grep -q '^offer application/x-wl-record' "$TEST_DIR/record.log" &&
	fail "the app was offered the window's marker type"

sway_msg '[app_id=wl-record] kill' >/dev/null || fail "swaymsg could not close the window"
wait_exit "$RECORD_PID" 30
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record exited $EXIT_STATUS"
pass
