#!/bin/bash
# The presenting client SIGKILLed in the middle of its frames: wl-record
# sees the connection drop, finishes the recording (exit 0, complete file
# with its trailer and duration), and every frame in it is a presented one.
. "$TEST_LIB"

for ext in mkv mp4; do
	file=$TEST_DIR/presenter-killed.$ext
	log "case $ext: presenter killed after ~2 s of 25 fps"
	start wl-record-$ext "$WL_RECORD" --size 320x240 --socket kp-$ext --stats-fd 3 "$file" \
		3>"$file.stats.json"
	server=$STARTED_PID
	wait_until 5 "wl-record to listen" socket_exists kp-$ext
	WAYLAND_DISPLAY=kp-$ext start presenter-$ext "$PRESENTER" --size 320x240 --frames 1000 \
		--interval-ms 40
	client=$STARTED_PID
	sleep 2
	kill -KILL "$client"
	wait_exit "$client" 5
	wait_exit "$server" 15
	[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record exited $EXIT_STATUS after its presenter was killed"
	log_has wl-record-$ext "presenting client disconnected" ||
		fail "wl-record did not say the presenter went away"
	container=matroska
	[ $ext = mp4 ] && container=mp4
	# How many commits reached wl-record before the kill is not known, but
	# each one between the first and the last recorded is in the file or
	# reported replaced (--stats).
	"$VIDEO_CHECK" "$file" --size 320x240 --min-frames 20 --pattern --end-repeat --min-psnr 30 \
		--container $container --stats "$file.stats.json" >"$TEST_DIR/$ext.check" 2>&1 ||
		{ cat "$TEST_DIR/$ext.check"; fail "$file does not hold the presented frames"; }
	ffprobe_check "$file"
done
pass
