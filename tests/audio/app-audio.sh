#!/bin/bash
# --app-audio records the sound of the command wl-record runs, and only
# that: the command plays 440 Hz while another program plays 880 Hz on the
# default output (the test's own "speakers" sink) all along; the file must
# hold 440 Hz and no 880 Hz. wl-record's output for the command is a null
# sink "wl-record-<pid>-app"; unless --mute-app a loopback passes it on to
# the speakers during the recording. When wl-record is gone, none of its
# modules is left on the server.
#   app-audio.sh audible   --duration: the loopback is there meanwhile
#   app-audio.sh muted     --mute-app: no loopback meanwhile
#   app-audio.sh sigterm   stopped by SIGTERM (sigint: SIGINT)
#   app-audio.sh killed    SIGKILL leaves the modules behind; the next
#                          --app-audio removes them (their owner is dead)
#   app-audio.sh pw-play   as audible, the command plays with pw-play, a
#                          native PipeWire client (PIPEWIRE_NODE)
#   app-audio.sh with-audio --app-audio --mute-app --audio=speakers.monitor:
#                          two tracks, the command's (440 only) first,
#                          then the speakers' (880 only)
#   app-audio.sh no-output no sound output but the server's stand-in
#                          (auto_null, which goes when wl-record's sink
#                          comes): no loopback (it would feed the sink into
#                          itself), a warning, the sound still recorded
. "$TEST_LIB"
. "$(dirname "$TEST_LIB")/../audio/audio-lib.sh"
CHECK=$(dirname "$TEST_LIB")/../audio/audio-check.py

mode=${1:?audible, muted, sigterm, sigint, killed, pw-play, with-audio or no-output}
player=paplay
case $mode in
audible | muted | sigterm | sigint | killed | no-output | with-audio) ;;
pw-play)
	player=pw-play
	command -v pw-play >/dev/null || skip "pw-play is not installed (Debian: pipewire-bin)"
	;;
*) fail "unknown mode $mode" ;;
esac

start_audio_server
if [ "$mode" != no-output ]; then
	# The user's speakers, the default output. (The server's stand-in sink,
	# auto_null, goes as soon as another sink exists: wl-record's own would
	# then be the only one.)
	pactl load-module module-null-sink sink_name=speakers >/dev/null ||
		fail "cannot make the speakers sink"
	pactl set-default-sink speakers || fail "cannot make speakers the default sink"
	wait_until 10 "speakers as the default sink" sh -c 'pactl info | grep -q "^Default Sink: speakers$"'

	write_sine "$TEST_DIR/other.wav" 880 20
	start other paplay "$TEST_DIR/other.wav"
	wait_until 10 "the other program's stream" playing_to_sink
fi

write_sine "$TEST_DIR/app.wav" 440 20

# The modules of wl-record PID on the server, one per line.
modules_of() {
	pactl list short modules | grep -E "wl-record-$1-app" || true
}

sink_index() {
	pactl list short sinks | awk -v name="$1" '$2 == name { print $1 }'
}

# A stream plays into sink $1: the command's player (the loopback reads
# from the sink's monitor and plays into the speakers).
stream_in_sink() {
	local index
	index=$(sink_index "$1")
	[ -n "$index" ] && pactl list short sink-inputs |
		awk -v i="$index" '$2 == i { found = 1 } END { exit !found }'
}

# record NAME ARG...: wl-record with --app-audio running the presenter and,
# beside it, $player playing the 440 Hz tone; sets record_pid and sink.
record() {
	local name=$1
	shift
	start "$name" "$WL_RECORD" -v --app-audio "$@" "$TEST_DIR/$name.mkv" -- \
		sh -c '"$3" "$1" & exec "$2" --frames 100000 --interval-ms 50' sh \
		"$TEST_DIR/app.wav" "$PRESENTER" "$player"
	record_pid=$STARTED_PID
	sink=wl-record-$record_pid-app
	wait_until 20 "the command's stream in $sink" stream_in_sink "$sink"
	log_has "$name" "audio: the command's own sound \\($sink\\)" ||
		fail "wl-record did not say it records the command's sound"
	log "during the recording: $(modules_of "$record_pid" | cut -f2- | tr '\n' ';')"
}

# check_file NAME: 440 Hz in the file, without hole or click while it
# plays, the other program's 880 Hz not. Not pw-play's: a native PipeWire
# client on a loaded machine underruns, and the sink plays (and its monitor
# holds) silence for it: holes of 10-15 ms were seen in 3 runs of 4 with
# no gap in the monitor's stream (paplay's sound is buffered in the server).
check_file() {
	local absent=(--absent=880 --continuous)
	[ "$mode" != pw-play ] || absent=(--absent=880)
	# Not under PulseAudio itself either, for now: the command's null
	# sink there holds back its first 1.5-2 s (the file has 1.6 s of gaps
	# and 5 re-anchors, the tone from 1.47 s on; main: 1.98 s of gaps), the
	# null sink's rendering ahead that playing_to_sink waits out for
	# --audio. An open problem, not this check's.
	[ "${AUDIO_SERVER:-pipewire}" != pulseaudio ] || absent=(--absent=880)
	[ "$mode" != no-output ] || absent=()
	python3 "$CHECK" "${absent[@]}" "$TEST_DIR/$1.mkv" opus 440 ||
		fail "the audio of $1.mkv is wrong"
}

check_nothing_left() {
	local left
	left=$(modules_of "$record_pid")
	[ -z "$left" ] || fail "modules left after wl-record exited: $left"
	[ -z "$(sink_index "$sink")" ] || fail "$sink is still there"
}

loopback_loaded() {
	modules_of "$record_pid" | grep -qE "module-loopback[[:space:]]+source=$sink\\.monitor sink=speakers"
}

case $mode in
with-audio)
	# Muted, so that the speakers' monitor holds the other program only.
	record out --duration 3 --mute-app --audio=speakers.monitor
	wait_exit "$record_pid" 30
	[ "$EXIT_STATUS" = 0 ] || fail "wl-record exited $EXIT_STATUS"
	check_nothing_left
	python3 "$CHECK" --continuous --streams=2 --stream=0 --without=880 "$TEST_DIR/out.mkv" opus 440 ||
		fail "the first track is not the command's sound alone"
	python3 "$CHECK" --continuous --streams=2 --stream=1 --without=440 "$TEST_DIR/out.mkv" opus 880 ||
		fail "the second track is not the speakers' sound alone"
	;;
audible | muted | pw-play)
	flags=(--duration 3)
	[ "$mode" = muted ] && flags+=(--mute-app)
	record out "${flags[@]}"
	if [ "$mode" != muted ]; then
		loopback_loaded || fail "no loopback from $sink to the speakers while recording"
	else
		! modules_of "$record_pid" | grep -q module-loopback ||
			fail "--mute-app: a loopback is loaded"
	fi
	wait_exit "$record_pid" 30
	[ "$EXIT_STATUS" = 0 ] || fail "wl-record exited $EXIT_STATUS"
	check_nothing_left
	check_file out
	;;
sigterm | sigint)
	signal=${mode#sig}
	signal=${signal^^}
	record out
	loopback_loaded || fail "no loopback from $sink to the speakers while recording"
	# Long enough a file for the check (which wants 1.5 s of video).
	sleep 2.5
	is_running "$record_pid" || fail "wl-record ended before it was asked to"
	kill "-$signal" "$record_pid"
	wait_exit "$record_pid" 30
	[ "$EXIT_STATUS" = 0 ] || fail "wl-record stopped by SIG$signal exited $EXIT_STATUS"
	check_nothing_left
	check_file out
	;;
killed)
	record first
	first_pid=$record_pid
	kill -KILL "$first_pid"
	wait_exit "$first_pid" 10
	[ -n "$(modules_of "$first_pid")" ] ||
		fail "SIGKILL: the modules went with wl-record (then nothing is to clean up: " \
			"the test is wrong)"
	record second --duration 3
	[ -z "$(modules_of "$first_pid")" ] ||
		fail "the modules of the killed wl-record are still there: $(modules_of "$first_pid")"
	log_has second "removed the output wl-record-$first_pid-app" ||
		fail "wl-record did not say it removed the leftovers"
	wait_exit "$record_pid" 30
	[ "$EXIT_STATUS" = 0 ] || fail "the second wl-record exited $EXIT_STATUS"
	check_nothing_left
	check_file second
	;;
no-output)
	pactl info | grep -q "^Default Sink: auto_null$" ||
		skip "the server's default output is not its stand-in auto_null: $(pactl info | grep '^Default Sink')"
	record out --duration 3
	! modules_of "$record_pid" | grep -q module-loopback ||
		fail "a loopback is loaded with no output to play on"
	log_has out "no sound output to play the command's sound on \(the server has only the stand-in auto_null\)" ||
		fail "no warning that the command is not heard"
	wait_exit "$record_pid" 30
	[ "$EXIT_STATUS" = 0 ] || fail "wl-record exited $EXIT_STATUS"
	check_nothing_left
	check_file out
	;;
esac
grep -E "audio" "$TEST_DIR"/*.log | grep -v "^$TEST_DIR/other.log" | sed "s|^$TEST_DIR/|$TEST_NAME: |"
pass
