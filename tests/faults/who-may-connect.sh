#!/bin/bash
# Who may connect, and what may be overwritten:
# - the listening socket is refused (exit 1, one clear line) where
#   XDG_RUNTIME_DIR is unset, missing, group/world-writable or someone else's;
# - an existing recording or still is never replaced without --overwrite/-y
#   (exit 1, the file untouched); with -y it is;
# - files are created with the user's umask.
. "$TEST_LIB"

# refused NAME EXPECTED_TEXT: wl-record must exit 1 at once saying so.
refused() {
	local name=$1 text=$2
	start $name "$WL_RECORD" --socket $name "$TEST_DIR/$name.mkv"
	wait_exit "$STARTED_PID" 10
	[ "$EXIT_STATUS" -eq 1 ] || fail "$name: wl-record exited $EXIT_STATUS; expected 1"
	log_has $name "$text" || { cat "$TEST_DIR/$name.log"; fail "$name: no message matching '$text'"; }
	log "$name: $(grep -E "$text" "$TEST_DIR/$name.log")"
	[ ! -e "$TEST_DIR/$name.mkv" ] || fail "$name: a recording was created anyway"
}

good_runtime=$XDG_RUNTIME_DIR

( unset XDG_RUNTIME_DIR; refused unset "XDG_RUNTIME_DIR is not set" ) || exit 1
( export XDG_RUNTIME_DIR=$TEST_DIR/missing; refused missing "XDG_RUNTIME_DIR .* unusable" ) || exit 1
mkdir -m 1777 "$TEST_DIR/shared" && chmod 1777 "$TEST_DIR/shared"
( export XDG_RUNTIME_DIR=$TEST_DIR/shared; refused world-writable "writable by others" ) || exit 1
mkdir -m 0770 "$TEST_DIR/group" && chmod 0770 "$TEST_DIR/group"
( export XDG_RUNTIME_DIR=$TEST_DIR/group; refused group-writable "writable by others" ) || exit 1
mkdir -m 0700 "$TEST_DIR/foreign"
# Only root may give a folder away, and not in a user namespace that has no
# uid 65534.
if chown 65534:65534 "$TEST_DIR/foreign" 2>/dev/null; then
	( export XDG_RUNTIME_DIR=$TEST_DIR/foreign; refused foreign "belongs to uid 65534" ) || exit 1
else
	log "cannot chown a folder to uid 65534 here: the foreign-owner case is not run"
fi
export XDG_RUNTIME_DIR=$good_runtime

# An existing recording is not replaced.
printf 'precious' >"$TEST_DIR/keep.mkv"
start keep "$WL_RECORD" --socket keep "$TEST_DIR/keep.mkv"
wait_exit "$STARTED_PID" 10
[ "$EXIT_STATUS" -eq 1 ] || fail "recording over an existing file exited $EXIT_STATUS; expected 1"
log_has keep "already exists: give --overwrite" || fail "no clear message for an existing file"
[ "$(cat "$TEST_DIR/keep.mkv")" = precious ] || fail "the existing file was changed"
log "existing recording: $(grep 'already exists' "$TEST_DIR/keep.log")"

# The same for a still: refused before waiting for any picture.
printf 'precious' >"$TEST_DIR/keep.png"
start keep-png "$WL_RECORD" --socket keep-png --timeout 30 "$TEST_DIR/keep.png"
wait_exit "$STARTED_PID" 10
[ "$EXIT_STATUS" -eq 1 ] || fail "a still over an existing file exited $EXIT_STATUS; expected 1"
log_has keep-png "already exists: give --overwrite" || fail "no clear message for an existing PNG"
[ "$(cat "$TEST_DIR/keep.png")" = precious ] || fail "the existing PNG was changed"

# -y replaces both; the files get the umask's mode.
umask 027
start over "$WL_RECORD" -y --size 64x64 --socket over "$TEST_DIR/keep.mkv" -- "$PRESENTER" \
	--size 64x64 --frames 5 --interval-ms 20
wait_exit "$STARTED_PID" 30
[ "$EXIT_STATUS" -eq 0 ] || fail "-y recording exited $EXIT_STATUS"
ffprobe_check "$TEST_DIR/keep.mkv"
start over-png "$WL_RECORD" --overwrite --size 64x64 --socket over-png "$TEST_DIR/keep.png" -- \
	"$PRESENTER" --size 64x64 --frames 5 --interval-ms 20
wait_exit "$STARTED_PID" 30
[ "$EXIT_STATUS" -eq 0 ] || fail "--overwrite still exited $EXIT_STATUS"
"$PNG_CHECK" "$TEST_DIR/keep.png" --size 64x64 >/dev/null 2>&1 || fail "keep.png is not the new still"
start fresh "$WL_RECORD" --size 64x64 --socket fresh "$TEST_DIR/fresh.mkv" -- "$PRESENTER" \
	--size 64x64 --frames 5 --interval-ms 20
wait_exit "$STARTED_PID" 30
[ "$EXIT_STATUS" -eq 0 ] || fail "fresh recording exited $EXIT_STATUS"
mode=$(stat -c %a "$TEST_DIR/fresh.mkv")
[ "$mode" = 640 ] || fail "fresh.mkv has mode $mode; with umask 027 expected 640"
pass
