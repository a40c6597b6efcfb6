#!/bin/bash
# The --window window's title follows the hosted app's (xdg_toplevel
# set_title), with the recording mark, on sway 1.7 headless: checked in
# sway's own tree (get_tree), as a task bar or window list shows it.
#   1. the app's first title: "● REC — title test";
#   2. the app retitles itself (close-client on SIGUSR1): the window
#      follows, "● REC — title test again".
. "$TEST_LIB"
. "$SWAY_LIB"
. "$WINDOW_LIB"
: "${CLOSE_CLIENT:?CLOSE_CLIENT must point at the close-client test app}"
require_commands python3 pgrep

start_window_sway

title_is() {
	TITLE=$(window_info name | cut -d' ' -f5-)
	[ "$TITLE" = "$1" ]
}

start record "${as_user[@]}" "$WL_RECORD" -v --window --size 320x240 "$USER_DIR/title.mkv" -- \
	"$CLOSE_CLIENT" "$USER_DIR/marker" "title test"
RECORD_PID=$STARTED_PID
wait_until 20 "the hosted app" log_has record '^ready'
title_is "● REC — title test" || wait_until 20 "the app's title on the window" \
	title_is "● REC — title test"
log "first title: '$TITLE'"

client=$(pgrep -P "$RECORD_PID" -x close-client | head -n 1)
[ -n "$client" ] || fail "the hosted app is not running"
kill -USR1 "$client"
wait_until 10 "the app to retitle itself" log_has record '^retitled'
title_is "● REC — title test again" || wait_until 20 "the app's new title on the window" \
	title_is "● REC — title test again"
log "second title: '$TITLE'"

kill -INT "$RECORD_PID"
wait_exit "$RECORD_PID" 30
[ "$EXIT_STATUS" -eq 0 ] || { cat "$TEST_DIR/record.log"; fail "wl-record exited $EXIT_STATUS"; }
pass
