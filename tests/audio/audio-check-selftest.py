#!/usr/bin/env python3
"""The strict continuity check (audio-check.py --strict) proven on sound made
here: a perfect 440 Hz tone passes, in FLAC (lossless) and through the
codecs wl-record uses (Opus in Matroska, AAC in MP4), and so does a tone
stretched by 0.5 % (the most the drift compensation's resampling does); a hole
of 1 ms (over a zero crossing, the hardest for the level check, and over a
peak), a cut of 0.5 ms (anywhere, also symmetrically over a peak), a lost 10 ms chunk and a dip to 80 % for 20 ms fail,
with the reason the check gives for them. Each file has a video track as
long as the sound, as a recording has (the checker compares them).
  audio-check-selftest.py AUDIO_CHECK [CASE...]
Exit status 0 when every case came out as expected, 1 otherwise, 77 when
ffmpeg is not installed."""
import array
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
import wave

RATE = 48000
HZ = 440
AMPLITUDE = 12000  # -8.7 dBFS peak, as audio-lib.sh's write_sine


def tone(seconds):
    """Whole seconds of the tone: 440 whole periods a second repeat exactly."""
    second = array.array("h", (int(AMPLITUDE * math.sin(2 * math.pi * HZ * n / RATE))
                               for n in range(RATE)))
    return second * seconds


def stretched(seconds):
    """The tone with its middle third played 0.5 % fast (phase continuous)."""
    out, phase = array.array("h"), 0.0
    for n in range(seconds * RATE):
        hz = HZ * 1.005 if seconds * RATE // 3 <= n < 2 * seconds * RATE // 3 else HZ
        out.append(int(AMPLITUDE * math.sin(phase)))
        phase += 2 * math.pi * hz / RATE
    return out


# Sample 5 s in: the tone's rising zero crossing; its peak 27 samples on.
AT = 5 * RATE


def hole(samples, start, length):
    out = array.array("h", samples)
    out[start:start + length] = array.array("h", bytes(2 * length))
    return out


def cut(samples, start, length):
    return samples[:start] + samples[start + length:]


def spike(samples, start, size):
    out = array.array("h", samples)
    out[start] += size
    return out


def dip(samples, start, length, gain):
    """The level eased down to `gain` and back up over `length` samples (a
    raised cosine: no step, no kink, the phase kept)."""
    out = array.array("h", samples)
    for n in range(length):
        g = 1 - (1 - gain) * (1 - math.cos(2 * math.pi * n / length)) / 2
        out[start + n] = int(out[start + n] * g)
    return out


# name: (seconds, codec, make, expected failure or None)
CASES = {
    "perfect-flac-60s": (60, "flac", lambda s: s, None),
    "perfect-opus": (10, "opus", lambda s: s, None),
    "perfect-aac": (10, "aac", lambda s: s, None),
    "stretched-flac": (10, "flac", None, None),
    "stretched-opus": (10, "opus", None, None),
    "hole-1ms-zero-crossing-flac": (10, "flac", lambda s: hole(s, AT - 24, 48), "below 90 %"),
    "hole-1ms-peak-flac": (10, "flac", lambda s: hole(s, AT + 27 - 24, 48), "below 90 %"),
    "hole-1ms-zero-crossing-opus": (10, "opus", lambda s: hole(s, AT - 24, 48), "below 90 %"),
    "hole-1ms-zero-crossing-aac": (10, "aac", lambda s: hole(s, AT - 24, 48), "below 90 %"),
    "cut-0.5ms-flac": (10, "flac", lambda s: cut(s, AT + 13, 24), "a discontinuity"),
    "cut-0.5ms-over-peak-flac": (10, "flac", lambda s: cut(s, AT + 15, 24), "a discontinuity"),
    # 8 samples symmetrically over a peak: the waveform only kinks, the
    # level is the same; only the phase fit sees it (0.46 rad).
    "cut-8-samples-over-peak-flac": (10, "flac", lambda s: cut(s, AT + 23, 8), "its phase jumps"),
    "cut-0.5ms-opus": (10, "opus", lambda s: cut(s, AT + 13, 24), "a discontinuity"),
    "cut-0.5ms-aac": (10, "aac", lambda s: cut(s, AT + 13, 24), "a discontinuity"),
    # One sample off by a tenth of the amplitude: the predictor's alone.
    "click-1-sample-flac": (10, "flac", lambda s: spike(s, AT + 50, AMPLITUDE // 10),
                            "prediction residual"),
    "lost-10ms-chunk-opus": (10, "opus", lambda s: cut(s, AT, 480), "a discontinuity"),
    "dip-20ms-to-80pc-flac": (10, "flac", lambda s: dip(s, AT, 960, 0.8), "below 90 %"),
}
CONTAINER = {"flac": ("mkv", "flac"), "opus": ("mkv", "libopus"), "aac": ("mp4", "aac")}


def run_case(checker, folder, name):
    seconds, codec, make, expected = CASES[name]
    samples = stretched(seconds) if make is None else make(tone(seconds))
    stereo = array.array("h", bytes(4 * len(samples)))
    stereo[0::2] = samples
    stereo[1::2] = samples
    wav = os.path.join(folder, name + ".wav")
    with wave.open(wav, "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(stereo.tobytes())
    extension, encoder = CONTAINER[codec]
    path = os.path.join(folder, name + "." + extension)
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                    "color=black:s=64x64:r=60:d=%d" % seconds, "-i", wav, "-c:v", "libx264",
                    "-preset", "ultrafast", "-c:a", encoder, path], check=True)
    started = time.monotonic()
    result = subprocess.run([sys.executable, checker, "--strict", path, codec, str(HZ)],
                            capture_output=True, text=True)
    took = time.monotonic() - started
    output = result.stdout + result.stderr
    for line in output.splitlines():
        if line.startswith("strict continuity: quietest") or "FAIL" in line:
            print("%s: %s" % (name, line))
    if expected is None:
        ok = result.returncode == 0
        verdict = "passes" if ok else "FAILS, expected to pass"
    else:
        ok = result.returncode == 1 and expected in output.split("FAIL: ", 1)[-1]
        verdict = ("fails with %r" % expected) if ok else \
            "expected to fail with %r: exit %d" % (expected, result.returncode)
    print("%s: %s (%d s of %s checked in %.1f s)" % (name, verdict, seconds, codec, took))
    if not ok:
        print(output)
    return ok


def main():
    if not shutil.which("ffmpeg") or not shutil.which("ffprobe"):
        print("SKIP: ffmpeg is not installed (Debian: ffmpeg)")
        sys.exit(77)
    checker = sys.argv[1]
    names = sys.argv[2:] or list(CASES)
    with tempfile.TemporaryDirectory(prefix="wlr-audio-check-") as folder:
        failed = [name for name in names if not run_case(checker, folder, name)]
    if failed:
        sys.exit("FAIL: %s" % ", ".join(failed))
    print("all %d cases as expected" % len(names))


main()
