#!/bin/bash
# A hole of the source's own is said where it is, and is not counted as a
# gap of wl-record's: the desktop plays a 440 Hz tone with 5 ms of exact
# zeros every 0.5 s (what a server writes for a stream when it fills a
# quantum it lost); wl-record -v records it in FLAC (lossless: the file's
# samples can be read at the place said). Each "of digital silence in the
# source's sound at T s" line must say 5 ms (+-0.5), the file must be near
# silent in the middle 2.5 ms from T (below 2 % of the tone's RMS) and
# hold the tone around it, at least 4 of the recording's 6 holes must be
# said, none of them as a gap of wl-record's too (issue 30: an hour's
# soak found two such holes that no count of wl-record's could place), and
# audio-check.py --strict must find a break within 30 ms of each (the
# window in which server-clock.py explain puts a break down to zeros
# said). A loaded server may add holes of its own: they are not judged
# here.
. "$TEST_LIB"
. "$(dirname "$TEST_LIB")/../audio/audio-lib.sh"

start_audio_server
python3 - "$TEST_DIR/holes.wav" <<'PY'
import math, struct, sys, wave
with wave.open(sys.argv[1], "wb") as w:
    w.setnchannels(2)
    w.setsampwidth(2)
    w.setframerate(48000)
    frames = bytearray()
    for i in range(48000 * 20):
        v = 0 if i % 24000 >= 23760 else int(12000 * math.sin(2 * math.pi * 440 * i / 48000))
        frames += struct.pack("<hh", v, v)
    w.writeframes(bytes(frames))
PY
start paplay paplay "$TEST_DIR/holes.wav"
wait_until 10 "paplay's stream" playing_to_sink

out="$TEST_DIR/out.mkv"
start record "$WL_RECORD" -v --audio --audio-codec flac --duration 3 "$out" -- \
	"$PRESENTER" --frames 100000 --interval-ms 50
wait_exit "$STARTED_PID" 30
[ "$EXIT_STATUS" = 0 ] || fail "wl-record exited $EXIT_STATUS"
grep -E "audio" "$TEST_DIR/record.log" | sed "s/^/$TEST_NAME: /"
grep -oE "[0-9.]+ ms of digital silence in the source's sound at [0-9.]+ s" "$TEST_DIR/record.log" \
	>"$TEST_DIR/said.txt" || fail "no hole of the source's was said"
python3 - "$out" "$TEST_DIR/said.txt" "$TEST_DIR/record.log" <<'PY' || fail "the holes said are not the file's"
import array, math, re, subprocess, sys
pcm = subprocess.run(["ffmpeg", "-v", "error", "-i", sys.argv[1], "-map", "0:a:0", "-f", "s16le",
                      "-ac", "1", "-ar", "48000", "-"], check=True, capture_output=True).stdout
mono = array.array("h")
mono.frombytes(pcm[:len(pcm) // 2 * 2])
def rms(a, b):
    part = mono[max(a, 0):min(b, len(mono))]
    return math.sqrt(sum(x * x for x in part) / len(part)) if part else 0.0
said = [line.split() for line in open(sys.argv[2])]
gaps = [float(m.group(1)) for m in re.finditer(r"ms of silence at ([0-9.]+) s", open(sys.argv[3]).read())]
tone = 12000 / math.sqrt(2)
ok = True
for words in said:
    ms, at = float(words[0]), float(words[-2])
    start = round(at * 48000)
    inside = rms(start + 60, start + 180)
    around = min(rms(start - 480, start - 120), rms(start + 360, start + 720))
    print("said: %.1f ms at %.4f s; in the file there: %.1f %% of the tone, around it %.0f %%"
          % (ms, at, 100 * inside / tone, 100 * around / tone))
    if not 4.5 <= ms <= 5.5 or inside > 0.02 * tone or around < 0.5 * tone:
        ok = False
    if any(abs(g - at) < 0.01 for g in gaps):
        print("the hole at %.4f s is counted as a gap of wl-record's too" % at)
        ok = False
if len(said) < 4:
    print("only %d holes said; the recording holds about 6" % len(said))
    ok = False
sys.exit(0 if ok else 1)
PY
# The loaded-tone tests excuse a break of the file's tone within
# EXPLAIN_ZEROS_S of zeros said (server-clock.py explain): each hole said
# must be one such break.
python3 "$(dirname "$TEST_LIB")/../audio/audio-check.py" --strict "$out" flac 440 \
	>"$TEST_DIR/strict.txt" 2>&1 && fail "audio-check.py --strict found no break in the tone"
python3 - "$TEST_DIR/strict.txt" "$TEST_DIR/said.txt" "$(dirname "$TEST_LIB")/../audio/server-clock.py" \
	<<'PY' || fail "a hole said is not where the tone breaks"
import importlib.util, sys
spec = importlib.util.spec_from_file_location("server_clock", sys.argv[3])
server_clock = importlib.util.module_from_spec(spec)
spec.loader.exec_module(server_clock)
window = server_clock.EXPLAIN_ZEROS_S
breaks = []
for line in open(sys.argv[1]):
    if line.startswith("strict-defects"):
        breaks = [float(v) for v in line.split()[2:]]
for words in map(str.split, open(sys.argv[2])):
    at = float(words[-2])
    near = [b for b in breaks if abs(b - at) <= window]
    print("said at %.3f s: the tone breaks at %s" % (at, near[0] if near else
                                                     "no place within %g s" % window))
    if not near:
        sys.exit(1)
PY
pass
