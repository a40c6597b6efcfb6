#!/bin/bash
# --audio (or --app-audio) with no audio server (an empty XDG_RUNTIME_DIR,
# no PULSE_SERVER): one clear line at start, exit status 1, no file left
# behind (the recording never started: like any start-up failure, the
# empty output is removed) and the command never run.
#   no-server.sh [--audio|--app-audio]
. "$TEST_LIB"
option=${1:---audio}
unset PULSE_SERVER PULSE_RUNTIME_PATH
export PULSE_CLIENTCONFIG=/dev/null # no autospawn, no server from a config
start record "$WL_RECORD" "$option" --duration 3 "$TEST_DIR/out.mkv" -- \
	touch "$TEST_DIR/ran"
wait_exit "$STARTED_PID" 20
[ "$EXIT_STATUS" = 1 ] || fail "wl-record $option without a server exited $EXIT_STATUS, expected 1"
log_has record "^wl-record: (audio: )?$option: no audio server" ||
	fail "no clear line about the missing server: $(cat "$TEST_DIR/record.log")"
lines=$(wc -l <"$TEST_DIR/record.log")
[ "$lines" = 1 ] || fail "$lines lines on stderr, expected 1: $(cat "$TEST_DIR/record.log")"
[ ! -e "$TEST_DIR/out.mkv" ] || fail "out.mkv was left behind"
[ ! -e "$TEST_DIR/ran" ] || fail "the command was run"
pass
