#!/bin/bash
# --audio records what the desktop plays: a 440 Hz tone played to the
# default sink of a private PipeWire server (pipewire-pulse) while wl-record
# records the presenter; the file must hold one audio stream of the
# container's codec (Opus in MKV, AAC in MP4), as long as the video (within
# one codec frame), whose middle second is 440 Hz +- 10 Hz well above
# silence, with no hole or click in the tone (audio-check.py --continuous)
# and none counted in the summary. The tone plays before wl-record starts,
# so it is in the file from the first video frame: within 5 ms, beyond the
# codec's priming (--lead-in; each file began with 30-70 ms of silence when
# the first frame came before the monitor stream's first sample, issue 30).
# "stdout": Matroska written to standard output (FILE "-"), Opus too.
#   desktop-audio.sh mkv|mp4|stdout
. "$TEST_LIB"
. "$(dirname "$TEST_LIB")/../audio/audio-lib.sh"
CHECK=$(dirname "$TEST_LIB")/../audio/audio-check.py

container=${1:?mkv, mp4 or stdout}
case $container in
mkv | stdout) codec=opus ;;
mp4) codec=aac ;;
*) fail "unknown container $container" ;;
esac

start_audio_server
write_sine "$TEST_DIR/tone.wav" 440 20
start paplay paplay "$TEST_DIR/tone.wav"
wait_until 10 "paplay's stream" playing_to_sink

if [ "$container" = stdout ]; then
	export OUT="$TEST_DIR/stdout.mkv"
	out=$OUT
	start record bash -c 'exec "$@" >"$OUT"' bash "$WL_RECORD" -v --audio --duration 3 - -- \
		"$PRESENTER" --frames 100000 --interval-ms 50
else
	out="$TEST_DIR/out.$container"
	start record "$WL_RECORD" -v --audio --duration 3 --stats-fd 3 "$out" -- \
		"$PRESENTER" --frames 100000 --interval-ms 50 3>"$TEST_DIR/stats.json"
fi
record_pid=$STARTED_PID
wait_exit "$record_pid" 30
[ "$EXIT_STATUS" = 0 ] || fail "wl-record exited $EXIT_STATUS"
log_has record "audio: [^ ]+\\.monitor" || fail "wl-record did not say which source it records"
log_has record "audio: [0-9.]+ s from .*\\($([ "$codec" = opus ] && echo libopus || echo aac)\\)" ||
	fail "no audio summary at the end"
grep -E "audio" "$TEST_DIR/record.log" | sed "s/^/$TEST_NAME: /"
# The file first (what the user hears), then the counts.
python3 "$CHECK" --aligned --continuous --lead-in=5 "$out" "$codec" 440 ||
	fail "the audio of $out is wrong"
no_gaps_counted ||
	fail "the summary counts gaps, drops or re-anchors in a tone that played throughout"
if [ "$container" != stdout ]; then
	tolerated=0
	grep -q "^tolerated-hole-ms" "$AUDIO_CHECK_NOTES" 2>/dev/null && tolerated=1
	python3 - "$TEST_DIR/stats.json" "$codec" "$tolerated" <<'PY' || fail "the --stats-fd summary lacks the audio"
import json, sys
s = json.load(open(sys.argv[1]))
server_hole_tolerated = sys.argv[3] == "1"
print("summary: audio_encoder %s, audio_s %s, audio_silence_s %s, duration_s %s"
      % (s["audio_encoder"], s["audio_s"], s["audio_silence_s"], s["duration_s"]))
assert s["audio_encoder"] == {"opus": "libopus", "aac": "aac"}[sys.argv[2]]
# Audio starts with the first frame, which comes late under ASan (0.6 s
# after the start here): audio-check.py compares it with the video.
assert 1.5 < s["audio_s"] <= s["duration_s"] + 0.1, s["duration_s"]
# The tone plays throughout: no gap filled with silence, at either end
# either (the capture waits for the sound to flow before the first frame,
# and for the last instants' sound before it stops). A loaded machine's
# server may still leave a moment unfilled (a hole it reports, or its last
# chunk ending just before the video): under 5 ms (seen: 0.001 s, with
# PulseAudio itself and with a 5.3 ms underrun of pipewire-pulse), which
# the summary line's "0.00 s" also allows; a lost chunk is 10 ms or more,
# and a hole inside the tone is audio-check.py --continuous's to find.
# The one exception is no_gaps_counted's: a server underrun audio-check.py
# tolerated in the file (at most 80 ms), reported and filled by wl-record.
assert s["audio_silence_s"] < (0.08 if server_hole_tolerated else 0.005), s["audio_silence_s"]
PY
fi
pass
