#!/bin/bash
# Issue 30 §1: a steady 440 Hz tone recorded for 60 s while the machine is
# loaded by a parallel build (a compiler loop per core, at normal priority,
# which this test starts before the recording and stops after it) has no
# hole and no discontinuity anywhere: audio-check.py --strict (no 2.5 ms
# window below 90 % of the tone's RMS, the tone's predictor and a fit of
# its phase find no discontinuity, over every sample), the length matches
# the video, and wl-record counts no gap, no drop and no re-anchor: the
# --stats-fd summary's silence is 0 to the sample.
#   tone-loaded.sh audio|app-audio mkv|mp4
# audio: --audio, the tone played on the default sink by another program.
# app-audio: --app-audio, the tone played by the command wl-record runs
# (the default output is a "speakers" sink, as a desktop's).
# The player writes the tone into pacat, which the server buffers half a
# second ahead: the player late for a moment is no hole. The server itself
# is watched by another recorder of the same sound (pacat into
# server-clock.py): a recording during which the server stalled is not
# judged (see below). TONE_LOADED_SECONDS: another length (default 60).
. "$TEST_LIB"
. "$(dirname "$TEST_LIB")/../audio/audio-lib.sh"
CHECK=$(dirname "$TEST_LIB")/../audio/audio-check.py

option=${1:?audio or app-audio}
container=${2:?mkv or mp4}
case $container in
mkv) codec=opus ;;
mp4) codec=aac ;;
*) fail "unknown container $container" ;;
esac
[ "$option" = audio ] || [ "$option" = app-audio ] || fail "unknown option $option"
SECONDS_RECORDED=${TONE_LOADED_SECONDS:-60}
command -v pacat >/dev/null || skip "pacat is not installed (Debian: pulseaudio-utils)"
command -v cc >/dev/null || skip "cc is not installed (Debian: gcc): the load is a compiler loop"

# The load: a C file of some hundred functions, compiled at -O2 over and
# over by one loop per core; each compile counted.
cores=$(nproc)
{
	for i in $(seq 1 150); do
		printf 'double f%d(const double *a, int n) { double s = %d; ' "$i" "$i"
		printf 'for (int k = 0; k < n; k++) s = s * 0.5 + a[k] * a[(k * %d) %% n]; return s; }\n' "$i"
	done
} >"$TEST_DIR/load.c"
for core in $(seq 1 "$cores"); do
	start "load$core" bash -c 'while :; do cc -O2 -c "$1" -o "$2.o" && echo >>"$2.count"; done' \
		load "$TEST_DIR/load.c" "$TEST_DIR/load$core"
done
loaded() {
	local core
	for core in $(seq 1 "$cores"); do
		[ -s "$TEST_DIR/load$core.count" ] || return 1
	done
}
wait_until 60 "a compile done by each of the $cores loops" loaded

start_audio_server
# player: the tone, one second of 440 whole periods repeated for ever.
cat >"$TEST_DIR/player" <<'EOF'
#!/bin/sh
python3 -c '
import array, math, sys
second = array.array("h", (int(12000 * math.sin(2 * math.pi * 440 * n / 48000))
                           for n in range(48000) for channel in (0, 1)))
data = second.tobytes()
while True:
    sys.stdout.buffer.write(data)
' | exec pacat --raw --format=s16le --rate=48000 --channels=2 --latency-msec=500 \
	--client-name=tone-loaded --stream-name=tone
EOF
chmod +x "$TEST_DIR/player"

out="$TEST_DIR/out.$container"
presenter=("$PRESENTER" --frames 100000 --interval-ms 50)
if [ "$option" = audio ]; then
	watched=auto_null.monitor
	start player "$TEST_DIR/player"
	wait_until 10 "the player's stream" playing_to_sink
else
	watched=speakers.monitor
	pactl load-module module-null-sink sink_name=speakers >/dev/null ||
		fail "cannot make the speakers sink"
	pactl set-default-sink speakers || fail "cannot make speakers the default sink"
	wait_until 10 "speakers as the default sink" sh -c 'pactl info | grep -q "^Default Sink: speakers$"'
fi

# watch N SOURCE: another recorder of SOURCE (pacat into server-clock.py):
# the server's timeline and its sound, independently of wl-record.
watch() {
	start "clock$1" bash -c 'pacat --record --raw --format=s16le --rate=48000 --channels=2 \
		--latency-msec=10 --client-name=server-clock -d "$1" | exec python3 "$2" log "$3"' \
		clock "$2" "$(dirname "$CHECK")/server-clock.py" "$TEST_DIR/clock$1"
	clock_pid=$STARTED_PID
	wait_until 10 "the server watched" test -s "$TEST_DIR/clock$1"
}

app_sink_exists() {
	pactl list short sinks | grep -q "wl-record-$1-app"
}

# record N: one recording, the server watched beside it; sets server_ok
# (the server kept its timeline and played the tone without a hole).
record() {
	local n=$1 clock=$TEST_DIR/clock$1
	rm -f "$out"
	if [ "$option" = audio ]; then
		watch "$n" auto_null.monitor
		start "record$n" "$WL_RECORD" -v --audio --duration "$SECONDS_RECORDED" --stats-fd 3 \
			"$out" -- "${presenter[@]}" 3>"$TEST_DIR/stats.json"
	else
		start "record$n" "$WL_RECORD" -v --app-audio --duration "$SECONDS_RECORDED" --stats-fd 3 \
			"$out" -- sh -c 'player=$1; shift; "$player" & exec "$@"' sh "$TEST_DIR/player" \
			"${presenter[@]}" 3>"$TEST_DIR/stats.json"
		local record_pid=$STARTED_PID
		wait_until 20 "wl-record's sink for the command" app_sink_exists "$record_pid"
		watch "$n" "wl-record-$record_pid-app.monitor"
		STARTED_PID=$record_pid
	fi
	wait_exit "$STARTED_PID" $((SECONDS_RECORDED * 3 + 60))
	[ "$EXIT_STATUS" = 0 ] || fail "wl-record exited $EXIT_STATUS"
	kill -TERM -- "-$clock_pid" 2>/dev/null
	wait_until 10 "the watching recorder to stop" eval '! group_alive "$clock_pid"'
	cp "$TEST_DIR/record$n.log" "$TEST_DIR/record.log"
	grep -E "audio" "$TEST_DIR/record.log" | sed "s/^/$TEST_NAME: /"
	local span
	span=$(python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))
print(s["start_monotonic_ns"], s["start_monotonic_ns"] + int(s["duration_s"] * 1e9))' \
		"$TEST_DIR/stats.json") || fail "no start time in the --stats-fd summary"
	python3 "$(dirname "$CHECK")/server-clock.py" loss "$clock" $span >"$clock.loss" ||
		fail "cannot tell whether the server kept time: $(cat "$clock.loss")"
	sed "s/^/$TEST_NAME: /" "$clock.loss" | grep -v lost-ms
	server_ok=1
	if [ "$(awk '$1 == "lost-ms" { print int($2) }' "$clock.loss")" -ge 30 ]; then
		log "attempt $n: the server lost 30 ms or more of its timeline"
		server_ok=0
	fi
	python3 "$(dirname "$CHECK")/server-clock.py" span "$clock" $span "$clock.span.wav" ||
		fail "cannot cut the server's sound to the recording"
	python3 "$CHECK" --strict --audio-only "$clock.span.wav" pcm_s16le 440 >"$clock.check" 2>&1 || {
		sed "s/^/$TEST_NAME: the server's own sound: /" "$clock.check" | grep -E "strict|FAIL"
		log "attempt $n: the sound the server played has a hole or a discontinuity of its own"
		server_ok=0
	}
}

# A server that stalled (a graph that ran late on a loaded machine, seen
# now and then with both cores busy: its timeline lost, which wl-record
# rightly fills with silence to stay in sync, or a player's stream not
# mixed in time, a hole in what the sink played) cannot show whether
# wl-record makes holes: that recording is not judged, and another is
# made, three at most. One during which the server kept time and played
# the tone whole, as another recorder heard it, is judged strictly.
attempt=1
while :; do
	record "$attempt"
	[ "$server_ok" = 0 ] || break
	# Not wl-record's failure, and nothing of wl-record's was judged.
	[ "$attempt" -lt 3 ] ||
		skip "the test's sound server stalled in each of 3 recordings (another recorder" \
			"heard it): the machine is too loaded for its server to keep time"
	log "attempt $attempt: not judged (the server's fault, seen by another recorder): recording again"
	attempt=$((attempt + 1))
done
# The load ran all along: compiles done during the recordings.
compiles=$(cat "$TEST_DIR"/load*.count | wc -l)
log "load: $cores compiler loops, $compiles compiles done, load average $(cut -d' ' -f1-3 /proc/loadavg)"
stop_all
python3 "$CHECK" --strict --min-tone=$((SECONDS_RECORDED - 2)) "$out" "$codec" 440 \
	>"$TEST_DIR/strict.txt" 2>&1
strict_status=$?
cat "$TEST_DIR/strict.txt"
[ "$strict_status" = 0 ] || fail "the tone in $out has a hole or a discontinuity"
# Where the tone starts in the file: with --app-audio the command starts
# playing a moment after the recording, and a gap the server left before
# that (its new sink's graph starting late on a loaded machine, seen once
# as 20 ms) is rightly filled with silence. --strict proved the tone has
# no hole from its start on, so silence is allowed only as long as the
# stretch before it; with --audio the tone played before the recording
# began and no silence at all is allowed.
tone_start=$(sed -n 's/^strict continuity: the tone .* from \([0-9.]*\) s to .*/\1/p' \
	"$TEST_DIR/strict.txt")
[ -n "$tone_start" ] || fail "audio-check.py --strict did not say where the tone starts"
[ "$option" = app-audio ] || tone_start=0
log_has record " s of gaps filled with silence, 0\\.00 s dropped, 0 re-anchors$" ||
	fail "the summary counts drops or re-anchors in a tone that played throughout"
python3 - "$TEST_DIR/stats.json" "$codec" "$SECONDS_RECORDED" "$tone_start" <<'PY' ||
import json, sys
s = json.load(open(sys.argv[1]))
print("summary: audio_encoder %s, audio_s %s, audio_silence_s %s, duration_s %s"
      % (s["audio_encoder"], s["audio_s"], s["audio_silence_s"], s["duration_s"]))
assert s["audio_encoder"] == {"opus": "libopus", "aac": "aac"}[sys.argv[2]]
assert float(sys.argv[3]) - 2 < s["audio_s"] <= s["duration_s"] + 0.1, s["audio_s"]
# Not a sample of silence put in (the log line rounds to 10 ms), but for
# --app-audio what fits before the command's tone starts.
tone_start = float(sys.argv[4])
if tone_start == 0:
    assert s["audio_silence_s"] == 0, s["audio_silence_s"]
else:
    assert s["audio_silence_s"] < tone_start, (s["audio_silence_s"], tone_start)
    if s["audio_silence_s"]:
        print("summary: %.3f s of silence, all before the tone starts at %.3f s"
              % (s["audio_silence_s"], tone_start))
PY
	fail "the --stats-fd summary is wrong (silence in the tone, or counts)"
pass
