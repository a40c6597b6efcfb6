# Shared helpers for the integration tests; sourced by each test script.
#
# Gives the test its own XDG_RUNTIME_DIR (mode 0700) under a private temp
# directory, starts every process in its own session so that it and all its
# children can be killed as a group, and on exit (pass, failure, signal)
# kills whatever is still running, prints the logs when the test failed and
# removes the directory (kept when WL_RECORD_KEEP_TMP=1).

set -u

: "${WL_RECORD:?WL_RECORD must point at the wl-record binary}"
: "${PRESENTER:?PRESENTER must point at tests/presenter}"
: "${PNG_CHECK:?PNG_CHECK must point at tests/tools/png-check}"
: "${VIDEO_CHECK:?VIDEO_CHECK must point at tests/tools/video-check}"

TEST_NAME=$(basename "$0" .sh)
TEST_DIR=$(mktemp -d "${TMPDIR:-/tmp}/wlr-$TEST_NAME.XXXXXX") || exit 1
chmod 0700 "$TEST_DIR"
export XDG_RUNTIME_DIR="$TEST_DIR/runtime"
mkdir -m 0700 "$XDG_RUNTIME_DIR"
# Nothing from the caller's session may leak in.
unset WAYLAND_DISPLAY WAYLAND_SOCKET WAYLAND_SERVER_SOCKET DISPLAY WAYLAND_DEBUG
cd "$TEST_DIR" || exit 1

STARTED_PIDS=()
TEST_FAILED=1
EXIT_HOOKS=()

# at_exit COMMAND: run COMMAND (eval'd) on exit, after the processes stop and
# before the directory goes. Tests must not set their own EXIT trap.
at_exit() {
	EXIT_HOOKS+=("$1")
}

log() {
	printf '%s: %s\n' "$TEST_NAME" "$*"
}

fail() {
	printf '%s: FAIL: %s\n' "$TEST_NAME" "$*" >&2
	exit 1
}

# Skips the test (meson counts exit status 77 as SKIP).
skip() {
	printf '%s: SKIP: %s\n' "$TEST_NAME" "$*"
	TEST_FAILED=0
	exit 77
}

pass() {
	TEST_FAILED=0
	log "PASS"
	exit 0
}

# start NAME COMMAND [ARG...]: runs COMMAND in the background in a new
# session, output to $TEST_DIR/NAME.log; sets STARTED_PID.
start() {
	local name=$1
	shift
	setsid "$@" >"$TEST_DIR/$name.log" 2>&1 &
	STARTED_PID=$!
	STARTED_PIDS+=("$STARTED_PID")
}

# State letter of a process from /proc (empty when it is gone).
process_state() {
	local stat
	read -r stat 2>/dev/null <"/proc/$1/stat" || return 0
	stat=${stat##*) }
	printf '%s' "${stat%% *}"
}

# True while PID exists and is not a zombie waiting to be reaped.
is_running() {
	local state
	state=$(process_state "$1")
	[ -n "$state" ] && [ "$state" != Z ]
}

# True while any process of process group PGID is alive (zombies excluded).
group_alive() {
	local stat_file stat fields
	for stat_file in /proc/[0-9]*/stat; do
		read -r stat 2>/dev/null <"$stat_file" || continue
		stat=${stat##*) }
		read -r -a fields <<<"$stat"
		# fields: state ppid pgrp ...
		if [ "${fields[2]}" = "$1" ] && [ "${fields[0]}" != Z ]; then
			return 0
		fi
	done
	return 1
}

# wait_exit PID SECONDS: waits for a process this shell started; sets
# EXIT_STATUS, fails the test on timeout.
wait_exit() {
	local pid=$1 deadline=$((SECONDS + $2))
	while is_running "$pid"; do
		[ "$SECONDS" -lt "$deadline" ] || fail "process $pid still running after $2 s"
		sleep 0.05
	done
	wait "$pid"
	EXIT_STATUS=$?
}

# wait_until SECONDS DESCRIPTION COMMAND [ARG...]: polls COMMAND until it
# succeeds; fails the test on timeout.
wait_until() {
	local deadline=$((SECONDS + $1)) what=$2
	shift 2
	until "$@"; do
		[ "$SECONDS" -lt "$deadline" ] || fail "timed out after ${deadline}s waiting for $what"
		sleep 0.05
	done
}

log_has() {
	grep -q -E -- "$2" "$TEST_DIR/$1.log" 2>/dev/null
}

socket_exists() {
	[ -S "$XDG_RUNTIME_DIR/$1" ]
}

# Sends SIGTERM to each started process group, then SIGKILL to what is left.
stop_all() {
	local pid deadline
	for pid in "${STARTED_PIDS[@]}"; do
		kill -TERM -- "-$pid" 2>/dev/null
	done
	deadline=$((SECONDS + 3))
	for pid in "${STARTED_PIDS[@]}"; do
		while group_alive "$pid" && [ "$SECONDS" -lt "$deadline" ]; do
			sleep 0.05
		done
		kill -KILL -- "-$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	STARTED_PIDS=()
}

cleanup() {
	local status=$?
	trap - EXIT INT TERM HUP
	stop_all
	local hook
	for hook in "${EXIT_HOOKS[@]}"; do
		eval "$hook"
	done
	if [ "$TEST_FAILED" = 1 ]; then
		local file
		for file in "$TEST_DIR"/*.log; do
			[ -e "$file" ] || continue
			printf '\n----- %s -----\n' "$(basename "$file")" >&2
			tail -n 60 "$file" >&2
		done
		[ "$status" -ne 0 ] || status=1
	fi
	if [ "${WL_RECORD_KEEP_TMP:-${WLR_KEEP_TMP:-0}}" = 1 ]; then
		log "kept $TEST_DIR"
	else
		cd / && rm -rf "$TEST_DIR"
	fi
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

[ -x "$WL_RECORD" ] || fail "wl-record binary $WL_RECORD is not built"

# write_weston_ini FILE BACKGROUND_ARGB [SCREEN_SHARE_COMMAND]: a desktop
# shell with nothing drawn but the background colour (no panel, no
# animations: the first frame shown is already the final picture), and
# optionally the screen-share module started at once on every output.
write_weston_ini() {
	local file=$1 background=$2 command=${3:-}
	{
		printf '[core]\n'
		[ -z "$command" ] || printf 'modules=screen-share.so\n'
		printf '\n[shell]\nbackground-color=%s\npanel-position=none\n' "$background"
		printf 'startup-animation=none\nanimation=none\nclose-animation=none\n'
		printf 'focus-animation=none\nlocking=false\n'
		if [ -n "$command" ]; then
			printf '\n[screen-share]\ncommand=%s\nstart-on-startup=true\n' "$command"
		fi
	} >"$file"
}

# start_weston NAME ARG...: starts Weston like start does, without meson's
# MALLOC_PERTURB_: Weston 10 presents a first frame from uninitialised
# malloc memory (seen: solid 0x5d5d5d with MALLOC_PERTURB_=162 in both the
# wayland backend and screen-share), which glibc otherwise hands out zeroed,
# i.e. black. wl-record keeps the variable (see perturb_env).
start_weston() {
	local name=$1
	shift
	start "$name" env -u MALLOC_PERTURB_ weston "$@"
}

# Prefix for commands Weston runs for us, giving them back MALLOC_PERTURB_.
perturb_env() {
	printf 'env MALLOC_PERTURB_=%s' "${MALLOC_PERTURB_:-0}"
}

# require_commands COMMAND...: skips the test unless each is installed.
require_commands() {
	local command
	for command; do
		command -v "$command" >/dev/null || skip "$command is not installed"
	done
}

# require_file_size_limit KIB: skips the test unless a child of this shell
# may run under `ulimit -f KIB` (a hard limit already below it cannot be
# raised).
require_file_size_limit() {
	(ulimit -f "$1") 2>/dev/null ||
		skip "cannot set ulimit -f $1 here (hard limit: $(ulimit -H -f))"
}

require_weston() {
	command -v weston >/dev/null || skip "weston is not installed"
	[ -n "$(weston_module_dir)" ] || skip "Weston's headless backend is not installed"
}

# The directory holding Weston's backends (headless-backend.so ...).
weston_module_dir() {
	local dir
	for dir in /usr/lib/*/libweston-[0-9]* /usr/lib/libweston-[0-9]* \
		/usr/local/lib/*/libweston-[0-9]* /usr/local/lib/libweston-[0-9]*; do
		if [ -e "$dir/headless-backend.so" ]; then
			printf '%s' "$dir"
			return
		fi
	done
}

# child_named PID NAME: prints the pid of PID's child whose command is NAME.
child_named() {
	local stat_file stat fields comm pid
	for stat_file in /proc/[0-9]*/stat; do
		read -r stat 2>/dev/null <"$stat_file" || continue
		comm=${stat#*(}
		comm=${comm%%)*}
		pid=${stat%% *}
		stat=${stat##*) }
		read -r -a fields <<<"$stat"
		if [ "${fields[1]}" = "$1" ] && [ "$comm" = "$2" ]; then
			printf '%s' "$pid"
			return 0
		fi
	done
	return 1
}

# require_reachable_by_nobody: as root, the tests that run a compositor and
# its clients as 'nobody' (wlroots refuses root) need the build to be
# reachable by that user: a clone under /root (mode 0700) is not. Fails
# with that reason rather than timing out on a client that cannot start.
require_reachable_by_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$WL_RECORD" ||
		fail "the unprivileged user 'nobody' cannot run $WL_RECORD: clone the repository" \
			"where every user can read it (not under /root, whose mode is 0700)"
}

# ffprobe_check FILE: an independent reader opens the whole file without a
# single complaint (a missing trailer or index shows up here).
ffprobe_check() {
	# A check that cannot run is no pass: ffprobe is one of the suite's
	# packages (scripts/test installs it).
	command -v ffprobe >/dev/null || fail "ffprobe is not installed: $1 cannot be checked"
	local out
	if ! out=$(ffprobe -v error -count_packets -show_entries \
		format=format_name,duration:stream=codec_name,width,height,pix_fmt,nb_read_packets \
		-of compact=p=0 "$1" 2>"$TEST_DIR/ffprobe.err"); then
		cat "$TEST_DIR/ffprobe.err"
		fail "ffprobe cannot read $1"
	fi
	if [ -s "$TEST_DIR/ffprobe.err" ]; then
		cat "$TEST_DIR/ffprobe.err"
		fail "ffprobe complains about $1"
	fi
	log "ffprobe: $(printf '%s' "$out" | tr '\n' ' ')"
	case $out in
	*duration=N/A* | *"duration= "*)
		# A stream written to stdout cannot seek back to store its
		# duration; every other file must have one (the trailer).
		[ "${2:-}" = streamed ] || fail "ffprobe finds no duration in $1" ;;
	esac
}
