#!/bin/bash
# wl-record without FILE, as a user or a hotkey wrapper runs it: the video
# lands in a (fake) $HOME's Videos, the still in XDG_PICTURES_DIR from
# user-dirs.dirs, and the only line wl-record itself prints on stdout is the
# path written. The presenter (run as COMMAND) supplies known frames.
. "$TEST_LIB"

export HOME="$TEST_DIR/home"
mkdir -p "$HOME/Videos" "$HOME/.config"
unset XDG_CONFIG_HOME XDG_VIDEOS_DIR XDG_PICTURES_DIR
mkdir "$TEST_DIR/cwd"
cd "$TEST_DIR/cwd" || fail "cd"

PRESENT=("$PRESENTER" --mode for-mode --format xrgb --size 320x240 --frames 6 --interval-ms 30)
DATE_RE='[0-9]{4}-[0-9]{2}-[0-9]{2}_[0-9]{2}-[0-9]{2}-[0-9]{2}'

# run_wl_record NAME ARG...: wl-record with its stdout in NAME.out (the
# presenter's own lines go to stderr: wl-record's stdout is the subject).
run_wl_record() {
	local name=$1
	shift
	timeout 30 "$WL_RECORD" --size 320x240 "$@" -- sh -c 'exec "$@" >&2' sh "${PRESENT[@]}" \
		>"$TEST_DIR/$name.out" 2>"$TEST_DIR/$name.log"
	EXIT_STATUS=$?
	[ "$EXIT_STATUS" = 0 ] || fail "wl-record $* exited $EXIT_STATUS"
	[ "$(wc -l <"$TEST_DIR/$name.out")" = 1 ] ||
		fail "wl-record $* printed $(wc -l <"$TEST_DIR/$name.out") lines on stdout, not one"
	PRINTED=$(cat "$TEST_DIR/$name.out")
	log "$name: printed $PRINTED"
}

# 1. A recording with no FILE: ~/Videos/wl-record-DATE.mkv, path printed.
run_wl_record video
[[ $PRINTED =~ ^$HOME/Videos/wl-record-$DATE_RE\.mkv$ ]] ||
	fail "the recording went to '$PRINTED', not ~/Videos/wl-record-DATE.mkv"
[ -f "$PRINTED" ] || fail "the printed path $PRINTED does not exist"
"$VIDEO_CHECK" "$PRINTED" --size 320x240 --min-frames 1 ||
	fail "$PRINTED is not a 320x240 recording"
ffprobe_check "$PRINTED"
[ -z "$(ls -A "$TEST_DIR/cwd")" ] || fail "files in the current folder: $(ls "$TEST_DIR/cwd")"

# 2. The same second again: a new name, never the first file overwritten.
FIRST=$PRINTED
run_wl_record video2
[ "$PRINTED" != "$FIRST" ] || fail "the second recording reused $FIRST"
[[ $PRINTED =~ ^$HOME/Videos/wl-record-$DATE_RE(-[0-9]+)?\.mkv$ ]] ||
	fail "the second recording went to '$PRINTED'"

# 3. A still with user-dirs.dirs naming another folder, the way
# xdg-user-dirs-update writes it.
mkdir "$HOME/Bilder"
printf '# written by xdg-user-dirs-update\nXDG_PICTURES_DIR="$HOME/Bilder"\n' \
	>"$HOME/.config/user-dirs.dirs"
run_wl_record still --screenshot
[[ $PRINTED =~ ^$HOME/Bilder/wl-record-$DATE_RE\.png$ ]] ||
	fail "the still went to '$PRINTED', not \$XDG_PICTURES_DIR/wl-record-DATE.png"
# The presenter exits 150 ms after its first frame, before any picture
# has stayed unchanged for the settle time: its last picture is taken.
"$PNG_CHECK" "$PRINTED" --size 320x240 --pattern 5 || fail "$PRINTED is not the last frame"

# 4. XDG_CONFIG_HOME moves user-dirs.dirs; its XDG_VIDEOS_DIR wins over ~/Videos.
mkdir -p "$TEST_DIR/config" "$TEST_DIR/clips"
printf 'XDG_VIDEOS_DIR="%s"\n' "$TEST_DIR/clips" >"$TEST_DIR/config/user-dirs.dirs"
XDG_CONFIG_HOME="$TEST_DIR/config" run_wl_record config
[[ $PRINTED =~ ^$TEST_DIR/clips/wl-record-$DATE_RE\.mkv$ ]] ||
	fail "with XDG_CONFIG_HOME the recording went to '$PRINTED'"

# 5. No Videos folder at all (a hotkey's current folder is the compositor's,
# maybe not writable): ~/Videos is created, as xdg-user-dirs would, and said.
rm -rf "$HOME/Videos"
run_wl_record created
[[ $PRINTED =~ ^$HOME/Videos/wl-record-$DATE_RE\.mkv$ ]] || fail "without ~/Videos: '$PRINTED'"
[ -f "$PRINTED" ] || fail "$PRINTED was not written"
grep -q "created $HOME/Videos" "$TEST_DIR/created.log" || fail "creating ~/Videos was not said"
# ...and when it cannot be (a file in its way): $HOME, said too.
rm -rf "$HOME/Videos"
echo "not a folder" >"$HOME/Videos"
run_wl_record home
[[ $PRINTED =~ ^$HOME/wl-record-$DATE_RE\.mkv$ ]] || fail "with ~/Videos a file: '$PRINTED'"
[ -f "$PRINTED" ] || fail "$PRINTED was not written"
grep -q "the file goes to $HOME" "$TEST_DIR/home.log" || fail "falling back to \$HOME was not said"
rm -f "$HOME/Videos"

# 6. strftime patterns in a given name.
YEAR=$(date +%Y)
run_wl_record pattern "$TEST_DIR/rec-%Y-%%.mp4"
[ "$PRINTED" = "$TEST_DIR/rec-$YEAR-%.mp4" ] || fail "rec-%Y-%%.mp4 became '$PRINTED'"
[ -f "$PRINTED" ] || fail "$PRINTED was not written"

# 7. The video itself on stdout: nothing else may be printed there.
timeout 30 "$WL_RECORD" --size 320x240 - -- "${PRESENT[@]}" >"$TEST_DIR/stdout.mkv" \
	2>"$TEST_DIR/stdout.log" || fail "wl-record - exited $?"
"$VIDEO_CHECK" "$TEST_DIR/stdout.mkv" --size 320x240 --min-frames 1 ||
	fail "the video on stdout is not the presented frames"
if tail -c 300 "$TEST_DIR/stdout.mkv" | grep -a -q -e "wl-record-" -e "stdout.mkv"; then
	fail "a path was printed into the video on stdout"
fi
# 8. Recordings started at once (a hotkey pressed twice, Weston starting one
# share per output with the same command line) never share or refuse a
# name: the default name and a pattern's name take -2, -3... They run as
# one process group each and all start before any can finish.
mkdir "$TEST_DIR/race"
pids=()
for i in 1 2 3 4 5 6; do
	if [ "$i" -le 3 ]; then name=(); else name=("$TEST_DIR/race/talk-%Y.mkv"); fi
	(cd "$TEST_DIR/race" && exec timeout 60 "$WL_RECORD" --size 320x240 "${name[@]}" -- \
		sh -c 'exec "$@" >&2' sh "${PRESENT[@]}") >"$TEST_DIR/race-$i.out" 2>"$TEST_DIR/race-$i.log" &
	pids+=("$!")
done
for i in 1 2 3 4 5 6; do
	wait "${pids[$((i - 1))]}" || fail "recording $i of 6 started at once exited $?: $(cat "$TEST_DIR/race-$i.log")"
done
printed=$(cat "$TEST_DIR"/race-*.out | sort)
[ "$(printf '%s\n' "$printed" | sort -u | wc -l)" = 6 ] || fail "6 recordings printed: $printed"
for path in $printed; do
	case $path in /*) ;; *) path=$TEST_DIR/race/${path#./} ;; esac
	"$VIDEO_CHECK" "$path" --size 320x240 --min-frames 1 || fail "$path is not a recording"
done
[ "$(find "$TEST_DIR/race" -name 'talk-*.mkv' | wc -l)" = 3 ] || fail "the pattern's files: $(ls "$TEST_DIR/race")"
[ "$(find "$TEST_DIR/race" -empty | wc -l)" = 0 ] || fail "empty files left: $(find "$TEST_DIR/race" -empty)"

# 9. A run that fails leaves no empty reserved file behind.
(cd "$TEST_DIR/race" && timeout 30 "$WL_RECORD" --size 320x240 --codec nosuchcodec \
	"$TEST_DIR/race/fail-%Y.mkv" >/dev/null 2>&1)
[ -z "$(find "$TEST_DIR/race" -name 'fail-*')" ] || fail "a failed start left $(ls "$TEST_DIR/race"/fail-*)"
# 10. --snap of a recording with the default name: a still goes where
# pictures go (XDG_PICTURES_DIR, $HOME/Bilder since 3), with one date in its
# name, not the video's and its own after it in ~/Videos.
start snaprec "$WL_RECORD" --size 320x240 -- "$PRESENTER" --mode for-mode --format xrgb \
	--size 320x240 --frames 100000 --interval-ms 20
SNAPREC=$STARTED_PID
pid_file_names() {
	local pid
	read -r pid _ 2>/dev/null <"$XDG_RUNTIME_DIR/wl-record.pid" && [ "$pid" = "$SNAPREC" ]
}
wait_until 10 "the recording's pid file" pid_file_names
snap=$("$WL_RECORD" --snap) || fail "--snap exited $?"
log "snap: $snap"
[[ $snap =~ ^$HOME/Bilder/wl-record-$DATE_RE(\.[0-9]{3})?\.png$ ]] ||
	fail "--snap of a default-named recording wrote '$snap', not \$XDG_PICTURES_DIR/wl-record-DATE.png"
"$PNG_CHECK" "$snap" --size 320x240 >/dev/null || fail "$snap is not a 320x240 still"
"$WL_RECORD" --stop >/dev/null || fail "--stop exited $?"
wait_exit "$SNAPREC" 20
pass
