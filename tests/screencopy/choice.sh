#!/bin/bash
# The choice of source against compositors that offer no copy protocol
# (fake-ext-copy --no-copy; Weston 10 when installed; wl-record's own
# display offers ext-image-copy-capture, see copy_server/own-server.sh):
# --capture screencopy
# fails at once with one line and leaves no file; without --capture, such a
# WAYLAND_DISPLAY is not copied and wl-record hosts as before, saying why.
. "$TEST_LIB"
: "${FAKE_EXT_COPY:?FAKE_EXT_COPY must point at tests/screencopy/fake-ext-copy}"

# forced_fails NAME DISPLAY EXPECTED: `--capture screencopy` with
# WAYLAND_DISPLAY=DISPLAY (unset when empty) exits 1 with EXPECTED as its
# only line, for a recording and for a screenshot.
forced_fails() {
	local name=$1 display=$2 expected=$3 file env=(env)
	[ -n "$display" ] && env+=(WAYLAND_DISPLAY="$display")
	for file in "$name.mkv" "$name.png"; do
		timeout 20 "${env[@]}" "$WL_RECORD" --capture screencopy "$TEST_DIR/$file" \
			>"$TEST_DIR/$name.out" 2>"$TEST_DIR/$name.err"
		local status=$?
		[ "$status" -eq 1 ] || { cat "$TEST_DIR/$name.err"; fail "$name: $file: exit $status, expected 1"; }
		[ "$(wc -l <"$TEST_DIR/$name.err")" -eq 1 ] ||
			{ cat "$TEST_DIR/$name.err"; fail "$name: $file: not one line on stderr"; }
		grep -q -F -- "$expected" "$TEST_DIR/$name.err" ||
			{ cat "$TEST_DIR/$name.err"; fail "$name: $file: expected '$expected'"; }
		[ ! -e "$TEST_DIR/$file" ] || fail "$name: $file was left behind"
		[ ! -s "$TEST_DIR/$name.out" ] || fail "$name: $file: something on stdout"
	done
}

# A compositor without screencopy.
start plain "$FAKE_EXT_COPY" --socket plain --size 320x240 --no-copy
wait_until 10 "the fake compositor" log_has plain '^ready'

forced_fails plain-display plain \
	"--capture screencopy: WAYLAND_DISPLAY=plain: it offers neither ext-image-copy-capture nor wlr-screencopy"
forced_fails no-display "" "--capture screencopy: WAYLAND_DISPLAY is not set"
forced_fails missing-display nosuchdisplay \
	"--capture screencopy: WAYLAND_DISPLAY=nosuchdisplay: cannot connect"

# A "compositor" that accepts the connection and never answers: wl-record
# gives up after a bounded wait instead of hanging at start.
python3 -c '
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1]); s.listen(8)
held = []
while True:
    held.append(s.accept()[0])
' "$XDG_RUNTIME_DIR/mute" &
MUTE=$!
at_exit "kill $MUTE 2>/dev/null"
wait_until 10 "the mute socket" socket_exists mute
forced_fails mute mute "--capture screencopy: WAYLAND_DISPLAY=mute: it did not answer within 5 s"

# Automatic: not copied, hosted as before (a client presenting to it is
# recorded), and said so.
WAYLAND_DISPLAY=plain start auto "$WL_RECORD" "$TEST_DIR/auto.mkv"
AUTO_PID=$STARTED_PID
wait_until 20 "the automatic choice" log_has auto \
	"not copying the desktop: WAYLAND_DISPLAY=plain: it offers neither ext-image-copy-capture nor wlr-screencopy; hosting"
wait_until 20 "the hosted socket" log_has auto "listening on WAYLAND_DISPLAY="
hosted=$(sed -n 's/.*listening on WAYLAND_DISPLAY=//p' "$TEST_DIR/auto.log")
WAYLAND_DISPLAY=$hosted "$PRESENTER" --size 320x240 --frames 10 >"$TEST_DIR/presenter.log" 2>&1 ||
	fail "the presenter could not present to the hosting wl-record"
wait_exit "$AUTO_PID" 20
[ "$EXIT_STATUS" -eq 0 ] || fail "the automatic choice ended with $EXIT_STATUS"
"$VIDEO_CHECK" "$TEST_DIR/auto.mkv" --size 320x240 --pattern --end-repeat >/dev/null ||
	fail "the hosted recording is not the presenter's frames"

# --capture listen: the display is not even asked.
WAYLAND_DISPLAY=plain start listen "$WL_RECORD" -v --capture listen "$TEST_DIR/listen.mkv"
LISTEN_PID=$STARTED_PID
wait_until 20 "--capture listen" log_has listen "hosting a compositor: --capture listen"
log_has listen "not copying" && fail "--capture listen asked the display"
# Signals are watched from the "listening" line on: a SIGINT before it is
# lost (a background job starts with SIGINT ignored).
wait_until 20 "the listening socket" log_has listen "listening on WAYLAND_DISPLAY="
kill -INT "$LISTEN_PID"
wait_exit "$LISTEN_PID" 20

if command -v weston >/dev/null && [ -n "$(weston_module_dir)" ]; then
	start_weston weston --backend=headless-backend.so --socket=weston-sc --idle-time=0
	wait_until 20 "Weston's socket" socket_exists weston-sc
	forced_fails weston weston-sc \
		"--capture screencopy: WAYLAND_DISPLAY=weston-sc: it offers neither ext-image-copy-capture nor wlr-screencopy"
else
	# A part that did not run: scripts/check-skips.py counts this line.
	log "SKIP: weston is not installed: not checked against Weston"
fi
pass
