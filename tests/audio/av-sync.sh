#!/bin/bash
# A/V sync: wl-record --audio hosts tests/audio/flash_click, which flips its
# whole frame white and starts a click on the default sink at the same
# instants (CLOCK_MONOTONIC); in the decoded file each white frame and its
# click onset must be within one frame period (17 ms at 60 fps), less what
# the client reports as its own lateness (av-sync-check.py).
#   av-sync.sh mkv|mp4 [60fps|30fps|window] [FLASHES]
# 30fps: --fps 30, one frame period (34 ms) allowed. window: the recording
# wl-record shows its picture in a --window on a desktop (another
# wl-record, headless), as a user recording an app on their desktop does.
. "$TEST_LIB"
. "$(dirname "$TEST_LIB")/../audio/audio-lib.sh"
CHECK=$(dirname "$TEST_LIB")/../audio/av-sync-check.py
: "${FLASH_CLICK:?FLASH_CLICK must point at tests/audio/flash_click}"

container=${1:?mkv or mp4}
variant=${2:-60fps}
flashes=${3:-6}
start_audio_server
out="$TEST_DIR/out.$container"
client=("$FLASH_CLICK" --flashes "$flashes" --period-ms 700 --tone-db -27 --times "$TEST_DIR/times")
tolerance_ms=17
case $variant in
60fps)
	start record "$WL_RECORD" -v --audio "$out" -- "${client[@]}" ;;
30fps)
	tolerance_ms=34
	start record "$WL_RECORD" -v --fps 30 --audio "$out" -- "${client[@]}" ;;
window)
	start record "$WL_RECORD" -v --size 640x480 "$TEST_DIR/desktop.mkv" -- \
		"$WL_RECORD" -v --window --audio --size 320x240 "$out" -- "${client[@]}" ;;
*) fail "no variant $variant" ;;
esac
wait_exit "$STARTED_PID" 60
[ "$EXIT_STATUS" = 0 ] || fail "wl-record exited $EXIT_STATUS"
log_has record "flash_click: done" || fail "flash_click did not finish"
python3 "$CHECK" "$out" "$TEST_DIR/times" "$flashes" "$tolerance_ms" | sed "s/^/$TEST_NAME: /"
[ "${PIPESTATUS[0]}" = 0 ] || fail "audio and video of $out are out of sync"
# Under the clicks, flash_click's quiet tone (--tone-db) plays throughout:
# a lost piece of sound is a hole in it, where the clicks alone (10 ms in
# 700) would let most losses pass. Its level only: flash_click writes 5 ms
# blocks 60 ms ahead, and on a loaded machine one came late now and then
# (1 run in 26 with 2 cores busy): the server played 5 ms of silence in
# its place (the tone's phase unchanged after it), which the predictor
# sees; a 10 ms window stays above half the tone's level over it, and
# falls to nothing over a lost 10 ms chunk.
python3 "$(dirname "$CHECK")/audio-check.py" --continuous=level --ignore-louder "$out" \
	"$([ "$container" = mp4 ] && echo aac || echo opus)" 440 ||
	fail "the tone under the clicks in $out has a hole or a click"
pass
