# A private PipeWire audio server for the audio tests, sourced after
# tests/integration/lib.sh (which gives the test its own XDG_RUNTIME_DIR and
# stops what `start` started): a session D-Bus (wireplumber needs one),
# pipewire, wireplumber and pipewire-pulse (the PulseAudio protocol that
# wl-record's libpulse speaks). No sound card: wireplumber makes the
# "auto_null" sink, the default, and its monitor is the default monitor.
# All run as root too (the CI machine): pipewire only warns.
#
# AUDIO_SERVER=pulseaudio starts PulseAudio itself instead (the other
# server libpulse serves): its module-always-sink plays wireplumber's part
# (an "auto_null" sink while there is no other), and a session bus is
# started all the same.

require_audio_server() {
	local binary binaries=(pipewire wireplumber pipewire-pulse)
	[ "${AUDIO_SERVER:-pipewire}" != pulseaudio ] || binaries=(pulseaudio)
	for binary in dbus-daemon "${binaries[@]}" pactl paplay ffmpeg ffprobe python3; do
		command -v "$binary" >/dev/null ||
			skip "$binary is not installed (Debian: pipewire, wireplumber, pipewire-pulse, pulseaudio, pulseaudio-utils, dbus)"
	done
}

# A desktop's sound server runs ahead of the programs around it: its graph's
# threads realtime (rtkit, or PipeWire's module-rt where the limits allow),
# its main loops at nice -11. Here each process `start` starts is a session
# of its own, and the kernel's autogroups share the CPU between sessions
# equally whatever their threads' nice: the server, one session among a
# loaded machine's many, lost its timeline in each of three loaded
# recordings of a sanitized CI run. raise_server PID...: the server's
# sessions get the nice a desktop gives its threads (SERVER_PRIORITY=raised);
# where that is not permitted (no CAP_SYS_NICE: a container),
# SERVER_PRIORITY=equal and a test that loads the machine puts its own
# processes below the server instead (below_server), the same order.
raise_server() {
	SERVER_PRIORITY=raised
	local pid
	for pid in "$@"; do
		[ -e "/proc/$pid/autogroup" ] || continue
		echo -11 2>/dev/null >"/proc/$pid/autogroup" || SERVER_PRIORITY=equal
	done
	[ "$SERVER_PRIORITY" = raised ] ||
		log "the sound server's priority cannot be raised here (no CAP_SYS_NICE):" \
			"a loaded test puts its own processes below it instead"
}

# below_server PID: PID's session and process group run below the sound
# server when raise_server could not raise it (else nothing).
below_server() {
	[ "${SERVER_PRIORITY:-raised}" = equal ] || return 0
	[ ! -e "/proc/$1/autogroup" ] || echo 11 2>/dev/null >"/proc/$1/autogroup" ||
		fail "cannot lower the priority of process $1"
	renice -n 11 -g "$1" >/dev/null || fail "cannot lower the priority of process group $1"
}

pactl_ready() {
	pactl info >/dev/null 2>&1 && pactl list short sinks 2>/dev/null | grep -q .
}

# start_audio_server: sets DBUS_SESSION_BUS_ADDRESS; the default sink exists
# on return. PULSE_SERVER from the caller is dropped: the test's own only.
start_audio_server() {
	require_audio_server
	unset PULSE_SERVER PULSE_SINK PULSE_SOURCE PIPEWIRE_REMOTE PIPEWIRE_RUNTIME_DIR
	export DBUS_SESSION_BUS_ADDRESS="unix:path=$XDG_RUNTIME_DIR/bus"
	start dbus dbus-daemon --session --nofork --nopidfile --address="$DBUS_SESSION_BUS_ADDRESS"
	wait_until 10 "the session bus" test -S "$XDG_RUNTIME_DIR/bus"
	if [ "${AUDIO_SERVER:-pipewire}" = pulseaudio ]; then
		# -n: no default.pa (it would look for sound cards); the modules a
		# desktop's PulseAudio has that matter here.
		start pulseaudio env HOME="$TEST_DIR" pulseaudio -n --daemonize=no \
			--exit-idle-time=-1 --use-pid-file=no --log-target=stderr \
			-L module-native-protocol-unix -L module-always-sink
		PULSE_PID=$STARTED_PID
		raise_server "$PULSE_PID"
		# paplay asks for a 2 s buffer when not told otherwise; players
		# that people record (browsers, games, mpv) ask for tens of ms, and
		# so do the tests' players here (see also playing_to_sink).
		mkdir -p "$TEST_DIR/bin"
		printf '#!/bin/sh\nexec %s --latency-msec=30 "$@"\n' "$(command -v paplay)" \
			>"$TEST_DIR/bin/paplay"
		chmod +x "$TEST_DIR/bin/paplay"
		export PATH="$TEST_DIR/bin:$PATH"
	else
		start pipewire pipewire
		local server_pids=("$STARTED_PID")
		wait_until 10 "pipewire's socket" test -S "$XDG_RUNTIME_DIR/pipewire-0"
		start wireplumber wireplumber
		server_pids+=("$STARTED_PID")
		# Its folder made first: pipewire-pulse was seen failing to start
		# ("mkdir() .../pulse failed: File exists") when the readiness
		# polling's pactl made the folder at the same moment.
		mkdir -m 0700 -p "$XDG_RUNTIME_DIR/pulse"
		start pipewire-pulse pipewire-pulse
		PULSE_PID=$STARTED_PID
		raise_server "${server_pids[@]}" "$PULSE_PID"
	fi
	wait_until 20 "the sound server with a sink" pactl_ready
	# wireplumber picks the default; one sink is there, make sure of it.
	local sink
	sink=$(pactl list short sinks | awk 'NR == 1 { print $2 }')
	# Retried: once in a few dozen starts the call failed while wireplumber
	# was still settling the sink it had just made.
	wait_until 10 "$sink as the default sink" pactl set-default-sink "$sink"
	wait_until 10 "the default sink" sh -c 'pactl info | grep -q "^Default Sink: [^@]"'
	log "audio server: $(pactl info | grep '^Server Name'), default sink $sink"
}

# write_sine FILE HZ SECONDS: a 48 kHz stereo 16-bit WAV, -8.7 dBFS peak.
write_sine() {
	python3 - "$1" "$2" "$3" <<'PY'
import math, struct, sys, wave
path, hz, seconds = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
with wave.open(path, "wb") as w:
    w.setnchannels(2)
    w.setsampwidth(2)
    w.setframerate(48000)
    frames = bytearray()
    for i in range(int(48000 * seconds)):
        v = int(12000 * math.sin(2 * math.pi * hz * i / 48000))
        frames += struct.pack("<hh", v, v)
    w.writeframes(bytes(frames))
PY
}

# playing_to_sink: a stream is playing (paplay has connected). Under
# PulseAudio, also that the null sink has caught up with the wall clock:
# when the first stream connects it renders up to 2 s ahead at once (seen:
# "Latency: 1926298 usec, configured 7500 usec"), and its monitor then
# delivers nothing until the clock catches up, which a recording started
# meanwhile would hold as silence. A sound card's sink has no such start.
playing_to_sink() {
	pactl list short sink-inputs 2>/dev/null | grep -q . || return 1
	[ "${AUDIO_SERVER:-pipewire}" = pulseaudio ] || return 0
	pactl list sinks 2>/dev/null | awk '/^[[:space:]]*Latency:/ { found = 1; if ($2 > 100000) bad = 1 }
		END { exit (found && !bad) ? 0 : 1 }'
}

# no_gaps_counted: every audio summary line of record.log (the track's and
# each source's) says the sound had no gap, no drop and no re-anchor, and
# there is one: for a sound that played throughout the recording.
# One exception: when audio-check.py tolerated one hole of the test
# server's (a loaded machine's underrun, at most 80 ms), the server may have
# reported it and wl-record filled it with silence, as it should: a gap of
# up to that hole is then counted, still with nothing dropped or re-anchored.
export AUDIO_CHECK_NOTES="$TEST_DIR/audio-check.notes"
no_gaps_counted() {
	local lines allowed="0\.00"
	lines=$(grep -E "s of gaps filled with silence" "$TEST_DIR/record.log") || return 1
	if grep -q "^tolerated-hole-ms" "$AUDIO_CHECK_NOTES" 2>/dev/null; then
		allowed="0\.0[0-8]"
		log "the test server's underrun was tolerated in the file: a gap of up to 0.08 s may be counted"
	fi
	! echo "$lines" | grep -qvE " $allowed s of gaps filled with silence, 0\.00 s dropped, 0 re-anchors$"
}
