#!/bin/bash
# A variable-frame-rate recording with audio in a real player: ffplay (SDL
# with its offscreen video and disk audio drivers, so no display or sound
# card is needed) plays it to the end with audio and video in step. The
# screen changes at irregular times with a still stretch of 1.5 s in the
# middle, the VFR case players get wrong when a file's timestamps are.
#   player.sh mkv|mp4
. "$TEST_LIB"
. "$(dirname "$TEST_LIB")/../audio/audio-lib.sh"
CHECK=$(dirname "$TEST_LIB")/../audio/audio-check.py
container=${1:?mkv or mp4}
codec=$([ "$container" = mp4 ] && echo aac || echo opus)
require_commands ffplay

start_audio_server
write_sine "$TEST_DIR/tone.wav" 440 20
start paplay paplay "$TEST_DIR/tone.wav"
wait_until 10 "paplay's stream" playing_to_sink

out="$TEST_DIR/out.$container"
steps=000000@0,ff0000@100,00ff00@350,0000ff@400,ffffff@1900,ff00ff@2000,00ffff@2700
start record "$WL_RECORD" -v --audio --duration 4 "$out" -- \
	"$PRESENTER" --size 320x240 --colour-steps "$steps" --hold-ms 20000
wait_exit "$STARTED_PID" 30
[ "$EXIT_STATUS" = 0 ] || fail "wl-record exited $EXIT_STATUS"
python3 "$CHECK" --continuous "$out" "$codec" 440 || fail "the audio of $out is wrong"
frames=$(ffprobe -v error -select_streams v:0 -count_frames -show_entries stream=nb_read_frames \
	-of csv=p=0 "$out")
[ "$frames" -ge 7 ] && [ "$frames" -le 20 ] ||
	fail "$frames video frames in $out: not the variable rate asked (7 changes)"

# -stats prints "TIME A-V: DIFF ..." as it plays; the clock is the audio's.
SDL_VIDEODRIVER=offscreen SDL_AUDIODRIVER=disk SDL_DISKAUDIOFILE="$TEST_DIR/played.raw" \
	timeout 30 ffplay -autoexit -stats -loglevel info "$out" >"$TEST_DIR/ffplay.log" 2>&1
status=$?
[ "$status" = 0 ] || { cat "$TEST_DIR/ffplay.log" >&2; fail "ffplay exited $status on $out"; }
tr '\r' '\n' <"$TEST_DIR/ffplay.log" | python3 -c '
import re, sys
duration = float(sys.argv[1])
times, diffs = [], []
for line in sys.stdin:
    m = re.match(r"\s*(-?[0-9.]+) A-V:\s*(-?[0-9.]+|nan)", line)
    if m:
        times.append(float(m.group(1)))
        # Its first half second is the player settling its clocks (seen:
        # 66 ms at 0.02 s falling to 1 ms on a file whose first frame is
        # held 100 ms): not the file.
        if m.group(2) != "nan" and times[-1] >= 0.5:
            diffs.append(abs(float(m.group(2))))
if not diffs:
    sys.exit("ffplay reported no A-V figure")
print(f"played to {max(times):.2f} s of {duration:.2f}; |A-V| max {max(diffs) * 1000:.0f} ms "
      f"over {len(diffs)} reports")
# A player that lost sync shows hundreds of ms; ffplay itself keeps within
# a frame or two. It must also have played the whole file.
if max(diffs) > 0.1:
    sys.exit("audio and video drifted apart in the player")
if max(times) < duration - 0.5:
    sys.exit("the player stopped before the end")
' "$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$out")" ||
	fail "ffplay did not play $out in sync to its end"
[ -s "$TEST_DIR/played.raw" ] || fail "ffplay played no audio"
pass
