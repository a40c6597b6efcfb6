#!/bin/bash
# What a user sees on a terminal and in a few first runs:
# - the status line fits a narrow terminal (no wrapping, so it is redrawn in
#   place), and after Ctrl+C (echoed as ^C) each message starts at column 0;
# - "1 frame", not "1 frames"; "wrote standard output", not "wrote -";
# - plain wl-record waiting for a presenter says after a few seconds what it
#   expects, and not when something presents;
# - .webm with no --codec records VP9 (and says so), and --list-encoders
#   and --version list libvpx-vp9.
. "$TEST_LIB"
: "${PTY_RUN:?PTY_RUN must point at tests/user/pty-run.py}"

# 1. The status line on a 50-column terminal, Ctrl+C after 3.5 s.
python3 "$PTY_RUN" 50 3.5 "$TEST_DIR/tty.out" -- "$WL_RECORD" --size 160x120 \
	"$TEST_DIR/tty.mkv" -- "$PRESENTER" --size 160x120 --frames 100000 --interval-ms 20
status=$?
# Ctrl+C reaches wl-record only (COMMAND has its own process group): a stop.
[ "$status" = 0 ] ||
	fail "wl-record on a terminal exited $status: $(cat -v "$TEST_DIR/tty.out")"
python3 - "$TEST_DIR/tty.out" <<'PY' || fail "the terminal output is wrong (above)"
import re, sys
text = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
print(repr(text[-600:]))
ok = True
# Each drawing of the status line ("\r" + text), escapes removed; messages
# may be long (the terminal wraps them once), a redrawn line may not.
def visible(s):  # without escapes and the terminal's own ^C echo
    return re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", s).replace("^C", "")
widest = max(len(visible(segment)) for line in text.split("\n") for segment in line.split("\r")
             if segment.startswith("wl-record: 00:"))
if widest > 49:
    print("FAIL a row of %d columns on a 50-column terminal (the status line wraps)" % widest)
    ok = False
redraws = len(re.findall(r"\rwl-record: 00:00:0\d", text))
if redraws < 2:
    print("FAIL the status line was drawn %d times, expected it redrawn in place" % redraws)
    ok = False
# Messages after the status line start at column 0: the line is cleared
# (\r ESC[K) or a newline comes first, never "…libx264^Cwl-record: stopping".
for match in re.finditer(r"wl-record: (stopping|wrote)", text):
    before = text[max(0, match.start() - 4):match.start()]
    if not (before.endswith("\r\x1b[K") or before.endswith("\n")):
        print("FAIL %r does not start at column 0 (after %r)" % (match.group(0), before))
        ok = False
# No module name leads a message at the default level ("record: wrote").
for match in re.finditer(r"wl-record: (record|encode|capture|screencopy|screenshot|audio): ", text):
    print("FAIL a module name leads a message: %r" % text[match.start():match.start() + 60])
    ok = False
# SIGINT reaches wl-record, not COMMAND: the user's stop.
if "wl-record: stopping: received Interrupt" not in text:
    print("FAIL no 'stopping' message after Ctrl+C")
    ok = False
sys.exit(0 if ok else 1)
PY
"$VIDEO_CHECK" "$TEST_DIR/tty.mkv" --min-frames 2 || fail "the recording stopped by Ctrl+C is not complete"

# 2. One frame, to standard output.
"$WL_RECORD" --size 64x64 --frames 1 - -- "$PRESENTER" --size 64x64 --frames 50 --interval-ms 20 \
	>"$TEST_DIR/one.mkv" 2>"$TEST_DIR/one.log" || fail "wl-record - --frames 1 exited $?"
grep -q "wrote standard output: 1 frame in" "$TEST_DIR/one.log" ||
	fail "the summary for one frame on stdout: $(cat "$TEST_DIR/one.log")"
"$VIDEO_CHECK" "$TEST_DIR/one.mkv" --frames 1 || fail "one.mkv does not hold one frame"

# 3. Waiting for a presenter: the hint after a few seconds...
start wait "$WL_RECORD" --socket waiting "$TEST_DIR/wait.mkv"
wait_until 30 "the hint" log_has wait "nothing is presenting to wl-record yet; run a nested compositor on WAYLAND_DISPLAY=waiting"
log "hint: $(grep 'nothing is presenting' "$TEST_DIR/wait.log")"
kill -INT "$STARTED_PID"
wait_exit "$STARTED_PID" 20
# ...and none when something presents from the start (6 s, past the hint's 5).
start busy "$WL_RECORD" --socket busy "$TEST_DIR/busy.mkv"
BUSY=$STARTED_PID
wait_until 10 "socket busy" socket_exists busy
WAYLAND_DISPLAY=busy "$PRESENTER" --size 64x64 --frames 300 --interval-ms 20 ||
	fail "the presenter failed"
wait_exit "$BUSY" 20
[ "$EXIT_STATUS" = 0 ] || fail "the recording of a presenter exited $EXIT_STATUS"
log_has busy "nothing is presenting" && fail "the hint was shown while a client presented"

# 4. .webm: VP9 without --codec, said in the summary; listed where encoders are.
if "$WL_RECORD" --list-encoders 2>/dev/null | grep -q "^libvpx-vp9"; then
	"$WL_RECORD" --version | grep -q "^libvpx-vp9" || fail "--version does not list libvpx-vp9"
	"$WL_RECORD" --size 160x120 "$TEST_DIR/clip.webm" -- "$PRESENTER" --size 160x120 --frames 10 \
		--interval-ms 40 --hold-ms 150 2>"$TEST_DIR/webm.log" >/dev/null ||
		fail "recording clip.webm exited $?: $(cat "$TEST_DIR/webm.log")"
	codec=$(ffprobe -v error -select_streams v:0 -show_entries stream=codec_name -of csv=p=0 \
		"$TEST_DIR/clip.webm")
	[ "$codec" = vp9 ] || fail "clip.webm holds '$codec', not vp9"
	grep -q "wrote .*clip.webm: .*(libvpx-vp9)" "$TEST_DIR/webm.log" ||
		fail "the summary does not name libvpx-vp9: $(cat "$TEST_DIR/webm.log")"
	"$VIDEO_CHECK" "$TEST_DIR/clip.webm" --commits 10 --pattern --end-repeat --min-psnr 30 ||
		fail "clip.webm does not hold the presented frames"
else
	log "this FFmpeg has no libvpx-vp9: the .webm case is not run"
fi
pass
