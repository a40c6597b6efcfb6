#!/bin/bash
# wl-record through the xdg-desktop-portal ScreenCast interface, against the
# real thing (portal-lib.sh): sway 1.7 headless showing a client of known
# frames, xdg-desktop-portal 1.16 with xdg-desktop-portal-wlr 0.7 choosing
# HEADLESS-1 without a dialog, PipeWire and wireplumber, all as one user.
#
#   record     --capture portal: the recording is the client's frames in
#              order (decoded, pixels checked), its duration that of the
#              run; the restore token kept 0600; the session closed after.
#   restore    the second run hands the stored token back (xdpw: "restore
#              data available"); --forget-portal drops it and the third
#              run offers none.
#   auto       no --capture, on a desktop offering no copy protocol (Weston
#              10 headless): wl-record takes the portal on the bus instead
#              of hosting, and records the frames the portal gives (sway's:
#              xdpw serves sway; the choice is what is checked here).
#   no-portal  no portal on the bus: --capture portal fails with one clear
#              line; with no --capture on Weston it hosts, saying why.
#   no-pipewire PipeWire not running: one clear line, status 1.
#   refused    the user refuses in the dialog (xdpw's simple chooser, its
#              command printing no choice: xdpw answers "cancelled", 1):
#              one clear line, status 1, no file.
#   start-fails the portal answers Start with a failure (response 2: xdpw
#              without the shim, xdpw #289 as it is): one clear line.
#   pipewire-killed  PipeWire killed mid-recording: one line, and the file
#              is finished and playable with what came before.
#   producer-killed  the portal's producer (xdpw) killed: the same.
#              (xdpw 0.7 never sends the Session's Closed signal, so the
#              portal-side close is not reached here; a monitor disabled in
#              sway 1.7 was seen to pause the cast, not end it.)
. "$TEST_LIB"
. "$SWAY_LIB"
. "$PORTAL_LIB"
: "${PATTERN_CLIENT:?PATTERN_CLIENT must point at tests/screencopy/pattern-client}"
MODE=${1:?usage: portal.sh MODE}
require_commands sway
require_portal_stack

SIZE=640x480
FRAMES=60
write_sway_config $SIZE
start_sway "$TEST_DIR/sway.conf"
start_session_bus
TOKEN="$USER_DIR/.local/state/wl-record/portal-token"

# record NAME ARG...: wl-record as sway's user, in the background.
record() {
	local name=$1
	shift
	start "$name" "${as_user[@]}" "$WL_RECORD" -v "$@"
	RECORD_PID=$STARTED_PID
}

# run NAME SECONDS ARG...: wl-record to its end; EXIT_STATUS.
run() {
	local name=$1 seconds=$2
	shift 2
	timeout "$seconds" "${as_user[@]}" "$WL_RECORD" -v "$@" >"$TEST_DIR/$name.log" 2>&1
	EXIT_STATUS=$?
}

# run_quiet NAME SECONDS ARG...: the same with -q: errors only.
run_quiet() {
	local name=$1 seconds=$2
	shift 2
	timeout "$seconds" "${as_user[@]}" "$WL_RECORD" -q "$@" >"$TEST_DIR/$name.log" 2>&1
	EXIT_STATUS=$?
}

# one_error_line NAME PATTERN: a run_quiet said exactly one line, PATTERN.
one_error_line() {
	grep -q -E -- "$2" "$TEST_DIR/$1.log" && [ "$(wc -l <"$TEST_DIR/$1.log")" -eq 1 ] ||
		{ cat "$TEST_DIR/$1.log"; fail "$1: not one line saying '$2'"; }
}

# start_client [FRAMES]
start_client() {
	start client "${as_user[@]}" "$PATTERN_CLIENT" --size $SIZE --frames "${1:-$FRAMES}" \
		--interval-ms 50
	CLIENT_PID=$STARTED_PID
	wait_until 20 "the client's first frame" log_has client "^ready $SIZE"
	# Its frame callback does not prove sway shows the frame yet: wait
	# until a still of the desktop (screencopy, not the portal) is frame 0.
	wait_until 30 "sway showing the client's frame 0" shows_first_frame
}

shows_first_frame() {
	timeout 30 "${as_user[@]}" "$WL_RECORD" --capture screencopy --screenshot -y \
		"$USER_DIR/first.png" >"$TEST_DIR/first-shot.log" 2>&1 &&
		"$PNG_CHECK" "$USER_DIR/first.png" --size $SIZE --pattern 0 >/dev/null
}

# recorded_through_portal NAME: the status line of a portal recording.
portal_chosen() {
	log_has "$1" "recording a monitor \\($SIZE, PipeWire node [0-9]+\\) chosen through the ScreenCast portal"
}

# check_pattern FILE MIN_FRAMES: the client's frames, in order. xdpw 0.7
# on sway 1.7 sends some pictures twice (seen: 64 buffers with a picture,
# each claiming full damage, for the client's 60 frames), and wl-record
# records what it is sent; exact repeats are dropped (mpdecimate) before the
# order is checked, so a frame from the past or out of order still fails.
check_pattern() {
	ffprobe_check "$1"
	ffmpeg -v error -y -i "$1" -vf mpdecimate -c:v libx264 -qp 0 "${1%.mkv}-distinct.mkv" ||
		fail "cannot drop the repeats of $1"
	"$VIDEO_CHECK" "${1%.mkv}-distinct.mkv" --size $SIZE --pattern --min-frames "$2" \
		--max-frames $FRAMES >"$TEST_DIR/check.log" 2>&1 ||
		{ cat "$TEST_DIR/check.log"; fail "$1 is not the client's frames"; }
	"$VIDEO_CHECK" "$1" --size $SIZE --min-duration-ms "$3" >>"$TEST_DIR/check.log" 2>&1 ||
		{ cat "$TEST_DIR/check.log"; fail "$1 is shorter than the recording"; }
	log "$(tr '\n' ' ' <"$TEST_DIR/check.log")"
}

# A recording of the client's 60 frames (3 s), stopped by SIGINT.
record_client() {
	local name=$1
	shift
	start_client
	record "$name" "$@" "$USER_DIR/$name.mkv"
	wait_until 30 "the portal's stream" portal_chosen "$name"
	wait_until 20 "the first frame" log_has "$name" "PipeWire stream: $SIZE"
	sleep 0.5
	kill -USR1 "$CLIENT_PID"
	wait_until 30 "the client's last frame" log_has client '^done'
	sleep 0.5
	kill -INT "$RECORD_PID"
	wait_exit "$RECORD_PID" 30
	[ "$EXIT_STATUS" -eq 0 ] || fail "$name: wl-record stopped by SIGINT exited $EXIT_STATUS"
	check_pattern "$USER_DIR/$name.mkv" 30 3000
}

# The portal's sessions end: xdpw logs each one closed.
sessions_closed() {
	[ "$(grep -c 'dbus: session closed' "$TEST_DIR/xdpw.log")" -ge "$1" ]
}

case $MODE in
record)
	start_user_pipewire
	start_portal
	record_client desktop --capture portal
	# Session.Close answered by the portal, and xdpw's session ended.
	log_has desktop "closed the portal session /org/freedesktop/portal/desktop/session/" ||
		fail "the portal session was not closed"
	wait_until 10 "xdpw's session closed" sessions_closed 1
	[ -f "$TOKEN" ] || fail "no restore token kept in $TOKEN"
	[ "$(stat -c %a "$TOKEN")" = 600 ] || fail "the token file is mode $(stat -c %a "$TOKEN")"
	[ -s "$TOKEN" ] || fail "the token file is empty"
	;;
restore)
	start_user_pipewire
	start_portal
	# Frames all along: each run must get some (wlroots copies for a
	# client only what changed since its last copy).
	start_client 100000
	kill -USR1 "$CLIENT_PID"
	run first 40 --capture portal --duration 1 "$USER_DIR/first.mkv"
	[ "$EXIT_STATUS" -eq 0 ] || { cat "$TEST_DIR/first.log"; fail "first run exited $EXIT_STATUS"; }
	[ -s "$TOKEN" ] || fail "the first run kept no token"
	! log_has xdpw "restore data available" || fail "the first run had restore data"
	first_token=$(cat "$TOKEN")
	run second 40 --capture portal --duration 1 "$USER_DIR/second.mkv"
	[ "$EXIT_STATUS" -eq 0 ] || { cat "$TEST_DIR/second.log"; fail "second run exited $EXIT_STATUS"; }
	log_has xdpw "restore data available" ||
		fail "the second run did not hand the stored token to the portal"
	[ -s "$TOKEN" ] || fail "the second run left no token"
	log "tokens: $first_token, then $(cat "$TOKEN")"
	"$VIDEO_CHECK" "$USER_DIR/second.mkv" --size $SIZE --min-frames 1 >/dev/null ||
		fail "the restored session recorded nothing"
	# --forget-portal: alone only; then the portal gets no token.
	run forget-bad 10 --forget-portal "$USER_DIR/x.mkv"
	[ "$EXIT_STATUS" -eq 2 ] || fail "--forget-portal with FILE exited $EXIT_STATUS, not 2"
	[ -e "$TOKEN" ] || fail "a refused --forget-portal removed the token"
	run forget 10 --forget-portal
	[ "$EXIT_STATUS" -eq 0 ] || { cat "$TEST_DIR/forget.log"; fail "--forget-portal exited $EXIT_STATUS"; }
	[ ! -e "$TOKEN" ] || fail "--forget-portal left $TOKEN"
	restored=$(grep -c "restore data available" "$TEST_DIR/xdpw.log")
	run third 40 --capture portal --duration 1 "$USER_DIR/third.mkv"
	[ "$EXIT_STATUS" -eq 0 ] || { cat "$TEST_DIR/third.log"; fail "third run exited $EXIT_STATUS"; }
	[ "$(grep -c "restore data available" "$TEST_DIR/xdpw.log")" -eq "$restored" ] ||
		fail "after --forget-portal a token was still offered"
	;;
auto|no-portal)
	require_weston
	start_user_pipewire
	[ "$MODE" = no-portal ] || start_portal
	# Weston 10 offers neither ext-image-copy-capture nor wlr-screencopy.
	write_weston_ini "$TEST_DIR/weston.ini" 0xff336699
	chmod 0644 "$TEST_DIR/weston.ini"
	start weston "${as_user[@]}" weston --backend=headless-backend.so --socket=weston-desk \
		--config="$TEST_DIR/weston.ini" --width=320 --height=240
	wait_until 20 "Weston's socket" test -S "$USER_DIR/runtime/weston-desk"
	weston_user=("${as_user[@]}" WAYLAND_DISPLAY=weston-desk)
	if [ "$MODE" = auto ]; then
		start_client
		start auto "${weston_user[@]}" "$WL_RECORD" -v "$USER_DIR/auto.mkv"
		RECORD_PID=$STARTED_PID
		wait_until 30 "the portal's stream" portal_chosen auto
		log_has auto "WAYLAND_DISPLAY=weston-desk: it offers neither ext-image-copy-capture nor wlr-screencopy; the session bus has a ScreenCast portal" ||
			{ cat "$TEST_DIR/auto.log"; fail "the reason for the portal is not given"; }
		sleep 0.5
		kill -USR1 "$CLIENT_PID"
		wait_until 30 "the client's last frame" log_has client '^done'
		sleep 0.5
		kill -INT "$RECORD_PID"
		wait_exit "$RECORD_PID" 30
		[ "$EXIT_STATUS" -eq 0 ] || fail "auto: wl-record exited $EXIT_STATUS"
		check_pattern "$USER_DIR/auto.mkv" 30 3000
	else
		run_quiet forced 30 --capture portal "$USER_DIR/forced.mkv"
		[ "$EXIT_STATUS" -eq 1 ] || { cat "$TEST_DIR/forced.log"; fail "--capture portal with no portal exited $EXIT_STATUS"; }
		one_error_line forced "no ScreenCast portal on the session D-Bus"
		[ ! -s "$USER_DIR/forced.mkv" ] || fail "a failed start left a recording"
		# No --capture: hosting, as before the portal, saying why.
		start hosting "${weston_user[@]}" "$WL_RECORD" -v "$USER_DIR/hosting.mkv"
		wait_until 30 "the choice" log_has hosting "not copying the desktop: WAYLAND_DISPLAY=weston-desk: it offers neither ext-image-copy-capture nor wlr-screencopy; hosting a compositor instead \\(the portal: no ScreenCast portal on the session D-Bus"
	fi
	;;
no-pipewire)
	start_user_pipewire
	start_portal
	kill -KILL -- "-$PIPEWIRE_PID"
	wait_until 10 "pipewire gone" bash -c "! kill -0 $PIPEWIRE_PID 2>/dev/null"
	run_quiet nopw 40 --capture portal "$USER_DIR/nopw.mkv"
	[ "$EXIT_STATUS" -eq 1 ] || { cat "$TEST_DIR/nopw.log"; fail "exited $EXIT_STATUS"; }
	one_error_line nopw "the ScreenCast portal sends the screen through PipeWire: PipeWire is not running"
	;;
refused)
	start_user_pipewire
	XDPW_CHOOSER=$'chooser_type=simple\nchooser_cmd=false' start_portal
	run_quiet refused 40 --capture portal "$USER_DIR/refused.mkv"
	[ "$EXIT_STATUS" -eq 1 ] || { cat "$TEST_DIR/refused.log"; fail "exited $EXIT_STATUS"; }
	one_error_line refused "the screen cast was refused in the desktop's dialog"
	[ ! -s "$USER_DIR/refused.mkv" ] || fail "a refused start left a recording"
	[ ! -e "$TOKEN" ] || fail "a refused start kept a token"
	;;
start-fails)
	start_user_pipewire
	start_portal permanent unshimmed
	run_quiet refused 40 --capture portal "$USER_DIR/refused.mkv"
	[ "$EXIT_STATUS" -eq 1 ] || { cat "$TEST_DIR/refused.log"; fail "exited $EXIT_STATUS"; }
	one_error_line refused "the portal could not do ScreenCast.Start \\(response 2; its log may say why\\)"
	log_has xdpw "unable to receive a valid format" || fail "xdpw failed for another reason"
	wait_until 10 "xdpw's session closed" sessions_closed 1
	[ ! -s "$USER_DIR/refused.mkv" ] || fail "a failed start left a recording"
	;;
pipewire-killed|producer-killed)
	start_user_pipewire
	start_portal
	start_client
	record cut --capture portal "$USER_DIR/cut.mkv"
	wait_until 30 "the portal's stream" portal_chosen cut
	wait_until 20 "the stream's format" log_has cut "PipeWire stream: $SIZE"
	kill -USR1 "$CLIENT_PID"
	sleep 1.5
	if [ "$MODE" = pipewire-killed ]; then
		kill -KILL -- "-$PIPEWIRE_PID"
		why="PipeWire went away \\(connection error\\): the recording ends here"
	else
		kill -KILL -- "-$XDPW_PID"
		why="the PipeWire node 'xdg-desktop-portal-wlr' \\(id [0-9]+, serial [0-9]+\\) went away"
	fi
	wait_exit "$RECORD_PID" 30
	[ "$EXIT_STATUS" -eq 1 ] || { cat "$TEST_DIR/cut.log"; fail "exited $EXIT_STATUS, not 1"; }
	grep -E -- "$why" "$TEST_DIR/cut.log" || { cat "$TEST_DIR/cut.log"; fail "no line saying why it ended"; }
	check_pattern "$USER_DIR/cut.mkv" 5 1000
	;;
*)
	fail "unknown mode $MODE"
	;;
esac
pass
