# What window-clipboard.sh and window-primary.sh share, sourced after
# $TEST_LIB and $SWAY_LIB: sway 1.7 headless with a keyboard, wl-record
# --window hosting tests/window/clip_client.c, and its log read from a
# mark on.

# start_clip_desktop: sway and its keyboard (USER_DIR is set from then on).
start_clip_desktop() {
	require_commands wtype wl-copy wl-paste
	cat >"$TEST_DIR/sway.conf" <<CONF
output HEADLESS-1 mode 800x600
xwayland disable
CONF
	start_sway "$TEST_DIR/sway.conf"
	start_keyboard
}

# start_clip_app PASTE_FILE TEXT: the app runs with the keyboard, its
# wl-record's pid in RECORD_PID.
start_clip_app() {
	start record "${as_user[@]}" "$WL_RECORD" -v --window --size 320x240 \
		"$USER_DIR/clip.mkv" -- "$CLIP_CLIENT" "$1" "$2"
	RECORD_PID=$STARTED_PID
	# The only window: it has the keyboard, and the app with it.
	wait_until 20 "the app with the keyboard" log_has record '^keyboard enter'
}

# log_mark, then since MARK: the record log's lines from the mark on.
log_mark() {
	wc -l <"$TEST_DIR/record.log"
}
since() {
	tail -n +$(($1 + 1)) "$TEST_DIR/record.log"
}

# The window moves to another workspace (2) and back (1), losing and
# regaining the keyboard.
to_workspace() {
	sway_msg workspace "$1" >/dev/null || fail "swaymsg could not change the workspace"
}

# The window closed by the desktop: wl-record ends well.
close_clip_app() {
	sway_msg '[app_id=wl-record] kill' >/dev/null || fail "swaymsg could not close the window"
	wait_exit "$RECORD_PID" 30
	[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record exited $EXIT_STATUS"
}
