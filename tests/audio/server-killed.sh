#!/bin/bash
# The audio server dies mid-recording: one warning line, the video goes
# on, the file is complete, and the audio track still lasts as long as the
# video: the tone until the server went, silence after it.
. "$TEST_LIB"
. "$(dirname "$TEST_LIB")/../audio/audio-lib.sh"
CHECK=$(dirname "$TEST_LIB")/../audio/audio-check.py

start_audio_server
write_sine "$TEST_DIR/tone.wav" 440 20
start paplay paplay "$TEST_DIR/tone.wav"
wait_until 10 "paplay's stream" playing_to_sink

out="$TEST_DIR/out.mkv"
start record "$WL_RECORD" -v --audio --duration 4 "$out" -- \
	"$PRESENTER" --frames 100000 --interval-ms 50
record_pid=$STARTED_PID
wait_until 10 "the recording's first frame" log_has record "mode_successful"
# The file's zero is the first frame: the tone lasts about 1.5 s of it.
sleep 1.5
kill -TERM "$PULSE_PID"
wait_exit "$record_pid" 30
[ "$EXIT_STATUS" = 0 ] || fail "wl-record exited $EXIT_STATUS after the audio server went"
log_has record "audio from .* stopped: .*the recording goes on with silence" ||
	fail "no warning that the audio stopped"
n=$(grep -c "stopped: " "$TEST_DIR/record.log")
[ "$n" = 1 ] || fail "$n warnings about the audio server, expected 1"
grep -E "audio" "$TEST_DIR/record.log" | sed "s/^/$TEST_NAME: /"
# The tone in the first second, without hole or click until the server
# went, silence from 2.6 s to the end (4 s).
python3 "$CHECK" --continuous "$out" opus 440 0.1 2.6 || fail "the audio of $out is wrong"
pass
