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
. "$CLIP_LIB"

start_clip_desktop
DESKTOP_TEXT="from the desktop"
APP_TEXT="from the app: $$"
PASTED="$USER_DIR/pasted.txt"
start_clip_app "$PASTED" "$APP_TEXT"

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
told_none_since() {
	since "$1" | grep -q '^keyboard leave' && since "$1" | grep -q '^selection none'
}
MARK=$(log_mark)
to_workspace 2
wait_until 10 "the app told there is no selection" told_none_since "$MARK"
SECOND_TEXT="copied elsewhere: $$"
start copy2 "${as_user[@]}" wl-copy --foreground "$SECOND_TEXT"
desktop_has_second_text() {
	[ "$("${as_user[@]}" timeout 5 wl-paste -n 2>/dev/null)" = "$SECOND_TEXT" ]
}
wait_until 10 "the second text on the desktop" desktop_has_second_text
since "$MARK" | grep -q '^offer' &&
	fail "the app was offered the desktop's selection without the keyboard: $(since "$MARK" | tr '\n' ';')"
MARK=$(log_mark)
to_workspace 1
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

close_clip_app
pass
