#!/bin/bash
# The disk fills up mid-recording: `ulimit -f` (EFBIG, SIGXFSZ ignored) and,
# where this user may mount one, a 256 KiB tmpfs (ENOSPC). Each time: one
# clear error line, exit status 1, and the file decodes up to the failure.
. "$TEST_LIB"
require_commands ffprobe
require_file_size_limit 128

# record_until_full NAME FILE [ulimit -f KiB]: a full-motion presenter at
# 640x480 until wl-record gives up.
record_until_full() {
	local name=$1 file=$2 limit=${3:-}
	if [ -n "$limit" ]; then
		start $name bash -c 'ulimit -f "$1"; shift; exec "$@"' _ "$limit" \
			"$WL_RECORD" --size 640x480 --socket $name "$file"
	else
		start $name "$WL_RECORD" --size 640x480 --socket $name "$file"
	fi
	local server=$STARTED_PID
	wait_until 5 "wl-record to listen" socket_exists $name
	WAYLAND_DISPLAY=$name start presenter-$name "$PRESENTER" --size 640x480 --frames 3000 \
		--interval-ms 20
	local client=$STARTED_PID
	wait_exit "$server" 60
	[ "$EXIT_STATUS" -eq 1 ] || fail "$name: wl-record exited $EXIT_STATUS when the file could not grow; expected 1"
	kill "$client" 2>/dev/null
	local errors
	errors=$(grep -c -E -i 'error|cannot|fail|too large|no space' "$TEST_DIR/$name.log")
	log "$name: wl-record said: $(grep -E -i 'error|cannot|fail|too large|no space' "$TEST_DIR/$name.log" | tr '\n' '|')"
	[ "$errors" -ge 1 ] || fail "$name: wl-record gave no error"
	[ "$errors" -le 3 ] || { cat "$TEST_DIR/$name.log"; fail "$name: $errors error lines; expected one clear one"; }
	local frames
	frames=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries \
		stream=nb_read_frames -of csv=p=0 "$file" 2>"$TEST_DIR/$name.ffprobe") ||
		fail "$name: ffprobe cannot read $file: $(cat "$TEST_DIR/$name.ffprobe")"
	frames=${frames//[^0-9]/}
	[ -n "$frames" ] && [ "$frames" -ge 1 ] || fail "$name: $file holds no frame"
	log "$name: $(stat -c %s "$file") bytes, $frames frames decode"
}

record_until_full fsize-mkv "$TEST_DIR/limited.mkv" 128
record_until_full fsize-mp4 "$TEST_DIR/limited.mp4" 128

mkdir "$TEST_DIR/small"
if mount -t tmpfs -o size=256k,mode=0700 tmpfs "$TEST_DIR/small" 2>/dev/null; then
	at_exit 'umount "$TEST_DIR/small" 2>/dev/null'
	record_until_full full-mkv "$TEST_DIR/small/full.mkv"
	cp "$TEST_DIR/small/full.mkv" "$TEST_DIR/full-copy.mkv"
	umount "$TEST_DIR/small"
else
	log "cannot mount a tmpfs here: the full-disk case is not run"
fi
pass
