#!/bin/bash
# The combination the README recommends for a demo: --window --app-audio.
# The desktop is another wl-record (headless, 640x360) so that what the
# window shows is recorded too; a private PipeWire server has the user's
# speakers (a null sink, the default) where another program plays 880 Hz
# all along. The windowed wl-record hosts a command that plays 440 Hz and
# shows colour steps. Checked by decoding both files:
#   - the windowed recording holds the colour steps and 440 Hz only (the
#     other program's 880 Hz never enters it);
#   - the desktop's recording shows the same colour steps in the window;
#   - the app's sound was looped back to the speakers (the user hears it);
#   - the desktop's --duration ends everything with both files complete and
#     wl-record's private sink removed.
. "$TEST_LIB"
. "$(dirname "$TEST_LIB")/../audio/audio-lib.sh"
CHECK=$(dirname "$TEST_LIB")/../audio/audio-check.py
: "${WINDOW_CHECK:?WINDOW_CHECK must point at tests/window/window-check.py}"
PYTHON=python3
[ -x /usr/bin/python3 ] && PYTHON=/usr/bin/python3

start_audio_server
pactl load-module module-null-sink sink_name=speakers >/dev/null || fail "cannot make the speakers sink"
pactl set-default-sink speakers || fail "cannot make speakers the default sink"
wait_until 10 "speakers as the default sink" sh -c 'pactl info | grep -q "^Default Sink: speakers$"'
write_sine "$TEST_DIR/other.wav" 880 30
write_sine "$TEST_DIR/app.wav" 440 30
start other paplay "$TEST_DIR/other.wav"
wait_until 10 "the other program's stream" playing_to_sink

start desktop "$WL_RECORD" -v --duration 6 --size 640x360 "$TEST_DIR/desktop.mkv" -- \
	"$WL_RECORD" -v --window --app-audio --size 320x240 "$TEST_DIR/demo.mkv" -- \
	sh -c 'paplay "$1" & exec "$2" --size 320x240 --colour-steps ff0000@0,00ff00@1500,0000ff@3000 --hold-ms 30000' \
	sh "$TEST_DIR/app.wav" "$PRESENTER"
DESKTOP_PID=$STARTED_PID

# The app's sound reaches the speakers through wl-record's loopback.
loopback_to_speakers() {
	pactl list short modules | grep -qE "module-loopback[[:space:]]+source=wl-record-[0-9]+-app\\.monitor sink=speakers"
}
wait_until 20 "the app's sound looped back to the speakers" loopback_to_speakers

wait_exit "$DESKTOP_PID" 40
[ "$EXIT_STATUS" -eq 0 ] || fail "the desktop wl-record exited $EXIT_STATUS"
log_has desktop "audio: the command's own sound \\(wl-record-[0-9]+-app\\)" ||
	fail "the windowed wl-record did not say it records the command's sound"
for file in demo desktop; do
	ffprobe_check "$TEST_DIR/$file.mkv"
done
"$PYTHON" "$CHECK" --absent=880 "$TEST_DIR/demo.mkv" opus 440 ||
	fail "the demo's sound is not the app's 440 Hz alone"
"$PYTHON" "$WINDOW_CHECK" video "$TEST_DIR/demo.mkv" 160 120 ff0000,00ff00,0000ff ||
	fail "the demo's colours"
"$PYTHON" "$WINDOW_CHECK" video "$TEST_DIR/desktop.mkv" 320 180 ff0000,00ff00,0000ff ||
	fail "the window's colours in the desktop's recording"
left=$(pactl list short modules | grep -E "wl-record-[0-9]+-app" || true)
[ -z "$left" ] || fail "modules left after wl-record exited: $left"
pass
