#!/bin/bash
# wl-record SIGKILLed mid-recording (no chance to write a trailer): the MKV
# and the fragmented MP4 must still decode up to the last cluster/fragment
# written, and what is lost is measured: frames the presenter committed
# before the kill that the file does not hold. The muxer closes a Matroska
# cluster or an MP4 fragment at least every second, so about a second (plus
# what the encoder had queued) is the most that may be lost; the test allows
# 2 s of frames and prints the figure.
. "$TEST_LIB"
require_commands ffprobe

INTERVAL=40        # 25 frames per second
MAX_LOST_S=2

kill_case() { # CONTAINER EXTENSION
	local container=$1 ext=$2 file=$TEST_DIR/killed.$2
	log "case $container: SIGKILL after ~3.5 s of 25 fps"
	start wl-record-$ext "$WL_RECORD" --size 320x240 --socket kill-$ext "$file"
	local server=$STARTED_PID
	wait_until 5 "wl-record to listen" socket_exists kill-$ext
	WAYLAND_DISPLAY=kill-$ext start presenter-$ext "$PRESENTER" --size 320x240 --frames 1000 \
		--interval-ms $INTERVAL --times "$TEST_DIR/$ext.times"
	local client=$STARTED_PID
	sleep 3.5
	kill -KILL "$server"
	wait_exit "$server" 5
	[ "$EXIT_STATUS" -eq 137 ] || fail "wl-record exited $EXIT_STATUS, not by SIGKILL"
	wait_exit "$client" 10 # it sees the server vanish and writes its times
	local committed decoded lost_ms
	committed=$(wc -l <"$TEST_DIR/$ext.times")
	[ "$committed" -ge 50 ] || fail "the presenter committed only $committed frames"
	decoded=$(ffprobe -v error -count_frames -select_streams v:0 \
		-show_entries stream=nb_read_frames -of csv=p=0 "$file" 2>"$TEST_DIR/$ext.ffprobe") ||
		fail "ffprobe cannot read the killed $file: $(cat "$TEST_DIR/$ext.ffprobe")"
	decoded=${decoded//[^0-9]/}
	[ -n "$decoded" ] && [ "$decoded" -ge 1 ] || fail "the killed $file holds no frame"
	# Every frame decoded must be the one presented (no garbage at the cut).
	"$VIDEO_CHECK" "$file" --size 320x240 --pattern --min-psnr 30 --container "$container" \
		>"$TEST_DIR/$ext.check" 2>&1 || { cat "$TEST_DIR/$ext.check"; fail "$file holds wrong frames"; }
	lost_ms=$(( (committed - decoded) * INTERVAL ))
	log "$container: $committed frames committed before the kill, $decoded in the file: lost $lost_ms ms ($(stat -c %s "$file") bytes)"
	[ "$lost_ms" -le $((MAX_LOST_S * 1000)) ] ||
		fail "$container lost $lost_ms ms of frames to SIGKILL (allowed ${MAX_LOST_S}000 ms)"
}

kill_case matroska mkv
kill_case mp4 mp4
pass
