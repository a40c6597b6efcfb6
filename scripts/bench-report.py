"""Summarises scripts/bench runs: one line per run on stdin,
  RECORDER WORKLOAD SIZE CPU_S FRAMES COMMITS RSS_KB BYTES LAT_P50_MS LAT_P99_MS
  CLIENT_FPS COMPOSITOR_CPU_S LOAD_1MIN
("nan" where a figure does not apply; "_" in RECORDER stands for a space, e.g.
"wl-record_(weston)"). Older 8- and 12-field lines (up to BYTES, up to
COMPOSITOR_CPU_S) are accepted too.
Prints a table of medians with (min-max) over the runs, the ratios of
wl-record to each peer (CPU per frame) and the recorded client's fps against
the same client with no recorder, and writes everything as JSON to argv[1]."""
import json
import math
import statistics
import sys
from collections import defaultdict

FIELDS = ("cpu_s", "frames", "commits", "rss_kb", "bytes",
          "latency_p50_ms", "latency_p99_ms", "client_fps", "compositor_cpu_s", "load_1min")


def number(text):
    try:
        value = float(text)
    except ValueError:
        return None
    return None if math.isnan(value) else value


runs = defaultdict(list)
for line in sys.stdin:
    parts = line.split()
    if len(parts) not in (8, 12, 13):
        continue
    rec, work, size = parts[0].replace("_", " "), parts[1], parts[2]
    values = [number(x) for x in parts[3:]] + [None] * (13 - len(parts))
    run = dict(zip(FIELDS, values))
    cpu, frames = run["cpu_s"], run["frames"]
    run["cpu_ms_per_frame"] = 1000 * cpu / frames if cpu is not None and frames else None
    run["dropped"] = (run["commits"] - frames
                      if run["commits"] is not None and frames is not None else None)
    runs[(work, size, rec)].append(run)


def med(values):
    """(median, min, max) of the values that exist, or None."""
    values = [v for v in values if v is not None]
    return (statistics.median(values), min(values), max(values)) if values else None


def text(stat, fmt="{:.1f}", spread=True):
    if stat is None:
        return "-"
    m, lo, hi = stat
    out = fmt.format(m)
    if spread and hi > lo:
        out += f" ({fmt.format(lo)}-{fmt.format(hi)})"
    return out


# Row order within a workload/size: wl-record first, then its peers, the
# baselines next to the rows they are the baseline of.
ORDER = ["wl-record", "wl-record +audio", "wl-record hosted", "wl-record window", "wl-record (weston)", "no recorder (weston)", "wl-record (sway)",
         "wf-recorder", "no recorder (sway)", "ffmpeg-cli"]


def row_key(item):
    (work, size, rec), _ = item
    return (work, size, ORDER.index(rec) if rec in ORDER else len(ORDER), rec)


summary = {}
print("| workload | size | recorder | CPU ms/frame | frames kept / committed | "
      "latency p50 ms | latency p99 ms | client fps | compositor CPU s | peak RSS MB | file MB |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for (work, size, rec), rs in sorted(runs.items(), key=row_key):
    stats = {name: med([r[name] for r in rs]) for name in FIELDS + ("cpu_ms_per_frame", "dropped")}
    rss_mb = med([r["rss_kb"] / 1024 if r["rss_kb"] is not None else None for r in rs])
    file_mb = med([r["bytes"] / 1e6 if r["bytes"] is not None else None for r in rs])
    entry = {"workload": work, "size": size, "recorder": rec, "repetitions": len(rs), "runs": rs}
    for name, stat in list(stats.items()) + [("rss_mb", rss_mb), ("file_mb", file_mb)]:
        entry[f"{name}_median"] = stat[0] if stat else None
        entry[f"{name}_min"] = stat[1] if stat else None
        entry[f"{name}_max"] = stat[2] if stat else None
    summary[f"{work} {size} {rec}"] = entry

    if stats["cpu_s"] is None:
        cpu_text = "-"
    elif work == "idle" or stats["cpu_ms_per_frame"] is None:
        cpu_text = f"{text(stats['cpu_s'], '{:.2f}')} s in all"
    else:
        cpu_text = text(stats["cpu_ms_per_frame"])
    frames = stats["frames"][0] if stats["frames"] else None
    commits = stats["commits"][0] if stats["commits"] else None
    frames_text = (f"{frames:.0f}" if frames is not None else "-") + " / " + \
                  (f"{commits:.0f}" if commits is not None else "-")
    # An idle client commits one frame: its rate says nothing.
    fps_text = "-" if work == "idle" else text(stats["client_fps"])
    print(f"| {work} | {size} | {rec} | {cpu_text} | {frames_text} "
          f"| {text(stats['latency_p50_ms'])} | {text(stats['latency_p99_ms'])} "
          f"| {fps_text} | {text(stats['compositor_cpu_s'], '{:.2f}')} "
          f"| {text(rss_mb, '{:.0f}')} | {text(file_mb, spread=False)} |")

print()
loads = [r["load_1min"] for rs in runs.values() for r in rs if r["load_1min"] is not None]
if loads:
    # Latency, above all its tail, and CPU per frame move with what else runs:
    # a load near or above the core count makes a run's figures the machine's.
    print(f"1-minute load average as each run ended: median {statistics.median(loads):.2f} "
          f"({min(loads):.2f}-{max(loads):.2f}) over {len(loads)} runs")
    print()
if any("weston" in e["recorder"] for e in summary.values()):
    print("note: Weston 10's headless backend repaints at about 39 Hz whatever is asked (no refresh\n"
          "option), so the Weston rows' client fps is ~37-40, not 60; compare them with each other.\n"
          "For wl-record (weston), frames committed are those Weston offered wl-record (kept +\n"
          "dropped), and the recording also spans Weston's first second, before the client.")
    print()


def median_of(work, size, rec, name):
    entry = summary.get(f"{work} {size} {rec}")
    return entry.get(f"{name}_median") if entry else None


cases = sorted({(e["workload"], e["size"]) for e in summary.values()})
for work, size in cases:
    # What --window costs: wl-record's CPU per frame, frames kept, and sway's
    # own CPU for showing the window.
    hosted = median_of(work, size, "wl-record hosted", "cpu_ms_per_frame")
    window = median_of(work, size, "wl-record window", "cpu_ms_per_frame")
    if hosted and window:
        dropped = median_of(work, size, "wl-record window", "dropped")
        print(f"{work} {size}: wl-record window / hosted CPU per frame = {window / hosted:.3f} "
              f"({100 * (window - hosted) / hosted:+.1f} %), frames dropped with --window: "
              f"{'-' if dropped is None else f'{dropped:.0f}'}")
for work, size in cases:
    if work == "idle":
        continue
    for ours in ("wl-record", "wl-record (weston)", "wl-record (sway)"):
        mine = median_of(work, size, ours, "cpu_ms_per_frame")
        for peer in ("wf-recorder", "ffmpeg-cli"):
            other = median_of(work, size, peer, "cpu_ms_per_frame")
            if mine and other:
                print(f"{work} {size}: {ours} / {peer} CPU per frame = {mine / other:.2f}")
for work, size in cases:
    # What --audio costs: CPU per frame, and whether every frame was kept.
    plain = median_of(work, size, "wl-record", "cpu_ms_per_frame")
    audio = median_of(work, size, "wl-record +audio", "cpu_ms_per_frame")
    if plain and audio:
        dropped = median_of(work, size, "wl-record +audio", "dropped")
        print(f"{work} {size}: wl-record +audio / wl-record CPU per frame = {audio / plain:.3f} "
              f"({100 * (audio - plain) / plain:+.1f} %), frames dropped with audio: "
              f"{'-' if dropped is None else f'{dropped:.0f}'}")
for work, size in cases:
    if work == "idle":
        continue
    # The recorded client's own frame rate against the same client with
    # nothing recording, on the same compositor.
    for rec, base in (("wl-record", None), ("wf-recorder", "no recorder (sway)"),
                      ("wl-record (sway)", "no recorder (sway)"),
                      ("wl-record (weston)", "no recorder (weston)")):
        fps = median_of(work, size, rec, "client_fps")
        if fps is None:
            continue
        line = f"{work} {size}: client fps recorded by {rec} {fps:.1f}"
        base_fps = median_of(work, size, base, "client_fps") if base else None
        if base_fps:
            line += (f", with {base} {base_fps:.1f} "
                     f"({100 * (fps - base_fps) / base_fps:+.1f} %)")
        elif rec == "wl-record":
            line += " (wl-record is the compositor here: no run without a recorder)"
        if "weston" in rec:
            line += " [Weston 10 headless repaints at ~39 Hz whatever is asked]"
        print(line)

with open(sys.argv[1], "w") as out:
    json.dump(summary, out, indent=1)
