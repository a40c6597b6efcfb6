#!/bin/bash
# The command line as a user meets it: help and version, one-line errors with
# exit status 2, and COMMAND's exit status passed through.
#   cli.sh /path/to/wl-record
set -u
WLR=$1
failures=0
tmp=$(mktemp -d)
export XDG_RUNTIME_DIR=$tmp/runtime
mkdir -m 0700 "$XDG_RUNTIME_DIR"
unset WAYLAND_DISPLAY WAYLAND_SOCKET WAYLAND_SERVER_SOCKET
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

# expect STATUS LINES ARGS...: exit status and the number of stderr lines.
expect() {
	local want_status=$1 want_lines=$2
	shift 2
	local status lines
	timeout 20 "$WLR" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	status=$?
	lines=$(wc -l <"$tmp/err")
	if [ "$status" != "$want_status" ]; then
		fail "wl-record $* exited $status, expected $want_status; stderr: $(cat "$tmp/err")"
	elif [ "$want_lines" != "-" ] && [ "$lines" != "$want_lines" ]; then
		fail "wl-record $* printed $lines lines on stderr, expected $want_lines: $(cat "$tmp/err")"
	else
		echo "ok: wl-record $* -> $status"
	fi
}

expect 0 0 --help
grep -q -- "--screenshot" "$tmp/out" || fail "--help does not mention --screenshot"
# One option per line (none hidden in another's text, as "--list-outputs
# ...; --no-cursor: ..." was), and every --capture method named.
grep -v '^  -v, --verbose' "$tmp/out" | sed -E 's/^  (FILE, )?-[A-Za-z], //' |
	grep -E -- '[;,] --[a-z]|: --[a-z]' &&
	fail "--help packs options on one line (above)"
for method in ext-image-copy wlr-screencopy; do
	grep -q -- "--capture .*$method\|^ \{20,\}.*$method" "$tmp/out" ||
		fail "--help does not list --capture $method"
done
expect 0 0 --version
grep -q "^wl-record [0-9]" "$tmp/out" || fail "--version: $(cat "$tmp/out")"
expect 0 - --list-encoders
grep -q "^libx264" "$tmp/out" || fail "--list-encoders does not list libx264"

# Bad command lines: one line each, status 2, nothing created.
cd "$tmp"
expect 2 1 --bogus
expect 2 1 -Z
expect 2 1 --fps
expect 2 1 --fps 0 out.mkv
expect 2 1 --size 10 out.mkv
expect 2 1 --crf 99 out.mkv
expect 2 1 --bitrate x out.mkv
expect 2 1 a.mkv b.mkv
expect 2 1 --screenshot a.mkv
expect 2 1 out.mkv --
# --audio: sound goes with a video; a source name is one word.
expect 2 1 --audio --screenshot
grep -q "^wl-record: --audio records sound with a video" "$tmp/err" || fail "--audio --screenshot: $(cat "$tmp/err")"
expect 2 1 --audio out.png
expect 2 1 --audio= out.mkv
grep -q "invalid --audio ''" "$tmp/err" || fail "--audio=: $(cat "$tmp/err")"
expect 2 1 "--audio=two words" out.mkv
# Several --audio are several sources (a track each, or --audio-mix), each
# once, up to 4; --audio-codec and --audio-bitrate go with --audio, the codec
# must fit the container (checked before anything starts).
expect 2 1 --audio --audio out.mkv
grep -q "^wl-record: --audio given twice" "$tmp/err" || fail "--audio --audio: $(cat "$tmp/err")"
expect 2 1 --audio=x --audio=y --audio=x out.mkv
grep -q "^wl-record: --audio=x given twice" "$tmp/err" || fail "--audio=x twice: $(cat "$tmp/err")"
expect 2 1 --audio --audio=a --audio=b --audio=c --audio=d out.mkv
grep -q "at most 4 sources" "$tmp/err" || fail "five --audio: $(cat "$tmp/err")"
expect 2 1 --audio-mix out.mkv
expect 2 1 --audio --audio-mix out.mkv
grep -q "^wl-record: --audio-mix needs two sources or more" "$tmp/err" ||
	fail "--audio-mix with one source: $(cat "$tmp/err")"
expect 2 1 --audio-codec opus out.mkv
grep -q "^wl-record: --audio-codec needs --audio" "$tmp/err" || fail "--audio-codec alone: $(cat "$tmp/err")"
expect 2 1 --audio-bitrate 96k out.mkv
grep -q "^wl-record: --audio-bitrate needs --audio" "$tmp/err" || fail "--audio-bitrate alone: $(cat "$tmp/err")"
expect 2 1 --audio --audio-bitrate 1k out.mkv
grep -q "invalid --audio-bitrate '1k'" "$tmp/err" || fail "--audio-bitrate 1k: $(cat "$tmp/err")"
expect 2 1 --audio --audio-bitrate 900k out.mkv
expect 2 1 --audio --audio-bitrate x out.mkv
expect 2 1 --audio --audio-codec mp3 out.mkv
grep -q "unknown --audio-codec 'mp3'" "$tmp/err" || fail "--audio-codec mp3: $(cat "$tmp/err")"
expect 2 1 --audio --audio-codec flac out.mp4
grep -q -- "--audio-codec flac: MP4 holds aac or opus" "$tmp/err" || fail "flac in MP4: $(cat "$tmp/err")"
expect 2 1 --audio --audio-codec opus out.mov
expect 2 1 --audio --audio-codec aac out.webm
expect 2 1 --audio --audio-codec flac --audio-bitrate 64k out.mkv
grep -q -- "--audio-bitrate: flac is lossless" "$tmp/err" || fail "flac with a bitrate: $(cat "$tmp/err")"
expect 2 1 --audio --stop
[ ! -e out.mkv ] || fail "a refused --audio left out.mkv"
# The man page agrees with the program: --app-audio is a source as an
# --audio is, so --audio-mix, --audio-codec and --audio-bitrate take it too
# (it said they need --audio).
MAN_SRC=$(dirname "$0")/../../doc/wl-record.1.scd
if [ -f "$MAN_SRC" ]; then
	man_text=$(tr -s '\n\t ' '   ' <"$MAN_SRC")
	! grep -q 'With two \*--audio\* sources or more:' <<<"$man_text" ||
		fail "the man page says --audio-mix needs two --audio sources"
	! grep -q 'Both options need \*--audio\*\.' <<<"$man_text" ||
		fail "the man page says --audio-codec and --audio-bitrate need --audio"
fi
# --app-audio: the sound of the COMMAND wl-record runs, so one is needed;
# --mute-app goes with it; refused where --audio is.
expect 2 1 --app-audio out.mkv
grep -q "^wl-record: --app-audio records the sound of the command wl-record runs" "$tmp/err" ||
	fail "--app-audio without a command: $(cat "$tmp/err")"
expect 2 1 --mute-app out.mkv -- true
grep -q "^wl-record: --mute-app .*give --app-audio too" "$tmp/err" ||
	fail "--mute-app alone: $(cat "$tmp/err")"
# With --audio, the command's sound is one more source: a track, or mixed.
expect 2 1 --app-audio --audio --audio=a --audio=b --audio=c out.mkv -- true
grep -q "^wl-record: too many sources: at most 4" "$tmp/err" ||
	fail "--app-audio and four --audio: $(cat "$tmp/err")"
expect 2 1 --app-audio --audio-mix out.mkv -- true
grep -q "^wl-record: --audio-mix needs two sources or more" "$tmp/err" ||
	fail "--app-audio --audio-mix alone: $(cat "$tmp/err")"
expect 2 1 --app-audio --screenshot -- true
grep -q "^wl-record: --app-audio records sound with a video" "$tmp/err" ||
	fail "--app-audio --screenshot: $(cat "$tmp/err")"
expect 2 1 --app-audio out.png -- true
expect 2 1 --app-audio --mute-app --stop
expect 2 1 --app-audio --capture screencopy out.mkv
[ ! -e out.mkv ] || fail "a refused --app-audio left out.mkv"
[ ! -e out.png ] || fail "a refused --app-audio left out.png"
# -o picks a monitor now: -o FILE gets a hint naming the new spellings.
expect 2 1 -o out.mkv
grep -q "^wl-record: -o picks a monitor now (like grim and wf-recorder); give the file as the argument or with -f$" "$tmp/err" ||
	fail "-o FILE: $(cat "$tmp/err")"
expect 2 1 --output "$tmp/x/y"
grep -q "give the file as the argument or with -f" "$tmp/err" || fail "--output PATH: $(cat "$tmp/err")"
expect 2 1 -g "1,2" out.mkv
expect 2 1 -g "1,2 3x4" out.mkv -- true
# No desktop to pick from or to list.
expect 1 1 -o HEADLESS-1 out.mkv
grep -q "WAYLAND_DISPLAY is not set" "$tmp/err" || fail "-o without a desktop: $(cat "$tmp/err")"
expect 1 1 --list-outputs
grep -q "WAYLAND_DISPLAY is not set" "$tmp/err" || fail "--list-outputs without a desktop: $(cat "$tmp/err")"
# Settings the encoder or the container refuse are bad command lines too,
# refused before anything starts: the error is the only line (no GPU or
# start-up chatter before it), and nothing is created.
expect 2 1 --codec libx264 out.webm
grep -q "webm holds VP8/VP9/AV1, not h264" "$tmp/err" || fail "the webm refusal does not say why"
expect 2 1 out.avi
grep -q "unknown container" "$tmp/err" || fail "out.avi: $(cat "$tmp/err")"
expect 2 1 out.xyz
expect 2 1 --codec nosuchcodec out.mkv
grep -q "unknown video encoder 'nosuchcodec'" "$tmp/err" || fail "--codec nosuchcodec: $(cat "$tmp/err")"
expect 2 1 -p nosuchkey=1 out.mkv
grep -q "has no option 'nosuchkey'" "$tmp/err" || fail "-p nosuchkey=1: $(cat "$tmp/err")"
[ -z "$(ls "$tmp" | grep -v -e runtime -e out -e err)" ] || fail "files left: $(ls "$tmp")"
# A near miss gets a suggestion.
expect 2 1 --durtion 3 out.mkv
grep -q "did you mean --duration?" "$tmp/err" || fail "--durtion: $(cat "$tmp/err")"
expect 2 1 --screnshot
grep -q "did you mean --screenshot?" "$tmp/err" || fail "--screnshot: $(cat "$tmp/err")"
# A tie between two names goes to the one it always went to (options.c's
# preferred_in_a_tie): --snop is as near to --stop.
expect 2 1 --snop
grep -q "did you mean --snap?" "$tmp/err" || fail "--snop: $(cat "$tmp/err")"
expect 2 1 --xyzzy
grep -q "did you mean" "$tmp/err" && fail "--xyzzy got a suggestion: $(cat "$tmp/err")"
# A name too long to compare with any (fuzz-options found it crashing the
# tie-break): one line, no suggestion.
long_name=--$(printf 'x%.0s' $(seq 70))
expect 2 1 "$long_name"
grep -q "did you mean" "$tmp/err" && fail "$long_name got a suggestion: $(cat "$tmp/err")"
# An unwritable output is the machine's answer, not a usage error; it is
# refused before COMMAND runs, naming the file, not a temporary one.
expect 1 1 /nonexistent-dir/out.mkv -- touch "$tmp/ran"
grep -q "cannot write /nonexistent-dir/out.mkv: folder /nonexistent-dir" "$tmp/err" ||
	fail "missing folder: $(cat "$tmp/err")"
expect 1 1 --screenshot /nonexistent-dir/x.png -- touch "$tmp/ran"
grep -q "cannot write /nonexistent-dir/x.png: folder /nonexistent-dir" "$tmp/err" ||
	fail "missing folder for a still: $(cat "$tmp/err")"
printf precious >"$tmp/kept.mkv"
expect 1 1 "$tmp/kept.mkv" -- touch "$tmp/ran"
grep -q "already exists: give --overwrite" "$tmp/err" || fail "existing file: $(cat "$tmp/err")"
[ ! -e "$tmp/ran" ] || fail "COMMAND ran although the output was refused"
# No XDG_RUNTIME_DIR: one failure, one message (no "no frame was recorded").
runtime=$XDG_RUNTIME_DIR
unset XDG_RUNTIME_DIR
expect 1 1 "$tmp/nort.mkv" -- true
export XDG_RUNTIME_DIR=$runtime
grep -q "XDG_RUNTIME_DIR is not set" "$tmp/err" || fail "XDG_RUNTIME_DIR unset: $(cat "$tmp/err")"
# FILE '-' with stdout on a terminal: refused (binary video would scramble
# it). script(1) gives the command a terminal.
if command -v script >/dev/null; then
	script -qec "'$WLR' - -- true; echo \"status \$?\"" /dev/null </dev/null >"$tmp/tty" 2>&1
	grep -q "status 2" "$tmp/tty" && grep -q "standard output, which is a terminal" "$tmp/tty" ||
		fail "'-' on a terminal: $(cat "$tmp/tty")"
else
	echo "script(1) missing: the '-' on a terminal case is not run"
fi
# --window hosts COMMAND in a window on the desktop: it needs a COMMAND, a
# recording (not a still, not --snap/--stop) and no desktop copy.
expect 2 1 --window out.mkv
grep -q "^wl-record: --window needs an app to host" "$tmp/err" || fail "--window alone: $(cat "$tmp/err")"
expect 2 1 --window --socket w out.mkv
expect 2 1 --window out.png -- true
grep -q "a still (--screenshot, .png) has none" "$tmp/err" || fail "--window .png: $(cat "$tmp/err")"
expect 2 1 --window --screenshot -- true
expect 2 1 --window --capture screencopy out.mkv
grep -q "copies the desktop the window would be on" "$tmp/err" || fail "--window screencopy: $(cat "$tmp/err")"
expect 2 1 --window --capture wlr-screencopy out.mkv -- true
expect 2 1 --window --stop
# --cursor draws the --window app's pointer: nothing to draw without it;
# --no-cursor is for a copied desktop. Refused before COMMAND runs.
expect 2 1 --cursor "$tmp/cur.mkv" -- touch "$tmp/ran"
grep -q "^wl-record: --cursor draws the pointer of the app --window hosts" "$tmp/err" ||
	fail "--cursor without --window: $(cat "$tmp/err")"
expect 2 1 --window --cursor --no-cursor "$tmp/cur.mkv" -- touch "$tmp/ran"
grep -q "contradict each other" "$tmp/err" || fail "--cursor --no-cursor: $(cat "$tmp/err")"
expect 2 1 --no-cursor "$tmp/cur.mkv" -- touch "$tmp/ran"
grep -q "a hosted app's pointer is left out already" "$tmp/err" ||
	fail "--no-cursor with COMMAND: $(cat "$tmp/err")"
[ ! -e "$tmp/ran" ] || fail "COMMAND ran although the cursor options were refused"
# No desktop to open it on: one line before COMMAND runs, no file.
expect 1 1 --window "$tmp/win.mkv" -- touch "$tmp/ran"
grep -q "^wl-record: --window: WAYLAND_DISPLAY is not set" "$tmp/err" || fail "--window without a desktop: $(cat "$tmp/err")"
WAYLAND_DISPLAY=no-such-desktop expect 1 1 --window "$tmp/win.mkv" -- touch "$tmp/ran"
grep -q "^wl-record: --window: WAYLAND_DISPLAY=no-such-desktop: cannot connect" "$tmp/err" ||
	fail "--window with an unreachable desktop: $(cat "$tmp/err")"
[ ! -e "$tmp/ran" ] || fail "COMMAND ran although --window had no desktop"
[ ! -e "$tmp/win.mkv" ] || fail "--window without a desktop left a file"
# Asking a running instance when none runs.
expect 1 1 --snap

# COMMAND: its exit status is wl-record's.
expect 7 - "$tmp/out7.mkv" -- sh -c 'exit 7'
# A command that exits 0 without presenting anything: nothing was recorded,
# which is wl-record's failure.
expect 1 - --screenshot --timeout 0.5 "$tmp/x.png" -- true
expect 127 - "$tmp/o.mkv" -- /nonexistent/command
# WAYLAND_DISPLAY points at wl-record's socket inside COMMAND.
timeout 20 "$WLR" --socket cli-test "$tmp/w.mkv" -- sh -c 'test "$WAYLAND_DISPLAY" = cli-test && test -S "$XDG_RUNTIME_DIR/cli-test" && echo yes > "$0"' "$tmp/saw" 2>/dev/null
[ "$(cat "$tmp/saw" 2>/dev/null)" = yes ] || fail "COMMAND did not see WAYLAND_DISPLAY=cli-test with its socket"

# Screenshot timeout: a clear error and status 1, not a hang.
expect 1 - --screenshot --timeout 0.3 "$tmp/none.png"
grep -q "no frame" "$tmp/err" || fail "the screenshot timeout does not say why: $(cat "$tmp/err")"
[ ! -e "$tmp/none.png" ] || fail "a PNG was written without a frame"

# WAYLAND_SERVER_SOCKET that is not a descriptor.
WAYLAND_SERVER_SOCKET=notanfd expect 1 - --screenshot "$tmp/y.png"

echo "cli: $failures failure(s)"
[ "$failures" = 0 ]
