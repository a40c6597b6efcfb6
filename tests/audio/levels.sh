#!/bin/bash
# What the status line says about the sound, and a source removed while it
# is recorded. The status line is drawn only on a terminal, so wl-record
# runs under script(1), which gives it one.
#   - a tone playing: its peak level in dB (the WAV peaks at -8.7 dBFS);
#   - nothing playing: "silent";
#   - the recorded source removed (its null sink unloaded): one warning,
#     "lost", the video goes on and the file is complete, the audio track
#     as long as the video: the tone, then silence.
. "$TEST_LIB"
. "$(dirname "$TEST_LIB")/../audio/audio-lib.sh"
CHECK=$(dirname "$TEST_LIB")/../audio/audio-check.py
require_commands script

start_audio_server
module=$(pactl load-module module-null-sink sink_name=wlr_test_removed) ||
	fail "cannot make a null sink"
wait_until 10 "the null sink" sh -c 'pactl list short sources | grep -q wlr_test_removed.monitor'
write_sine "$TEST_DIR/tone.wav" 440 2

out="$TEST_DIR/out.mkv"
# script(1) runs the command through $SHELL -c; the typescript holds the
# status lines ('\r'-separated), the log (-v) goes to record.log.
export RECORD_CMD="stty cols 200; exec \"$WL_RECORD\" -v --audio=wlr_test_removed.monitor --duration 7 \
\"$out\" -- \"$PRESENTER\" --frames 100000 --interval-ms 50 2>&1"
start record script -qfec "$RECORD_CMD" "$TEST_DIR/typescript"
record_pid=$STARTED_PID
wait_until 10 "the recording's first frame" log_has record "mode_successful"
# 0 to 2 s: the tone; 2 to 4.5 s: nothing; then the source goes.
paplay --device=wlr_test_removed "$TEST_DIR/tone.wav" || fail "paplay failed"
sleep 2.5
pactl unload-module "$module" || fail "cannot unload the null sink"
wait_exit "$record_pid" 30
[ "$EXIT_STATUS" = 0 ] || fail "wl-record exited $EXIT_STATUS after its audio source went"

status=$(tr '\r' '\n' <"$TEST_DIR/typescript" | sed 's/\x1b\[K//g' | grep "^wl-record: [0-9:]*  " |
	grep -o "audio: [^ ]*\( dB\)\?" | uniq)
log "status lines' audio part, in order: $(echo "$status" | tr '\n' ',')"
# The tone's peak: -8.7 dBFS, printed rounded: -9 (-8 or -10 for a resampled peak).
echo "$status" | grep -qE "^audio: -(8|9|10) dB$" || fail "no status line with the tone's level"
echo "$status" | grep -qx "audio: silent" || fail "no status line saying silent after the tone"
echo "$status" | grep -qx "audio: lost" || fail "no status line saying lost after the source went"
# In that order: the level, then silent, then lost.
order=$(echo "$status" | sed -E 's/^audio: -[0-9]+ dB$/level/; s/^audio: //' | uniq | tr '\n' ' ')
case "$order" in
	*level*silent*lost*) ;;
	*) fail "status lines out of order: $order" ;;
esac

n=$(grep -c "stopped: " "$TEST_DIR/record.log")
[ "$n" = 1 ] || fail "$n warnings about the source going, expected 1"
grep "stopped: " "$TEST_DIR/record.log" | sed "s/^/$TEST_NAME: /"
# The video went on to the end (7 s): the file is complete and as long.
duration=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$out") ||
	fail "$out does not open"
python3 -c "import sys; d = float(sys.argv[1]); sys.exit(0 if 6.5 <= d <= 7.6 else 1)" "$duration" ||
	fail "$out lasts $duration s, expected about 7"
# The tone at the start, without hole or click, silence after the source
# went (from 5 s on).
python3 "$CHECK" --continuous "$out" opus 440 0.3 5 || fail "the audio of $out is wrong"
pass
