#!/usr/bin/env python3
"""A/V sync of a recording of tests/audio/flash_click:
  av-sync-check.py FILE TIMES FLASHES [TOLERANCE_MS [MAX_DRIFT_MS]]

Decodes FILE: the video with ffmpeg's showinfo (each frame's time and mean
luma: a white frame is a flash), the first audio stream to 48 kHz mono PCM (a
click's onset: the first sample above a quarter of the clicks' peak after
silence). Every flash must have a click, and each white frame must be within
TOLERANCE_MS (default 17: one frame period at 60 fps) of its click, after
allowing for what the client reports in TIMES ("k planned commit onset", ns):
a white frame committed late or a click placed late on a busy machine moves
the expected offset by as much, and no more.

MAX_DRIFT_MS: the offset of the last flash may differ from the first's by
at most that, and so may the medians of each minute's flashes (the curve,
printed a line a minute).

Times are the file's own (ffmpeg -copyts): the audio's first decoded sample
is at the time of its first decoded frame. Prints one line per flash and the
figures; exit status 1 with a reason when a check fails."""
import array
import re
import sys
import subprocess

RATE = 48000


def flashes(path):
    """Times (s) of the first white frame of each white run."""
    out = subprocess.run(["ffmpeg", "-hide_banner", "-copyts", "-i", path, "-map", "0:v:0",
                          "-vf", "scale=32:24,format=gray,showinfo", "-fps_mode", "passthrough",
                          "-f", "null", "-"], check=True, capture_output=True, text=True)
    times, white = [], False
    for line in out.stderr.splitlines():
        match = re.search(r"pts_time:\s*([-0-9.e]+).*mean:\[(\d+)", line)
        if not match:
            continue
        t, mean = float(match.group(1)), int(match.group(2))
        if mean > 128 and not white:
            times.append(t)
        white = mean > 128
    return times


def audio(path):
    """(time of the first sample, samples) of the first audio stream."""
    out = subprocess.run(["ffmpeg", "-hide_banner", "-copyts", "-i", path, "-map", "0:a:0",
                          "-af", "ashowinfo", "-ac", "1", "-f", "s16le", "-"],
                         check=True, capture_output=True)
    first = None
    for line in out.stderr.decode(errors="replace").splitlines():
        match = re.search(r"pts_time:\s*([-0-9.e]+)", line)
        if match and "ashowinfo" in line:
            first = float(match.group(1))
            break
    if first is None:
        sys.exit("FAIL: no audio frame times from ashowinfo")
    samples = array.array("h")
    samples.frombytes(out.stdout[:len(out.stdout) // 2 * 2])
    if sys.byteorder != "little":
        samples.byteswap()
    return first, samples


def onsets(first, samples):
    """Times (s) of click onsets: a rise above a quarter of the peak after at
    least 100 ms below it."""
    peak = max(max(samples), -min(samples)) if samples else 0
    if peak < 3000:
        sys.exit("FAIL: no clicks in the audio (peak %d)" % peak)
    threshold = peak / 4
    quiet = int(0.1 * RATE)
    times, last_loud = [], -quiet
    for i, x in enumerate(samples):
        if abs(x) > threshold:
            if i - last_loud >= quiet:
                times.append(first + i / RATE)
            last_loud = i
    return times


def main():
    path, times_path, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    tolerance = float(sys.argv[4]) / 1000 if len(sys.argv) > 4 else 0.017
    max_drift = float(sys.argv[5]) / 1000 if len(sys.argv) > 5 else None
    reported = []
    with open(times_path) as f:
        for line in f:
            k, planned, commit, onset = (int(v) for v in line.split())
            reported.append((planned, commit, onset))
    video = flashes(path)
    first, samples = audio(path)
    clicks = onsets(first, samples)
    print("%d white frames, %d clicks, audio from %.4f s" % (len(video), len(clicks), first))
    if len(video) != count or len(clicks) != count or len(reported) != count:
        sys.exit("FAIL: expected %d flashes and clicks: %d white frames %s, %d clicks %s" %
                 (count, len(video), ["%.3f" % t for t in video], len(clicks),
                  ["%.3f" % t for t in clicks]))
    worst = 0.0
    offsets = []
    for k, (flash, click) in enumerate(zip(video, clicks)):
        planned, commit, onset = reported[k]
        # The client's own lateness: white committed after the click's place.
        expected = (commit - onset) / 1e9
        offset = flash - click
        error = offset - expected
        offsets.append(offset - expected)
        worst = max(worst, abs(error))
        print("flash %d: white %.4f s, click %.4f s: video-audio %+.1f ms "
              "(client: commit %+.1f ms, click %+.1f ms from plan) error %+.1f ms" %
              (k, flash, click, offset * 1000, (commit - planned) / 1e6,
               (onset - planned) / 1e6, error * 1000))
    mean = sum(offsets) / len(offsets)
    print("video-audio offset: mean %+.1f ms, worst %.1f ms, spread %.1f ms (tolerance %.1f ms)" %
          (mean * 1000, worst * 1000, (max(offsets) - min(offsets)) * 1000, tolerance * 1000))
    drift = offsets[-1] - offsets[0]
    print("drift: first flash %+.1f ms, last (at %.0f s) %+.1f ms: %+.1f ms" %
          (offsets[0] * 1000, video[-1], offsets[-1] * 1000, drift * 1000))
    if max_drift is not None:
        # The curve, a line a minute: the median of the minute's flashes
        # (one late flash moves it by nothing), and how the offset moved
        # over the whole recording: the range of those medians, which is
        # what MAX_DRIFT_MS bounds; the range of single flashes is shown.
        minutes = {}
        for t, offset in zip(video, offsets):
            minutes.setdefault(int(t // 60), []).append(offset)
        print("curve: minute, flashes, median video-audio offset ms (min, max)")
        medians = []
        for minute in sorted(minutes):
            values = sorted(minutes[minute])
            medians.append(values[len(values) // 2])
            print("curve: %3d %3d %+6.1f (%+.1f, %+.1f)" % (minute, len(values), medians[-1] * 1000,
                                                        values[0] * 1000, values[-1] * 1000))
        n = len(offsets)
        mean_t = sum(video) / n
        slope = (sum((t - mean_t) * (o - mean) for t, o in zip(video, offsets)) /
                 max(sum((t - mean_t) ** 2 for t in video), 1e-9))
        moved = max(medians) - min(medians)
        print("drift: the minute medians span %.1f ms (single flashes %.1f ms), the fitted line "
              "moves %+.1f ms an hour (%+.1f ms over the %.0f s)"
              % (moved * 1000, (max(offsets) - min(offsets)) * 1000, slope * 3600 * 1000,
                 slope * (video[-1] - video[0]) * 1000, video[-1] - video[0]))
        if moved > max_drift or abs(drift) > max_drift:
            sys.exit("FAIL: the offset moved by %.1f ms (minute medians; first to last %.1f ms): "
                     "more than %.1f ms" % (moved * 1000, drift * 1000, max_drift * 1000))
    if worst > tolerance:
        sys.exit("FAIL: a white frame and its click are %.1f ms apart (more than %.1f ms)" %
                 (worst * 1000, tolerance * 1000))


main()
