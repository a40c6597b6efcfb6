#!/bin/bash
# The primary selection (middle-click paste) through the --window, both
# ways, on a real desktop: sway 1.7 headless (which offers
# zwp_primary_selection_device_manager_v1), wl-copy/wl-paste --primary as
# its other clients, wtype for keys. wl-record hosts
# tests/window/clip_client.c: "m" pastes its primary selection into a
# file, "n" sets its own, "p" and "c" do the same with the clipboard.
#   1. The desktop's primary selection and clipboard differ; "m" and "p"
#      in the app paste each its own.
#   2. "n" in the app: wl-paste --primary on the desktop prints the app's
#      primary text, and the clipboard is unchanged; "c" then changes the
#      clipboard and not the primary selection.
#   3. The window loses the keyboard: the app is told there is no primary
#      selection and is offered nothing copied meanwhile; back on the
#      window it is offered the new one and pastes it.
#   4. The window's own marker type never reaches the app.
. "$TEST_LIB"
. "$SWAY_LIB"
. "$CLIP_LIB"

start_clip_desktop
DESKTOP_PRIMARY="primary from the desktop"
DESKTOP_CLIPBOARD="clipboard from the desktop"
APP_TEXT="from the app: $$"
APP_PRIMARY="primary: $APP_TEXT"
PASTED="$USER_DIR/pasted.txt"
PASTED_PRIMARY="$PASTED.primary"
start_clip_app "$PASTED" "$APP_TEXT"
log_has record 'no zwp_primary_selection_device_manager_v1' &&
	fail "wl-record did not find sway's primary selection manager"

file_has() {
	[ -f "$1" ] && [ "$(cat "$1")" = "$2" ]
}
desktop_primary_is() {
	[ "$("${as_user[@]}" timeout 5 wl-paste --primary -n 2>/dev/null)" = "$1" ]
}
desktop_clipboard_is() {
	[ "$("${as_user[@]}" timeout 5 wl-paste -n 2>/dev/null)" = "$1" ]
}

# 1. Desktop to app, each selection its own.
start copy_primary "${as_user[@]}" wl-copy --foreground --primary "$DESKTOP_PRIMARY"
wait_until 10 "the desktop's primary selection offered to the app" \
	log_has record '^primary offer text/plain;charset=utf-8'
start copy_clipboard "${as_user[@]}" wl-copy --foreground "$DESKTOP_CLIPBOARD"
wait_until 10 "the desktop's clipboard offered to the app" \
	log_has record '^offer text/plain;charset=utf-8'
"${as_user[@]}" wtype m || fail "wtype could not type"
wait_until 10 "the primary paste in the app" test -f "$PASTED_PRIMARY"
file_has "$PASTED_PRIMARY" "$DESKTOP_PRIMARY" ||
	fail "the app pasted '$(cat "$PASTED_PRIMARY")' from the primary selection, not '$DESKTOP_PRIMARY'"
"${as_user[@]}" wtype p || fail "wtype could not type"
wait_until 10 "the clipboard paste in the app" test -f "$PASTED"
file_has "$PASTED" "$DESKTOP_CLIPBOARD" ||
	fail "the app pasted '$(cat "$PASTED")' from the clipboard, not '$DESKTOP_CLIPBOARD'"
log "the app pasted '$(cat "$PASTED_PRIMARY")' (primary) and '$(cat "$PASTED")' (clipboard)"

# 2. App to desktop, each selection its own.
"${as_user[@]}" wtype n || fail "wtype could not type"
wait_until 10 "the app's primary copy" log_has record '^primary copied'
wait_until 10 "the app's primary text on the desktop" desktop_primary_is "$APP_PRIMARY"
desktop_clipboard_is "$DESKTOP_CLIPBOARD" ||
	fail "the app's primary selection changed the desktop's clipboard to" \
		"'$("${as_user[@]}" timeout 5 wl-paste -n 2>/dev/null)'"
log "the desktop pasted '$("${as_user[@]}" timeout 5 wl-paste --primary -n)' (primary) from the app"
"${as_user[@]}" wtype c || fail "wtype could not type"
wait_until 10 "the app's clipboard text on the desktop" desktop_clipboard_is "$APP_TEXT"
desktop_primary_is "$APP_PRIMARY" ||
	fail "the app's clipboard changed the desktop's primary selection to" \
		"'$("${as_user[@]}" timeout 5 wl-paste --primary -n 2>/dev/null)'"

# 3. The window without the keyboard.
told_none_since() {
	since "$1" | grep -q '^keyboard leave' && since "$1" | grep -q '^primary selection none'
}
MARK=$(log_mark)
to_workspace 2
wait_until 10 "the app told there is no primary selection" told_none_since "$MARK"
SECOND_PRIMARY="selected elsewhere: $$"
start copy_primary2 "${as_user[@]}" wl-copy --foreground --primary "$SECOND_PRIMARY"
wait_until 10 "the second primary text on the desktop" desktop_primary_is "$SECOND_PRIMARY"
since "$MARK" | grep -q '^primary offer' &&
	fail "the app was offered the primary selection without the keyboard: $(since "$MARK" | tr '\n' ';')"
MARK=$(log_mark)
to_workspace 1
primary_offered_since() {
	since "$1" | grep -q '^primary offer text/plain;charset=utf-8'
}
wait_until 10 "the new primary selection offered to the app" primary_offered_since "$MARK"
rm -f "$PASTED_PRIMARY"
"${as_user[@]}" wtype m || fail "wtype could not type"
wait_until 10 "the second primary paste in the app" test -f "$PASTED_PRIMARY"
file_has "$PASTED_PRIMARY" "$SECOND_PRIMARY" ||
	fail "the app pasted '$(cat "$PASTED_PRIMARY")', not '$SECOND_PRIMARY'"
log "back on the window, the app pasted '$(cat "$PASTED_PRIMARY")' (primary)"

# 4. What the app was offered.
grep -q '^primary offer application/x-wl-record' "$TEST_DIR/record.log" &&
	fail "the app was offered the window's marker type"

close_clip_app
pass
