"""Summarises scripts/bench runs: one line per run on stdin
(RECORDER WORKLOAD SIZE CPU_S FRAMES COMMITS RSS_KB BYTES); prints a table of
medians with min-max, the ratios of wl-record to each peer, and writes JSON."""
import json
import statistics
import sys
from collections import defaultdict

runs = defaultdict(list)
for line in sys.stdin:
    parts = line.split()
    if len(parts) != 8:
        continue
    rec, work, size = parts[:3]
    cpu, frames, commits, rss, size_b = (float(x) for x in parts[3:])
    runs[(work, size, rec)].append({
        "cpu_s": cpu, "frames": frames, "commits": commits, "rss_kb": rss, "bytes": size_b,
        "cpu_ms_per_frame": 1000 * cpu / frames if frames else None,
    })

def med(values):
    values = [v for v in values if v is not None]
    return (statistics.median(values), min(values), max(values)) if values else (None, None, None)

summary = {}
print("| workload | size | recorder | CPU ms/frame | frames kept / committed | peak RSS MB | file MB |")
print("|---|---|---|---|---|---|---|")
for (work, size, rec), rs in sorted(runs.items()):
    cpu = med([r["cpu_ms_per_frame"] for r in rs])
    cpu_total = med([r["cpu_s"] for r in rs])
    frames = med([r["frames"] for r in rs])
    commits = med([r["commits"] for r in rs])
    rss = med([r["rss_kb"] / 1024 for r in rs])
    mb = med([r["bytes"] / 1e6 for r in rs])
    summary[f"{work} {size} {rec}"] = {"runs": rs, "cpu_ms_per_frame_median": cpu[0],
                                       "cpu_s_median": cpu_total[0], "frames_median": frames[0],
                                       "commits_median": commits[0], "rss_mb_median": rss[0]}
    if work == "idle" or cpu[0] is None:
        cpu_text = f"{cpu_total[0]:.2f} s in all"
    else:
        cpu_text = f"{cpu[0]:.1f} ({cpu[1]:.1f}-{cpu[2]:.1f})"
    print(f"| {work} | {size} | {rec} | {cpu_text} | {frames[0]:.0f} / {commits[0]:.0f} "
          f"| {rss[0]:.0f} ({rss[1]:.0f}-{rss[2]:.0f}) | {mb[0]:.1f} |")

print()
for key, value in sorted(summary.items()):
    work, size, rec = key.split()
    if rec != "wl-record" or work == "idle":
        continue
    for peer in ("wf-recorder", "ffmpeg-cli"):
        other = summary.get(f"{work} {size} {peer}")
        if other and other["cpu_ms_per_frame_median"] and value["cpu_ms_per_frame_median"]:
            print(f"{work} {size}: wl-record / {peer} CPU per frame = "
                  f"{value['cpu_ms_per_frame_median'] / other['cpu_ms_per_frame_median']:.2f}")
with open(sys.argv[1], "w") as out:
    json.dump(summary, out, indent=1)
