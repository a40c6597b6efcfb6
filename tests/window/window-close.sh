#!/bin/bash
# Closing the --window window on sway 1.7 headless, with a hosted app of
# ours (close-client) that answers xdg_toplevel.close:
#   1. swaymsg kill: the file is finished first (its "wrote" line comes
#      before the app is asked), then the app gets xdg_toplevel.close,
#      writes its marker and exits by itself, status 0; wl-record exits 0
#      without terminating it; the file is playable;
#   2. an app that ignores the close is asked, then terminated once the
#      grace period is over; wl-record still exits 0 with a playable file.
. "$TEST_LIB"
. "$SWAY_LIB"
. "$WINDOW_LIB"
: "${CLOSE_CLIENT:?CLOSE_CLIENT must point at the close-client test app}"
require_commands ffprobe python3

start_window_sway

# line_of NAME PATTERN: the number of the first line of NAME.log matching.
line_of() {
	grep -n -m 1 -E -- "$2" "$TEST_DIR/$1.log" | cut -d: -f1
}

# 1. An app that closes when asked.
start record "${as_user[@]}" "$WL_RECORD" -v --window --size 320x240 "$USER_DIR/close.mkv" -- \
	"$CLOSE_CLIENT" "$USER_DIR/marker" "close test"
RECORD_PID=$STARTED_PID
wait_until 20 "the window on sway" window_shown
wait_until 20 "the hosted app" log_has record '^ready'
sleep 1 # some recording
sway_msg '[app_id=wl-record] kill' >/dev/null || fail "swaymsg could not close the window"
wait_exit "$RECORD_PID" 30
[ "$EXIT_STATUS" -eq 0 ] || { cat "$TEST_DIR/record.log"; fail "wl-record exited $EXIT_STATUS"; }
[ "$(cat "$USER_DIR/marker" 2>/dev/null)" = closed ] ||
	{ cat "$TEST_DIR/record.log"; fail "the app did not get xdg_toplevel.close"; }
log_has record "the command exited by itself with status 0" ||
	{ cat "$TEST_DIR/record.log"; fail "the app did not exit by itself with status 0"; }
! log_has record "terminating it|after SIGTERM" ||
	{ cat "$TEST_DIR/record.log"; fail "the app was terminated though it closed"; }
wrote=$(line_of record "wrote .*close\.mkv")
asked=$(line_of record "asking the command to close")
[ -n "$wrote" ] && [ -n "$asked" ] && [ "$wrote" -lt "$asked" ] ||
	{ cat "$TEST_DIR/record.log"; fail "the file was not finished before the app was asked to close"; }
wait_until 10 "the hosted app's end" bash -c "! pgrep -g $RECORD_PID >/dev/null"
ffprobe_check "$USER_DIR/close.mkv"
log "closed: $(grep -E 'wrote|asking|exited by itself' "$TEST_DIR/record.log" | tr '\n' ' ')"

# 2. An app that ignores the close: terminated after the grace period.
rm -f "$USER_DIR/marker"
start record2 "${as_user[@]}" "$WL_RECORD" -v --window --size 320x240 "$USER_DIR/ignore.mkv" -- \
	"$CLOSE_CLIENT" "$USER_DIR/marker" "ignore test" --ignore-close
RECORD2_PID=$STARTED_PID
wait_until 20 "the second window on sway" window_shown
wait_until 20 "the second hosted app" log_has record2 '^ready'
sleep 1
sway_msg '[app_id=wl-record] kill' >/dev/null || fail "swaymsg could not close the window"
wait_exit "$RECORD2_PID" 30
[ "$EXIT_STATUS" -eq 0 ] || { cat "$TEST_DIR/record2.log"; fail "wl-record exited $EXIT_STATUS"; }
[ "$(cat "$USER_DIR/marker" 2>/dev/null)" = ignored ] ||
	{ cat "$TEST_DIR/record2.log"; fail "the ignoring app was not asked to close"; }
log_has record2 "did not close within 3 s; terminating it" ||
	{ cat "$TEST_DIR/record2.log"; fail "no word of the app being terminated"; }
log_has record2 "the command ended with status 143" ||
	{ cat "$TEST_DIR/record2.log"; fail "the ignoring app was not ended by SIGTERM"; }
wait_until 10 "the ignoring app's end" bash -c "! pgrep -g $RECORD2_PID >/dev/null"
ffprobe_check "$USER_DIR/ignore.mkv"
log "ignored: $(grep -E 'terminating|ended with' "$TEST_DIR/record2.log" | tr '\n' ' ')"
pass
