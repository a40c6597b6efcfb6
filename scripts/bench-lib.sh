# shellcheck shell=bash
# Sourced by scripts/bench, scripts/profile and scripts/soak: reading their
# runs' outputs. wl-record's figures come from its --stats-fd summary (one
# JSON line, keys in wl-record(1)), never from its log, which is for people.

# frames_in FILE: the number of video packets in a recording (0 if unreadable).
frames_in() { ffprobe -v error -select_streams v:0 -count_packets -show_entries stream=nb_read_packets -of csv=p=0 "$1" 2>/dev/null || echo 0; }

# stats_of SUMMARY KEY...: the values of KEYs in a --stats-fd summary file,
# on one line separated by spaces; "nan" for a key that is null or missing,
# or when the file holds no summary.
stats_of() {
	python3 - "$@" <<'PY'
import json, sys
try:
    with open(sys.argv[1]) as f:
        summary = json.loads(f.read().splitlines()[-1])
except (OSError, ValueError, IndexError):
    summary = {}
print(" ".join("nan" if summary.get(key) is None else str(summary[key]) for key in sys.argv[2:]))
PY
}

# latency_of SUMMARY: "P50 P99", commit to packet in ms, or "nan nan".
latency_of() { stats_of "$1" latency_p50_ms latency_p99_ms; }
