# A private PipeWire for the video tests, sourced after
# tests/integration/lib.sh (which gives the test its own XDG_RUNTIME_DIR and
# stops what `start` started): a session D-Bus (wireplumber needs one),
# pipewire and wireplumber (which links wl-record's stream to the node it
# names). No pipewire-pulse: nothing here is sound. Root only warns.

require_pipewire() {
	local binary
	for binary in dbus-daemon pipewire wireplumber pw-cli ffmpeg ffprobe python3; do
		command -v "$binary" >/dev/null ||
			skip "$binary is not installed (Debian: pipewire, wireplumber, pipewire-bin, dbus, ffmpeg)"
	done
}

start_pipewire() {
	require_pipewire
	unset PIPEWIRE_REMOTE PIPEWIRE_RUNTIME_DIR
	export DBUS_SESSION_BUS_ADDRESS="unix:path=$XDG_RUNTIME_DIR/bus"
	start dbus dbus-daemon --session --nofork --nopidfile --address="$DBUS_SESSION_BUS_ADDRESS"
	wait_until 10 "the session bus" test -S "$XDG_RUNTIME_DIR/bus"
	start pipewire pipewire
	PIPEWIRE_PID=$STARTED_PID
	wait_until 10 "pipewire's socket" test -S "$XDG_RUNTIME_DIR/pipewire-0"
	start wireplumber wireplumber
}

# node_exists NAME: PipeWire has a node of that node.name.
node_exists() {
	pw-cli ls Node 2>/dev/null | grep -q "node.name = \"$1\""
}

# node_property NAME KEY: a property of the node called NAME ("id": its id).
node_property() {
	pw-dump 2>/dev/null | python3 -c '
import json, sys
name, key = sys.argv[1], sys.argv[2]
for o in json.load(sys.stdin):
    props = (o.get("info") or {}).get("props") or {}
    if o.get("type") == "PipeWire:Interface:Node" and props.get("node.name") == name:
        print(o["id"] if key == "id" else props.get(key, ""))
        break
' "$1" "$2"
}

# producer_frames N: the producer (started as "producer") sent N frames.
producer_frames() {
	[ "$(grep -c '^frame ' "$TEST_DIR/producer.log" 2>/dev/null)" -ge "$1" ]
}

monotonic_ns() {
	python3 -c 'import time; print(time.monotonic_ns())'
}
