# Sourced by scripts/bench and scripts/profile: reading their runs' outputs.

# frames_in FILE: the number of video packets in a recording (0 if unreadable).
frames_in() { ffprobe -v error -count_packets -show_entries stream=nb_read_packets -of csv=p=0 "$1" 2>/dev/null || echo 0; }

# latency_of LOG: "P50 P99" from wl-record -v's last line "commit to packet:
# median X ms, 99th percentile Y ms", or "nan nan".
latency_of() {
	local lat
	lat=$(sed -n 's/.*commit to packet: median \([0-9.]*\) ms, 99th percentile \([0-9.]*\) ms.*/\1 \2/p' "$1" | tail -n 1)
	echo "${lat:-nan nan}"
}
