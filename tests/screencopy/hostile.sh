#!/bin/bash
# The screencopy clients against compositors that break their protocol
# (the fakes' hostile modes): each is one clear line and, when a recording
# was under way, a finished file; never a crash.
#   wlr-ready-before-copy  fake-screencopy --ready-before-copy-at 10: a
#       `ready` for a frame wl-record has not asked to be copied yet (before,
#       a NULL buffer was read: SIGSEGV). Exit 1, one line, the 10 frames
#       before it in the file.
#   ext-modifiers  fake-ext-copy --dmabuf --bad-modifiers: a dmabuf_format
#       whose modifiers are 12 bytes, not whole 64-bit values. Before, the
#       client read 16 (two modifiers), 4 bytes past the array; that
#       over-read stays inside libwayland's allocation of the message (the
#       array, then its wl_array header), so not even ASan reports it: the
#       check is the behaviour, in every build: one line saying that format
#       is not used, and the recording goes on (into shm) to a whole file.
#   ext-huge-damage  fake-ext-copy --huge-damage-at 3: a damage rectangle
#       at INT32_MAX - 1 of INT32_MAX x INT32_MAX, whose ends overflowed an
#       int (signed overflow: undefined). Only the UBSan build
#       (scripts/test's sanitize run, halt_on_error=1) saw that, as an
#       abort; any build checks that the recording is whole.
#   ext-buffer-size  fake-ext-copy --buffer-size 2147483648x240: buffers
#       too large to be ints (the width times 4 overflowed, under UBSan an
#       abort; otherwise "no shm format wl-record reads", not the reason):
#       exit 1, one line saying the size.
. "$TEST_LIB"
: "${FAKE_SCREENCOPY:?FAKE_SCREENCOPY must point at tests/screencopy/fake-screencopy}"
: "${FAKE_EXT_COPY:?FAKE_EXT_COPY must point at tests/screencopy/fake-ext-copy}"

SIZE=320x240
# shellcheck source=tests/screencopy/fake-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/fake-lib.sh"

# ended NAME MESSAGE: wl-record (NAME.log) exited 1 saying MESSAGE once, and
# NAME.mkv holds the frames before the end.
ended() {
	local name=$1 message=$2
	[ "$STATUS" -eq 1 ] || { cat "$TEST_DIR/$name.log"; fail "$name: exit $STATUS, expected 1"; }
	[ "$(grep -c -F "$message" "$TEST_DIR/$name.log")" = 1 ] ||
		{ cat "$TEST_DIR/$name.log"; fail "$name: not once '$message'"; }
	ffprobe_check "$TEST_DIR/$name.mkv"
	"$VIDEO_CHECK" "$TEST_DIR/$name.mkv" --size $SIZE --pattern --end-repeat --min-frames 5 \
		--max-frames 11 --stats "$TEST_DIR/$name.stats.json" >/dev/null ||
		fail "$name: the frames before the end are not in the file"
	log "$name: $(grep -F "$message" "$TEST_DIR/$name.log")"
}

# record NAME [ARG...]: wl-record on the fake NAME until it ends (30 s at
# most); its exit status in STATUS.
record() {
	local name=$1
	shift
	WAYLAND_DISPLAY=$name timeout 30 "$WL_RECORD" "$@" --stats-fd 3 "$TEST_DIR/$name.mkv" \
		>"$TEST_DIR/$name.log" 2>&1 3>"$TEST_DIR/$name.stats.json"
	STATUS=$?
}

FAKE=$FAKE_SCREENCOPY
start_fake wlr-ready --frames 100 --ready-before-copy-at 10
record wlr-ready
log_has fake-wlr-ready '^early ready 10$' || fail "the fake did not send its early ready"
ended wlr-ready "the compositor sent a copy's ready before wl-record asked for the copy (a wlr-screencopy protocol error)"

# whole NAME: wl-record (NAME.log) exited 0 and NAME.mkv is the fake's frames.
whole() {
	local name=$1
	[ "$STATUS" -eq 0 ] || { cat "$TEST_DIR/$name.log"; fail "$name: exit $STATUS, expected 0"; }
	ffprobe_check "$TEST_DIR/$name.mkv"
	"$VIDEO_CHECK" "$TEST_DIR/$name.mkv" --size $SIZE --pattern --fixed-background --end-repeat \
		--commits 10 --max-frames 10 --stats "$TEST_DIR/$name.stats.json" >/dev/null ||
		fail "$name: the video is not the frames sent"
}

FAKE=$FAKE_EXT_COPY
start_fake ext-modifiers --frames 10 --dmabuf --bad-modifiers
record ext-modifiers --duration 1
whole ext-modifiers
message="the compositor's dmabuf format 0x34325258 lists 12 bytes of modifiers, not whole 64-bit values: that format is not used"
[ "$(grep -c -F "$message" "$TEST_DIR/ext-modifiers.log")" = 1 ] ||
	{ cat "$TEST_DIR/ext-modifiers.log"; fail "ext-modifiers: not once '$message'"; }
log "ext-modifiers: $message"

start_fake ext-huge-damage --frames 10 --huge-damage-at 3
record ext-huge-damage --duration 1
whole ext-huge-damage

start_fake ext-buffer-size --buffer-size 2147483648x240
record ext-buffer-size
[ "$STATUS" -eq 1 ] || { cat "$TEST_DIR/ext-buffer-size.log"; fail "ext-buffer-size: exit $STATUS, expected 1"; }
message="the compositor's buffers would be 2147483648x240 pixels: wl-record takes up to 16384x16384"
[ "$(grep -c -F "$message" "$TEST_DIR/ext-buffer-size.log")" = 1 ] ||
	{ cat "$TEST_DIR/ext-buffer-size.log"; fail "ext-buffer-size: not once '$message'"; }
log "ext-buffer-size: $(cat "$TEST_DIR/ext-buffer-size.log")"

pass
