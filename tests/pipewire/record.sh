#!/bin/bash
# --capture pipewire=NAME records our producer's node for ~2 s, stopped by
# SIGINT; check.py decodes the file. MODE: memfd (BGRx in MemFd buffers),
# dmabuf-rgbx (RGBx in sealed memfds offered as LINEAR DmaBuf), timestamps
# (odd frames queued 60 ms after their pts: the file must follow the
# Header pts), damage (a damage that leaves out a half that changed: it is
# honoured), crop, cursor, no-cursor, cursor-moves (buffers that only
# move the cursor), still (the producer stops sending:
# the file still ends at the stop).
. "$TEST_LIB"
. "$(dirname "$0")/pipewire-lib.sh"
mode=${1:?MODE}
CHECK=$(dirname "$0")/check.py

producer_args=()
record_args=()
case $mode in
memfd) ;;
dmabuf-rgbx) producer_args=(--dmabuf --format RGBx) ;;
timestamps) producer_args=(--delay-odd-ms 60) ;;
damage) producer_args=(--lie-damage) ;;
crop) producer_args=(--crop) ;;
cursor) producer_args=(--cursor) ;;
no-cursor) producer_args=(--cursor) record_args=(--no-cursor) ;;
cursor-moves) producer_args=(--cursor --cursor-only-after 10) ;;
still) producer_args=(--still-after 8) ;;
*) fail "unknown mode $mode" ;;
esac

start_pipewire
start producer "$PRODUCER" wlr-test-video "${producer_args[@]}"
wait_until 10 "the producer's node" node_exists wlr-test-video

out="$TEST_DIR/out.mkv"
start record "$WL_RECORD" -v --capture pipewire=wlr-test-video "${record_args[@]}" "$out"
record_pid=$STARTED_PID
wait_until 15 "the producer's first frames" producer_frames 3
sleep 2
stop_ns=$(monotonic_ns)
kill -INT "$record_pid"
wait_exit "$record_pid" 15
[ "$EXIT_STATUS" = 0 ] || fail "wl-record exited $EXIT_STATUS"
log_has record "PipeWire stream: " || fail "no line about the stream's format"
grep "PipeWire stream: " "$TEST_DIR/record.log" | sed "s/^/$TEST_NAME: /"
if [ "$mode" = dmabuf-rgbx ]; then
	log_has record "PipeWire stream: 320x240 RGBx in LINEAR dmabufs" ||
		fail "the stream was not negotiated as RGBx in LINEAR dmabufs"
fi
python3 "$CHECK" "$out" "$TEST_DIR/producer.log" "$mode" --stop-ns "$stop_ns" ||
	fail "$out is not what the producer sent"
pass
