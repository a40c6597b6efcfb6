#!/bin/bash
# The screencopy clients against compositors that break their protocol
# (the fakes' hostile modes): each is one clear line and, when a recording
# was under way, a finished file; never a crash.
#   wlr-ready-before-copy  fake-screencopy --ready-before-copy-at 10: a
#       `ready` for a frame wl-record has not asked to be copied yet (before,
#       a NULL buffer was read: SIGSEGV). Exit 1, one line, the 10 frames
#       before it in the file.
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

# record NAME: wl-record on the fake NAME until it ends (30 s at most).
record() {
	local name=$1
	WAYLAND_DISPLAY=$name timeout 30 "$WL_RECORD" --stats-fd 3 "$TEST_DIR/$name.mkv" \
		>"$TEST_DIR/$name.log" 2>&1 3>"$TEST_DIR/$name.stats.json"
	STATUS=$?
}

FAKE=$FAKE_SCREENCOPY
start_fake wlr-ready --frames 100 --ready-before-copy-at 10
record wlr-ready
log_has fake-wlr-ready '^early ready 10$' || fail "the fake did not send its early ready"
ended wlr-ready "the compositor sent a copy's ready before wl-record asked for the copy (a wlr-screencopy protocol error)"

pass
