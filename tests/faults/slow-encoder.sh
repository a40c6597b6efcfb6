#!/bin/bash
# An encoder far slower than its input (libx264 placebo on one thread at
# 1920x1080, every pixel changing at 30 fps on 2 cores): wl-record drops
# frames instead of queueing them, counts the drops and says so, keeps its
# memory bounded, keeps answering the presenter (which waits for each
# buffer's release), and finishes a playable file. One encoder thread leaves
# the presenter a core: with veryslow on both cores, a sanitized presenter
# slowed to the encoder's pace and nothing was dropped. The presenter's
# commit gaps are printed, not asserted (speed is measured by scripts).
. "$TEST_LIB"
require_commands ffprobe

FRAMES=90
INTERVAL=33
RSS_LIMIT_KIB=$((1536 * 1024))

start wl-record "$WL_RECORD" --size 1920x1080 -p preset=placebo -p threads=1 --socket slow "$TEST_DIR/slow.mkv"
server=$STARTED_PID
wait_until 5 "wl-record to listen" socket_exists slow
WAYLAND_DISPLAY=slow start presenter "$PRESENTER" --size 1920x1080 --frames $FRAMES \
	--interval-ms $INTERVAL --times "$TEST_DIR/slow.times"
client=$STARTED_PID
peak=0
while is_running "$client"; do
	rss=$(awk '/^VmRSS/ {print $2}' "/proc/$server/status" 2>/dev/null)
	[ -n "$rss" ] && [ "$rss" -gt "$peak" ] && peak=$rss
	sleep 0.1
done
wait_exit "$client" 5
[ "$EXIT_STATUS" -eq 0 ] || fail "the presenter exited $EXIT_STATUS"
wait_exit "$server" 90
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record exited $EXIT_STATUS"

summary=$(grep -E 'wrote .*frames in .* dropped' "$TEST_DIR/wl-record.log") ||
	fail "wl-record printed no summary with its drop count"
log "wl-record: $summary"
dropped=$(sed -E 's/.* ([0-9]+) dropped.*/\1/' <<<"$summary")
recorded=$(sed -E 's/.*: ([0-9]+) frames in.*/\1/' <<<"$summary")
[ "$dropped" -gt 0 ] || fail "no frame dropped: the encoder was not slower than the input"
# (dropped counts refused offers: the newest picture is offered again each
# period until taken, so it can exceed the frames presented.)
[ "$recorded" -lt $FRAMES ] || fail "all $FRAMES frames recorded: the encoder kept up"
log "peak RSS sampled: $peak KiB"
[ "$peak" -lt "$RSS_LIMIT_KIB" ] || fail "wl-record's RSS reached $peak KiB"
gaps=$(awk 'NR > 1 { g = ($2 - prev) / 1e6; if (g > max) max = g } { prev = $2 } END { printf "%.1f", max }' "$TEST_DIR/slow.times")
log "presenter: $(wc -l <"$TEST_DIR/slow.times") commits, longest gap between commits $gaps ms (interval $INTERVAL ms)"
frames=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames \
	-of csv=p=0 "$TEST_DIR/slow.mkv") || fail "ffprobe cannot read slow.mkv"
frames=${frames//[^0-9]/}
[ "$frames" -ge 1 ] || fail "slow.mkv holds no frame"
log "slow.mkv: $frames frames decode"
pass
