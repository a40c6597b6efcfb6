#!/bin/bash
# wl-record recording the desktop it runs in: sway 1.7 headless (Debian 12,
# pixman renderer) with a fullscreen client showing known frames, recorded
# through wlr-screencopy with no source given (WAYLAND_DISPLAY is sway's).
# Checked by decoding: the recorded frames are the client's frames in order
# (none repeated, none from the past), timestamps increase, the PNG is
# exactly the client's last frame; SIGINT and --duration finish playable
# files, so does the Mod4+R hotkey of examples/sway.config pressed twice
# (--toggle), --snap is exact; a second output is not the one recorded
# unless -o names it (an unknown name lists the names), --list-outputs
# lists both; -g records exactly that part of the screen, at scale 1 and 2,
# and a region spanning outputs is refused; a turned output is recorded
# upright (90, 180, 270, mirrored panels); an output disabled while it is
# recorded leaves a file that lasts until the stop; sway killed
# mid-recording still leaves a playable file and a failure status with a
# clear message.
. "$TEST_LIB"
. "$SWAY_LIB"
: "${PATTERN_CLIENT:?PATTERN_CLIENT must point at tests/screencopy/pattern-client}"
: "${EXAMPLES:?EXAMPLES must point at the examples folder}"
require_commands sway

SIZE=640x480
FRAMES=60
cat >"$TEST_DIR/sway.conf" <<CONF
output HEADLESS-1 mode $SIZE
default_border none
xwayland disable
CONF
# sway refuses to run as root: everything that talks to it runs as 'nobody'
# (the recorder must reach sway's socket, so it runs as that user too).
start_sway "$TEST_DIR/sway.conf"

start client "${as_user[@]}" "$PATTERN_CLIENT" --size $SIZE --frames $FRAMES --interval-ms 50
CLIENT_PID=$STARTED_PID
wait_until 20 "the client's first frame" log_has client "^ready $SIZE"
# The frame callback does not prove sway shows the frame yet (on a loaded
# machine its first composed frame was still the empty desktop, and the
# recording began with it): wait until a still of the desktop is frame 0.
shows_first_frame() {
	timeout 30 "${as_user[@]}" "$WL_RECORD" --screenshot -y "$USER_DIR/first.png" \
		>"$TEST_DIR/first-shot.log" 2>&1 &&
		"$PNG_CHECK" "$USER_DIR/first.png" --size $SIZE --pattern 0 >/dev/null
}
wait_until 30 "sway showing the client's frame 0" shows_first_frame

# 1. A recording with no source given, stopped by SIGINT.
start record "${as_user[@]}" "$WL_RECORD" -v "$USER_DIR/desktop.mkv"
RECORD_PID=$STARTED_PID
wait_until 20 "the choice of screencopy" log_has record \
	"recording HEADLESS-1 \\($SIZE\\) on WAYLAND_DISPLAY=$DISPLAY_NAME via wlr-screencopy"
log_has record "WAYLAND_DISPLAY=$DISPLAY_NAME offers wlr-screencopy" || fail "no reason given"
# The first copy (pattern frame 0) is the video's first frame; then the
# client moves on.
sleep 0.5
kill -USR1 "$CLIENT_PID"
wait_until 30 "the client's last frame" log_has client '^done'
sleep 0.5
# --snap: a still of the picture being recorded, exactly the client's.
snap=$(timeout 30 "${as_user[@]}" "$WL_RECORD" --snap 2>"$TEST_DIR/snap.log") ||
	{ status=$?; cat "$TEST_DIR/snap.log"; fail "--snap exited $status"; }
"$PNG_CHECK" "$snap" --size $SIZE --pattern $((FRAMES - 1)) ||
	fail "the still --snap printed ($snap) is not the client's last frame"
kill -INT "$RECORD_PID"
wait_exit "$RECORD_PID" 30
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record stopped by SIGINT exited $EXIT_STATUS"
ffprobe_check "$USER_DIR/desktop.mkv"
# Every recorded frame is a client frame later than the one before (a
# frame recorded twice, or out of order, fails); a loaded machine may miss
# a few of the 60, never most of them.
"$VIDEO_CHECK" "$USER_DIR/desktop.mkv" --size $SIZE --pattern --end-repeat --min-frames 30 \
	--max-frames $FRAMES --min-duration-ms 2000 >"$TEST_DIR/check-desktop.log" 2>&1 ||
	{ cat "$TEST_DIR/check-desktop.log"; fail "the recording is not the client's frames"; }
log "$(tr '\n' ' ' <"$TEST_DIR/check-desktop.log")"

# 2. A screenshot: exactly the client's last frame.
timeout 30 "${as_user[@]}" "$WL_RECORD" --screenshot "$USER_DIR/desktop.png" \
	>"$TEST_DIR/shot.log" 2>&1 || { status=$?; cat "$TEST_DIR/shot.log"; fail "--screenshot exited $status"; }
"$PNG_CHECK" "$USER_DIR/desktop.png" --size $SIZE --pattern $((FRAMES - 1)) ||
	fail "the PNG is not the client's last frame"

# same_pixels A.png B.png X Y W H: B is exactly the W x H part of A at X,Y.
same_pixels() {
	local raw=(-f rawvideo -pix_fmt rgb24 -)
	cmp -s <(ffmpeg -v error -i "$1" -vf "crop=$5:$6:$3:$4" "${raw[@]}") \
		<(ffmpeg -v error -i "$2" "${raw[@]}")
}
# png_size FILE: its WxH.
png_size() {
	ffprobe -v error -select_streams v:0 -show_entries stream=width,height -of csv=s=x:p=0 "$1"
}

# 2b. The outputs, and -g: a still and a video of a region, in logical
# coordinates (scale 1 here), exactly that part of the client's frame.
"${as_user[@]}" "$WL_RECORD" --list-outputs >"$TEST_DIR/outputs.txt" 2>"$TEST_DIR/outputs.err" ||
	{ status=$?; cat "$TEST_DIR/outputs.err"; fail "--list-outputs exited $status"; }
grep -q -E "^HEADLESS-1  ${SIZE}@[0-9.]+Hz  scale 1  logical 0,0 $SIZE\$" "$TEST_DIR/outputs.txt" &&
	[ "$(wc -l <"$TEST_DIR/outputs.txt")" -eq 1 ] ||
	fail "--list-outputs: $(cat "$TEST_DIR/outputs.txt")"
timeout 30 "${as_user[@]}" "$WL_RECORD" -v --screenshot -g "100,50 200x120" "$USER_DIR/region.png" \
	>"$TEST_DIR/region.log" 2>&1 || { status=$?; cat "$TEST_DIR/region.log"; fail "-g --screenshot exited $status"; }
grep -q "taking a still of the region 100,50 200x120 of HEADLESS-1 ($SIZE)" "$TEST_DIR/region.log" ||
	{ cat "$TEST_DIR/region.log"; fail "-g: the status line does not name the region"; }
[ "$(png_size "$USER_DIR/region.png")" = 200x120 ] ||
	fail "-g 200x120 made a $(png_size "$USER_DIR/region.png") picture"
same_pixels "$USER_DIR/desktop.png" "$USER_DIR/region.png" 100 50 200 120 ||
	fail "-g 100,50 200x120 is not that part of the screen"
timeout 30 "${as_user[@]}" "$WL_RECORD" -g "8,16 320x240" --duration 1 "$USER_DIR/region.mkv" \
	>"$TEST_DIR/region-video.log" 2>&1 || { status=$?; cat "$TEST_DIR/region-video.log"; fail "-g video exited $status"; }
"$VIDEO_CHECK" "$USER_DIR/region.mkv" --size 320x240 --min-frames 1 >/dev/null ||
	fail "the -g 320x240 video is not 320x240"
# Past the desktop's edge (one output here): refused, status 2, one line.
timeout 30 "${as_user[@]}" "$WL_RECORD" -g "600,400 100x100" "$USER_DIR/beyond.mkv" \
	>"$TEST_DIR/beyond.log" 2>&1
status=$?
[ "$status" -eq 2 ] && [ "$(wc -l <"$TEST_DIR/beyond.log")" -eq 1 ] &&
	grep -q "reaches outside HEADLESS-1 (0,0 $SIZE)$" "$TEST_DIR/beyond.log" ||
	{ cat "$TEST_DIR/beyond.log"; fail "-g past the edge: exit $status"; }
[ ! -e "$USER_DIR/beyond.mkv" ] || fail "-g past the edge left a file"
# An unknown -o: exit 1, one line naming the outputs there are.
timeout 30 "${as_user[@]}" "$WL_RECORD" -o NOPE-7 "$USER_DIR/nope.mkv" >"$TEST_DIR/nope.log" 2>&1
status=$?
[ "$status" -eq 1 ] && [ "$(wc -l <"$TEST_DIR/nope.log")" -eq 1 ] &&
	grep -q "no output named 'NOPE-7'; there are: HEADLESS-1$" "$TEST_DIR/nope.log" ||
	{ cat "$TEST_DIR/nope.log"; fail "-o NOPE-7: exit $status"; }

# 3. A still screen and --duration, with a second output added: the first
# output advertised is recorded; the copy waits for damage that never
# comes (near-zero CPU: a loop polling the compositor would spend the whole
# 3 s), the file still ends on time with the one picture.
"${as_user[@]}" SWAYSOCK="$SWAYSOCK" swaymsg create_output >"$TEST_DIR/swaymsg.log" 2>&1 ||
	{ cat "$TEST_DIR/swaymsg.log"; fail "swaymsg create_output failed"; }
timed=()
[ -x /usr/bin/time ] && timed=(/usr/bin/time -o "$USER_DIR/still.time" -f "%U %S")
timeout 30 "${as_user[@]}" "${timed[@]}" "$WL_RECORD" --capture screencopy --duration 3 \
	"$USER_DIR/still.mkv" >"$TEST_DIR/still.log" 2>&1 ||
	{ status=$?; cat "$TEST_DIR/still.log"; fail "--duration on a still screen exited $status"; }
if [ -s "$USER_DIR/still.time" ]; then
	cpu=$(awk '{ printf "%.2f", $1 + $2 }' "$USER_DIR/still.time")
	log "CPU for 3 s of a still screen: $cpu s"
	awk -v c="$cpu" 'BEGIN { exit !(c < 1.0) }' || fail "a still screen cost $cpu s of CPU in 3 s"
else
	log "/usr/bin/time not installed: CPU on a still screen not checked"
fi
grep -q "recording HEADLESS-1 ($SIZE) " "$TEST_DIR/still.log" &&
	grep -q "the first of 2 outputs: -o NAME picks another" "$TEST_DIR/still.log" || { cat "$TEST_DIR/still.log"; fail "not the first output, or not said"; }
ffprobe_check "$USER_DIR/still.mkv"
# One picture (no damage after the first copy), and a file as long as the
# recording, not cut at that picture.
"$VIDEO_CHECK" "$USER_DIR/still.mkv" --size $SIZE --min-frames 1 --max-frames 2 \
	--min-duration-ms 2500 >"$TEST_DIR/check-still.log" 2>&1 ||
	{ cat "$TEST_DIR/check-still.log"; fail "the still recording is wrong"; }

# 3b. Two outputs: both listed; -o picks the second (sway's background, not
# the client); a region spanning both is refused.
"${as_user[@]}" "$WL_RECORD" --list-outputs >"$TEST_DIR/outputs2.txt" 2>&1 ||
	{ status=$?; cat "$TEST_DIR/outputs2.txt"; fail "--list-outputs with 2 outputs exited $status"; }
[ "$(wc -l <"$TEST_DIR/outputs2.txt")" -eq 2 ] && grep -q "^HEADLESS-1 " "$TEST_DIR/outputs2.txt" &&
	grep -q "^HEADLESS-2 " "$TEST_DIR/outputs2.txt" ||
	fail "--list-outputs with 2 outputs: $(cat "$TEST_DIR/outputs2.txt")"
read -r second_x second_y second_w second_h < <(sed -n \
	's/^HEADLESS-2 .*logical \(-\{0,1\}[0-9]*\),\(-\{0,1\}[0-9]*\) \([0-9]*\)x\([0-9]*\)$/\1 \2 \3 \4/p' \
	"$TEST_DIR/outputs2.txt")
[ -n "$second_h" ] || fail "no logical box for HEADLESS-2: $(cat "$TEST_DIR/outputs2.txt")"
timeout 30 "${as_user[@]}" "$WL_RECORD" -o HEADLESS-2 --screenshot "$USER_DIR/second.png" \
	>"$TEST_DIR/second.log" 2>&1 || { status=$?; cat "$TEST_DIR/second.log"; fail "-o HEADLESS-2 exited $status"; }
grep -q "taking a still of HEADLESS-2 " "$TEST_DIR/second.log" || { cat "$TEST_DIR/second.log"; fail "-o HEADLESS-2 not said"; }
grep -q "the first of" "$TEST_DIR/second.log" && fail "-o HEADLESS-2 still says the first was taken"
[ "$(png_size "$USER_DIR/second.png")" = "${second_w}x$second_h" ] ||
	fail "-o HEADLESS-2 made a $(png_size "$USER_DIR/second.png") picture, not ${second_w}x$second_h"
"$PNG_CHECK" "$USER_DIR/second.png" --size "${second_w}x$second_h" --any-pattern $FRAMES \
	>/dev/null 2>&1 && fail "-o HEADLESS-2 recorded the client's output"
# A region from the first output into the second (side by side, as sway
# places a new output).
if [ "$second_y" -eq 0 ] && [ "$second_x" -eq "${SIZE%x*}" ]; then
	timeout 30 "${as_user[@]}" "$WL_RECORD" -g "$((second_x - 50)),10 100x100" \
		"$USER_DIR/span.mkv" >"$TEST_DIR/span.log" 2>&1
	status=$?
	[ "$status" -eq 2 ] && grep -q "a region spanning outputs cannot be recorded" "$TEST_DIR/span.log" ||
		{ cat "$TEST_DIR/span.log"; fail "a region spanning outputs: exit $status"; }
	# The same size inside the second output: its own coordinates.
	timeout 30 "${as_user[@]}" "$WL_RECORD" -g "$((second_x + 10)),10 100x100" --screenshot \
		"$USER_DIR/in-second.png" >"$TEST_DIR/in-second.log" 2>&1 ||
		{ status=$?; cat "$TEST_DIR/in-second.log"; fail "a region in the second output exited $status"; }
	same_pixels "$USER_DIR/second.png" "$USER_DIR/in-second.png" 10 10 100 100 ||
		fail "a region of the second output is not that part of it"
else
	log "HEADLESS-2 is at $second_x,$second_y: the spanning region is not checked"
fi

# 4. The hotkey of examples/sway.config: sway itself runs the command bound
# to Mod4+R (exec, as a key press would): the first starts recording the
# desktop into ~/Videos, the second stops it once the file is complete.
SWAYMSG=("${as_user[@]}" SWAYSOCK="$SWAYSOCK" swaymsg)
hotkey=$(sed -n "s|^bindsym Mod4+r exec /usr/local/bin/wl-record|$WL_RECORD|p" \
	"$EXAMPLES/sway.config")
[ -n "$hotkey" ] || fail "examples/sway.config binds no wl-record command to Mod4+r"
"${as_user[@]}" mkdir "$USER_DIR/Videos"
PID_FILE=$USER_DIR/runtime/wl-record.pid
"${SWAYMSG[@]}" exec "$hotkey" >"$TEST_DIR/hotkey.log" 2>&1 ||
	{ cat "$TEST_DIR/hotkey.log"; fail "swaymsg exec of the hotkey failed"; }
wait_until 20 "the hotkey's recording" test -s "$PID_FILE"
# Stopped once it has a frame (checked below): a still is answered by the
# first frame (it lands in ~/Videos beside the recording, as a user's would).
timeout 30 "${as_user[@]}" "$WL_RECORD" --snap --pid-file "$PID_FILE" >"$TEST_DIR/hotkey-snap.log" 2>&1 ||
	{ cat "$TEST_DIR/hotkey-snap.log"; fail "no frame in the hotkey's recording"; }
"${SWAYMSG[@]}" exec "$hotkey" >>"$TEST_DIR/hotkey.log" 2>&1 ||
	{ cat "$TEST_DIR/hotkey.log"; fail "swaymsg exec of the hotkey failed"; }
wait_until 30 "the hotkey to stop the recording" test ! -e "$PID_FILE"
videos=("$USER_DIR"/Videos/*.mkv)
[ "${#videos[@]}" -eq 1 ] && [ -f "${videos[0]}" ] ||
	fail "the hotkey pressed twice left ${#videos[@]} files in ~/Videos: ${videos[*]}"
ffprobe_check "${videos[0]}"
"$VIDEO_CHECK" "${videos[0]}" --size $SIZE --min-frames 1 >/dev/null ||
	fail "the hotkey's recording does not decode"

# 4b. Scale 2: -g stays in logical coordinates, the picture has the
# output's pixels (twice as many each way).
if "${SWAYMSG[@]}" output HEADLESS-1 scale 2 >"$TEST_DIR/scale.log" 2>&1 &&
	"${as_user[@]}" "$WL_RECORD" --list-outputs 2>/dev/null | grep -q "^HEADLESS-1 .*scale 2 "; then
	sleep 0.5
	timeout 30 "${as_user[@]}" "$WL_RECORD" -o HEADLESS-1 --screenshot "$USER_DIR/scaled.png" \
		>"$TEST_DIR/scaled.log" 2>&1 || { status=$?; cat "$TEST_DIR/scaled.log"; fail "scale 2: exited $status"; }
	timeout 30 "${as_user[@]}" "$WL_RECORD" -g "20,30 100x60" --screenshot \
		"$USER_DIR/scaled-region.png" >"$TEST_DIR/scaled-region.log" 2>&1 ||
		{ status=$?; cat "$TEST_DIR/scaled-region.log"; fail "scale 2 -g: exited $status"; }
	[ "$(png_size "$USER_DIR/scaled-region.png")" = 200x120 ] ||
		fail "-g 100x60 at scale 2 made a $(png_size "$USER_DIR/scaled-region.png") picture"
	same_pixels "$USER_DIR/scaled.png" "$USER_DIR/scaled-region.png" 40 60 200 120 ||
		fail "-g 20,30 100x60 at scale 2 is not that part of the screen"
	"${SWAYMSG[@]}" output HEADLESS-1 scale 1 >/dev/null 2>&1 || fail "cannot set scale 1 again"
else
	log "swaymsg output HEADLESS-1 scale 2 did not take: scale 2 not checked ($(cat "$TEST_DIR/scale.log"))"
fi

# 4d. A turned output: sway copies it as the panel holds it (turned, the
# copy's size is the mode's); the still and -g are upright, at the output's
# logical size (a mirrored panel's picture is mirrored back: the user sees
# the desktop the right way round). sway 1.7 shows the 640x480 client on
# the 480x640 output (turned by 90 or 270) at (0,80), cut at the right; a
# picture turned the wrong way, or mirrored, fails the comparison.
# same_part A AX AY B BX BY W H: the WxH part of A at AX,AY is exactly B's
# at BX,BY.
same_part() {
	local raw=(-f rawvideo -pix_fmt rgb24 -)
	cmp -s <(ffmpeg -v error -i "$1" -vf "crop=$7:$8:$2:$3" "${raw[@]}") \
		<(ffmpeg -v error -i "$4" -vf "crop=$7:$8:$5:$6" "${raw[@]}")
}
for turn in 90 180 270 flipped flipped-90; do
	"${SWAYMSG[@]}" output HEADLESS-1 transform $turn >"$TEST_DIR/transform.log" 2>&1 ||
		{ cat "$TEST_DIR/transform.log"; fail "swaymsg output HEADLESS-1 transform $turn failed"; }
	sleep 0.5
	turned=$USER_DIR/turned-$turn.png
	timeout 30 "${as_user[@]}" "$WL_RECORD" -o HEADLESS-1 --screenshot "$turned" \
		>"$TEST_DIR/turned-$turn.log" 2>&1 ||
		{ status=$?; cat "$TEST_DIR/turned-$turn.log"; fail "transform $turn: exited $status"; }
	case $turn in
	180 | flipped)
		"$PNG_CHECK" "$turned" --size $SIZE --pattern $((FRAMES - 1)) >/dev/null ||
			fail "transform $turn: the still is not the client's frame, upright"
		continue
		;;
	esac
	[ "$(png_size "$turned")" = 480x640 ] || fail "transform $turn: a $(png_size "$turned") still"
	same_part "$USER_DIR/desktop.png" 0 0 "$turned" 0 80 480 480 ||
		fail "transform $turn: the still is not the client's frame, upright"
	# -g on the turned output: copied whole and cut (see wlr_screencopy.c).
	timeout 30 "${as_user[@]}" "$WL_RECORD" -g "10,90 200x100" --screenshot \
		"$USER_DIR/turned-region-$turn.png" >"$TEST_DIR/turned-region-$turn.log" 2>&1 ||
		{ status=$?; cat "$TEST_DIR/turned-region-$turn.log"; fail "transform $turn -g: exited $status"; }
	same_part "$turned" 10 90 "$USER_DIR/turned-region-$turn.png" 0 0 200 100 ||
		fail "transform $turn: -g 10,90 200x100 is not that part of the screen"
done
timeout 30 "${as_user[@]}" "$WL_RECORD" -o HEADLESS-1 --duration 1 "$USER_DIR/turned.mkv" \
	>"$TEST_DIR/turned-video.log" 2>&1 || { status=$?; cat "$TEST_DIR/turned-video.log"; fail "turned video exited $status"; }
"$VIDEO_CHECK" "$USER_DIR/turned.mkv" --size 480x640 --min-frames 1 >/dev/null ||
	fail "the video of the turned output is not 480x640"
"${SWAYMSG[@]}" output HEADLESS-1 transform normal >/dev/null 2>&1 || fail "cannot set transform normal again"

# 4c. The recorded output disabled mid-recording: sway 1.7 keeps its
# global and stops answering copies. The recording goes on with the last
# picture and the file ends at the stop, not at the last copy.
start record-disabled "${as_user[@]}" "$WL_RECORD" -o HEADLESS-2 "$USER_DIR/disabled.mkv"
DISABLED_PID=$STARTED_PID
wait_until 20 "the recording of HEADLESS-2" log_has record-disabled "recording HEADLESS-2 "
sleep 1
"${SWAYMSG[@]}" output HEADLESS-2 disable >"$TEST_DIR/disable.log" 2>&1 ||
	{ cat "$TEST_DIR/disable.log"; fail "swaymsg output HEADLESS-2 disable failed"; }
sleep 2
is_running "$DISABLED_PID" ||
	{ cat "$TEST_DIR/record-disabled.log"; fail "disabling the output ended the recording"; }
kill -INT "$DISABLED_PID"
wait_exit "$DISABLED_PID" 30
[ "$EXIT_STATUS" -eq 0 ] || {
	cat "$TEST_DIR/record-disabled.log"
	fail "the recording of a disabled output exited $EXIT_STATUS"
}
ffprobe_check "$USER_DIR/disabled.mkv"
"$VIDEO_CHECK" "$USER_DIR/disabled.mkv" --size "${second_w}x$second_h" --min-frames 1 \
	--min-duration-ms 2500 >"$TEST_DIR/check-disabled.log" 2>&1 ||
	{ cat "$TEST_DIR/check-disabled.log"; fail "the recording of a disabled output is cut short"; }

# 5. sway killed mid-recording: what was recorded is a playable file, and
# wl-record says why it stopped and fails.
start record-killed "${as_user[@]}" "$WL_RECORD" "$USER_DIR/killed.mkv"
KILLED_PID=$STARTED_PID
wait_until 20 "the second recording" log_has record-killed "via wlr-screencopy"
sleep 1
kill -KILL "$SWAY_PID"
wait_exit "$KILLED_PID" 30
[ "$EXIT_STATUS" -eq 1 ] || fail "wl-record exited $EXIT_STATUS when sway was killed (expected 1)"
log_has record-killed "the compositor closed the connection" ||
	fail "no clear message when sway went away"
ffprobe_check "$USER_DIR/killed.mkv"
"$VIDEO_CHECK" "$USER_DIR/killed.mkv" --size $SIZE --min-frames 1 >/dev/null ||
	fail "the recording cut by sway's end does not decode"
pass
