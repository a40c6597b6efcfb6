#!/usr/bin/env python3
"""Checks the audio of a recording:
  audio-check.py [OPTIONS] FILE CODEC FREQ [AT [SILENT_FROM]]

The file must have one audio stream of CODEC (opus, aac, flac), 48 kHz stereo,
lasting as long as the video (within one frame of the codec); in its middle second the
strongest frequency must be FREQ +- 10 Hz, at a level well above silence
(RMS above -40 dBFS). AT: the second analysed starts there instead (s);
SILENT_FROM: from there to the end the audio must be silent (a server
that went away: the gap is filled with silence). Pure Python (no numpy on the test machines): the
spectrum is a Goertzel scan of the decoded audio at 8 kHz mono. Prints the
figures; exit status 1 with a reason when a check fails.

OPTIONS (before FILE):
  --streams=N     the file has N audio streams (default 1)
  --stream=I      check audio stream I (from 0; default 0)
  --with=HZ       HZ is there too, within 12 dB of FREQ (a mix)
  --without=HZ    HZ is absent: more than 30 dB below FREQ (another track's)
  --absent=HZ     over the whole file, HZ is ABSENT_DB below FREQ (another
                  program's sound that must not be in the file)
  --title=TEXT    the stream's title (Matroska) or handler name (MP4) is TEXT
  --kbps=LO-HI    the stream's bytes over its length: LO to HI kbit/s
  --lead-in=MS    a sound that played before the recording began is there
                  from the first video frame: its first sample at half the
                  sound's level comes at most MS after that frame, beyond the
                  priming that decoders keep (AAC in fragmented MP4: 1024
                  samples of silence, no edit list trims them)
  --continuous    the tone (FREQ, and --with's) has no hole and no
                  discontinuity, from its start to its end (the first and
                  last 10 ms window at its level) less the codec's first and
                  last frame: every 10 ms window at least half the tone's
                  RMS, and a predictor of the tone leaves no click (48 kHz)
  --continuous=level  the level check only (no 10 ms window below half the
                  tone), not the predictor's
  --strict        issue 30's continuity check, stricter than --continuous
                  and over every sample (streamed: an hour fits): no window
                  of 2.5 ms below 90 % of the tone's RMS, the predictor's
                  residual at most 0.01 of it over every 2.5 ms window, the
                  sine's phase steady over 5 ms blocks, no hole of the
                  server's tolerated (see STRICT_WINDOW); not with --lead-in
  --audio-only    with --strict: a file of sound alone (tone-loaded.sh's
                  own recording of the server): the strict check, no more
  --min-tone=S    with --strict: the tone checked lasts at least S seconds
  --ignore-louder with --continuous or --strict: other sound much louder
                  than the tone (clicks) is there too: the predictor skips it
  --aligned       the video starts at 0 and the audio's first packet at 0 less
                  at most its codec's padding (Opus's 6.5 ms pre-skip in
                  Matroska), not both shifted by it"""
import array
import itertools
import json
import math
import operator
import os
import subprocess
import sys
import time


def probe(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-show_streams", "-show_format",
                          "-of", "json", path], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def video_end(path):
    """The end of the last video frame: its pts plus its duration; and how
    much longer than that duration the frame before it lasted (the last
    frame stays on screen until the recording ends, which can be up to the
    source's frame interval after it; the container gives it one 60 fps
    period: the audio, cut at the end, may be that much longer)."""
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0",
                          "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0",
                          path], check=True, capture_output=True, text=True)
    end = 0.0
    frames = []
    for line in out.stdout.split():
        fields = line.split(",")
        try:
            pts = float(fields[0])
            duration = float(fields[1]) if len(fields) > 1 and fields[1] not in ("", "N/A") else 0
        except ValueError:
            continue
        end = max(end, pts + duration)
        frames.append((pts, duration))
    frames.sort()
    longer = 0.0
    if len(frames) >= 2:
        longer = max(0.0, frames[-1][0] - frames[-2][0] - frames[-1][1])
    return end, longer


STREAM = 0


def decode(path, rate, channels):
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:a:%d" % STREAM,
                          "-f", "s16le", "-ac", str(channels), "-ar", str(rate), "-"],
                         check=True, capture_output=True)
    samples = array.array("h")
    samples.frombytes(out.stdout[:len(out.stdout) // 2 * 2])
    if sys.byteorder != "little":
        samples.byteswap()
    return samples


def goertzel_power(samples, rate, freq):
    w = 2 * math.pi * freq / rate
    coeff = 2 * math.cos(w)
    s1 = s2 = 0.0
    for x in samples:
        s0 = x + coeff * s1 - s2
        s2 = s1
        s1 = s0
    return s1 * s1 + s2 * s2 - coeff * s1 * s2


# A tone that leaked in is about as loud as the wanted one (both are played
# at the same level); Opus's noise at another frequency is some 60 dB down.
ABSENT_DB = 30


def dbfs(samples):
    rms = math.sqrt(sum(x * x for x in samples) / len(samples)) / 32768
    return 20 * math.log10(rms) if rms > 0 else -200


def stream_kbps(path, seconds):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "a:%d" % STREAM,
                          "-show_entries", "packet=size", "-of", "json", path],
                         check=True, capture_output=True, text=True)
    size = sum(int(packet["size"]) for packet in json.loads(out.stdout)["packets"])
    return size * 8 / seconds / 1000


def first_pts(path, selector):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", selector,
                          "-show_entries", "packet=pts_time", "-read_intervals", "%+#1",
                          "-of", "csv=p=0", path], check=True, capture_output=True, text=True)
    return float(out.stdout.split()[0].strip(","))


# Samples in one frame of the codec (libavcodec's FLAC: 4608 at 48 kHz).
CODEC_FRAME = {"opus": 960, "aac": 1024, "flac": 4608}
# The codec's frame at either end of the tone: its first frame (with the
# encoder's priming, Opus's 312-sample pre-skip, AAC's 1024) and its last one
# mix the tone with what is before or after it.
CODEC_EDGE = {"opus": 960 + 312, "aac": 2 * 1024, "flac": 1024}
# 10 ms windows (sliding by 1 ms): one falls inside any hole of 10 ms.
WINDOW = 480
HOP = 48
# The tone's level inside the tone: no window below half of it. A lost 10 ms
# chunk is a window at most a third of it (9 ms of it missing); scheduling
# delay costs nothing here (the samples are counted, not timed).
FLOOR = 0.5
# Sample-level: what a predictor of the tone's own frequencies (two taps per
# sine: x[n] = 2 cos(w) x[n-1] - x[n-2]) leaves, over 2.5 ms windows,
# relative to the tone's RMS. A pure tone leaves the codec's noise (measured
# below 0.002 with Opus and AAC at -8.7 dBFS, also stretched 0.5 % by the
# drift compensation, which leaves 3e-5); a cut or a jump in phase
# leaves a click of 0.02 to 1 (a lost chunk: a phase jump of 0.4 of a cycle
# at 440 Hz, or a hole).
RESIDUAL_WINDOW = 120
RESIDUAL_MAX = 0.01


def windows_rms(values, window, hop):
    """RMS of each window of `window` values starting every `hop`: (start, rms)."""
    prefix = [0.0]
    total = 0.0
    for v in values:
        total += v * v
        prefix.append(total)
    return [(i, math.sqrt(max(prefix[i + window] - prefix[i], 0.0) / window))
            for i in range(0, len(values) - window + 1, hop)]


# --ignore-louder: another sound at least this much louder than the tone
# (a click), and what the codec spreads around it (a frame and its overlap
# either side: AAC's 2048, Opus's 960), is not the tone's to be checked by
# the predictor; its level is (the tone goes on under it).
LOUDER = 2.0
LOUDER_MARGIN = 2880


# The longest silence in place taken as the server's underrun: one quantum
# of 256 frames, with its edges.
UNDERRUN_MAX = 360
# The tone's phase after it, against before it: within this (radians).
UNDERRUN_PHASE = 0.3


def regions(starts, length):
    """Runs of overlapping windows: (first start, last start)."""
    out = []
    for i in starts:
        if out and i <= out[-1][1] + length:
            out[-1] = (out[-1][0], i)
        else:
            out.append((i, i))
    return out


def sine_fit(mono, start, end, hz, rate):
    """Amplitude and phase (at sample 0) of `hz` over mono[start:end]."""
    w = 2 * math.pi * hz / rate
    ss = sc = cc = xs = xc = 0.0
    for n in range(start, end):
        sn, cn = math.sin(w * n), math.cos(w * n)
        ss += sn * sn
        sc += sn * cn
        cc += cn * cn
        xs += mono[n] * sn
        xc += mono[n] * cn
    det = ss * cc - sc * sc
    a, b = (xs * cc - xc * sc) / det, (xc * ss - xs * sc) / det
    return math.hypot(a, b), math.atan2(b, a)


def server_underrun(mono, region, freqs, tone, rate):
    """The predictor's region is a silence in place of at most
    UNDERRUN_MAX frames, the tone in phase on either side of it."""
    if len(freqs) != 1:
        return False
    first, last = region[0], region[1] + RESIDUAL_WINDOW
    # The longest run of quiet samples (the tone's zero crossings make
    # runs of a sample or two).
    hole, run = None, None
    for n in range(max(first - UNDERRUN_MAX, 0), min(last + UNDERRUN_MAX, len(mono))):
        if abs(mono[n]) < 0.05 * tone:
            run = (run[0], n) if run else (n, n)
            if not hole or run[1] - run[0] > hole[1] - hole[0]:
                hole = run
        else:
            run = None
    if not hole or hole[1] - hole[0] < 48 or hole[1] - hole[0] > UNDERRUN_MAX:
        return False
    span = 480
    if hole[0] - 24 - span < 0 or hole[1] + 24 + span > len(mono):
        return False
    amp0, phase0 = sine_fit(mono, hole[0] - 24 - span, hole[0] - 24, freqs[0], rate)
    amp1, phase1 = sine_fit(mono, hole[1] + 24, hole[1] + 24 + span, freqs[0], rate)
    jump = abs((phase1 - phase0 + math.pi) % (2 * math.pi) - math.pi)
    underrun = jump < UNDERRUN_PHASE and min(amp0, amp1) > 0.8 * max(amp0, amp1)
    print("continuity: %.1f ms of silence at %.3f s, the tone's phase %.2f rad on after it: %s"
          % ((hole[1] - hole[0]) * 1000 / rate, hole[0] / rate, jump,
             "the server's underrun, not a cut" if underrun else "a cut"))
    return underrun


# A loaded machine can keep the tests' private PipeWire (no realtime
# priority here) from filling a few quanta in time: the sink then plays
# silence in place, 5 to 75 ms seen with both cores busy, at most once in a
# recording, while wl-record's stream had no gap (its counts, which the
# tests require to be 0, say so). One such hole is tolerated and said; a
# second, or a longer one, fails. Losing 1 chunk in 8 leaves dozens.
SERVER_HOLE_MAX_MS = 80
SERVER_HOLE_MERGE = 960  # flagged windows this close are one hole


def one_server_hole(holes, bad, rate):
    """True when every flagged window (level or prediction) lies in one
    stretch of at most SERVER_HOLE_MAX_MS (plus the windows' own length)."""
    spans = sorted([(i, i + WINDOW) for i in holes] +
                   [(i, i + RESIDUAL_WINDOW) for i in bad])
    merged = []
    for a, b in spans:
        if merged and a <= merged[-1][1] + SERVER_HOLE_MERGE:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    length_ms = (merged[0][1] - merged[0][0]) * 1000 / rate
    if len(merged) != 1 or length_ms > SERVER_HOLE_MAX_MS + 2 * WINDOW * 1000 / rate:
        return False
    print("continuity: TOLERATED one hole of at most %.0f ms at %.3f s: the test server's "
          "underrun on a loaded machine (one is allowed, a second or a longer one fails)"
          % (length_ms, merged[0][0] / rate))
    # The server may have told wl-record of that underrun, and wl-record
    # counted it as a gap it filled: audio-lib.sh's no_gaps_counted reads this.
    notes = os.environ.get("AUDIO_CHECK_NOTES")
    if notes:
        with open(notes, "a") as f:
            f.write("tolerated-hole-ms %.0f\n" % length_ms)
    return True


def check_continuous(full, codec, freqs, ignore_louder=False, level_only=False):
    """The tone, from the first 10 ms window at its level to the last, less
    the codec's frame at either end, has no hole and no discontinuity."""
    rate = 48000
    mono = [(full[i] + full[i + 1]) / 65536.0 for i in range(0, len(full) - 1, 2)]
    levels = windows_rms(mono, WINDOW, HOP)
    if not levels:
        sys.exit("FAIL: no audio to check for continuity")
    ranked = sorted(rms for _, rms in levels)
    tone = ranked[int(len(ranked) * 0.9)]
    loud = [i for i, rms in levels if rms >= FLOOR * tone]
    edge = CODEC_EDGE.get(codec, 1024)
    first, last = loud[0] + edge, loud[-1] + WINDOW - edge
    print("continuity: the tone (RMS %.4f) from %.3f s to %.3f s, checked from %.3f s to %.3f s"
          % (tone, loud[0] / rate, (loud[-1] + WINDOW) / rate, first / rate, last / rate))
    if last - first < rate // 2:
        sys.exit("FAIL: less than 0.5 s of tone to check for continuity (%.3f s)"
                 % ((last - first) / rate))
    inside = [(i, rms) for i, rms in levels if first <= i and i + WINDOW <= last]
    worst = min(inside, key=lambda w: w[1])
    holes = [i for i, rms in inside if rms < FLOOR * tone]
    print("continuity: quietest 10 ms window %.0f %% of the tone at %.3f s; %d windows below %d %%"
          % (100 * worst[1] / tone, worst[0] / rate, len(holes), 100 * FLOOR))
    # Each tone's two-tap predictor, one after the other.
    residual = mono
    for hz in freqs:
        c = 2 * math.cos(2 * math.pi * hz / rate)
        residual = [residual[n] - c * residual[n - 1] + residual[n - 2]
                    for n in range(2, len(residual))]
    offset = len(mono) - len(residual)  # residual[k] is sample k + offset
    other = [(i - LOUDER_MARGIN, i + WINDOW + LOUDER_MARGIN)
             for i, rms in levels if ignore_louder and rms > LOUDER * tone]
    if other:
        print("continuity: %d windows of 10 ms louder than %gx the tone ignored by the predictor"
              % (len(other), LOUDER))

    def clear(start):
        return not any(a < start + RESIDUAL_WINDOW and start < b for a, b in other)
    clicks = [(k + offset, rms / tone)
              for k, rms in windows_rms(residual, RESIDUAL_WINDOW, HOP // 2)
              if first <= k + offset and k + offset + RESIDUAL_WINDOW <= last
              and clear(k + offset)]
    loudest = max(clicks, key=lambda w: w[1])
    bad = [i for i, ratio in clicks if ratio > RESIDUAL_MAX]
    # A short silence in place, the tone going on in phase after it, is the
    # server's underrun (a quantum it could not fill in time: seen with 2
    # cores busy, 5.3 ms, 0 gaps in wl-record's stream): not wl-record's,
    # which loses time with the sound (a jump in phase) or fills a gap of
    # 8 ms or more (the level check above).
    bad = [region for region in regions(bad, RESIDUAL_WINDOW)
           if not server_underrun(mono, region, freqs, tone, rate)]
    bad = [i for first_i, last_i in bad for i in range(first_i, last_i + 1, HOP // 2)]
    print("continuity: largest prediction residual %.4f of the tone at %.3f s (max %.2f); "
          "%d windows above, less the server's underruns" % (loudest[1], loudest[0] / rate,
                                                            RESIDUAL_MAX, len(bad)))
    if level_only:
        bad = []
    if (holes or bad) and one_server_hole(holes, bad, rate):
        return
    if holes:
        sys.exit("FAIL: a hole in the tone: %d windows of 10 ms below %d %% of its RMS, "
                 "the first at %.3f s (%.0f %%)"
                 % (len(holes), 100 * FLOOR, holes[0] / rate,
                    100 * dict(inside)[holes[0]] / tone))
    if bad and not level_only:
        sys.exit("FAIL: a discontinuity in the tone: the prediction residual reaches %.4f "
                 "of its RMS at %.3f s (%d windows above %.2f)"
                 % (loudest[1], loudest[0] / rate, len(bad), RESIDUAL_MAX))


# --strict (issue 30 §1): the tone's continuity at the finest grain, every
# sample decoded (nothing decimated), streamed in chunks so that an hour of
# sound (scripts/soak-audio) fits in memory and takes about a minute.
#  - Level: no window of 2.5 ms (120 samples, every start: the hop is one
#    sample) below 90 % of the tone's RMS. The tone's RMS is the median over
#    100 ms windows (44 whole periods of 440 Hz: no phase term). A window of
#    2.5 ms holds 1.1 periods of 440 Hz, so a perfect sine's window RMS
#    depends on its phase: from 95.7 % to 104.2 % of the tone's (printed,
#    computed for FREQ). A hole of 1 ms leaves at most 83 % in the window
#    over it (65 % of the energy, the hole over a zero crossing; 62 % over a
#    peak); a chunk of 10 ms lost, nothing.
#  - Sample level, two ways. The two-tap predictor of the tone (x[n] =
#    2 cos(w) x[n-1] - x[n-2], exact for a sine of any amplitude and phase)
#    leaves, over every 2.5 ms window, at most STRICT_RESIDUAL_MAX of the
#    tone's RMS: a step or a kink in the waveform. And a least-squares fit
#    of the sine (amplitude and phase) to every block of 5 ms: the phase
#    of the block after any block may differ from the one before it by at
#    most STRICT_PHASE_MAX. A cut of 0.5 ms (24 samples) is a jump of 1.38
#    rad, wherever it falls; the predictor alone misses one placed
#    symmetrically over a peak (its residual is then 0.007: the waveform
#    only kinks), and sees 0.03 to 0.23 elsewhere. The codecs' noise on a
#    pure tone is below 0.002 of residual (Opus, AAC: see RESIDUAL_MAX) and
#    a few mrad of phase; the drift compensation (audio_track.c stretches
#    the sound by up to 0.5 %) turns the phase by up to 0.14 rad over two
#    blocks: seen 0.09. (No check can see a cut of one whole
#    period, 2.27 ms: 109 samples of a 440 Hz tone join it seamlessly.)
# No hole of the server's is tolerated here: the tests that use --strict
# run a server that keeps up (tests/audio/tone-loaded.sh).
STRICT_WINDOW = 120
STRICT_FLOOR = 0.9
STRICT_RESIDUAL_MAX = 0.01
STRICT_PHASE_BLOCK = 240   # 5 ms
STRICT_PHASE_MAX = 0.3     # rad
STRICT_BLOCK = 48          # per-block (1 ms) minima and maxima are kept
STRICT_CHUNK = 48000 * 10  # samples decoded and scanned at a time
REFERENCE_BLOCKS = 100     # the tone's RMS: median of 100 ms windows


def perfect_sine_range(hz, window, rate=48000):
    """A perfect sine's lowest and highest window RMS, relative to its RMS."""
    w = 2 * math.pi * hz / rate
    lo, hi = 10.0, 0.0
    for k in range(720):
        phase = 2 * math.pi * k / 720
        ms = sum(math.sin(w * n + phase) ** 2 for n in range(window)) / window
        lo, hi = min(lo, math.sqrt(2 * ms)), max(hi, math.sqrt(2 * ms))
    return lo, hi


def strict_scan(path, freqs):
    """Decodes the stream (48 kHz, the mean of both channels, as floats) and
    keeps, per block of STRICT_BLOCK samples: its energy, the lowest energy
    of the STRICT_WINDOW windows starting in it, and the highest energy of
    the predictor's residual over such windows. Returns those three arrays
    and the number of samples; and per block of STRICT_PHASE_BLOCK samples,
    the fitted sine's amplitude and phase (against sample 0 of the stream;
    for the first of `freqs` only)."""
    process = subprocess.Popen(["ffmpeg", "-v", "error", "-i", path, "-map", "0:a:%d" % STREAM,
                                "-f", "f32le", "-ac", "2", "-"], stdout=subprocess.PIPE)
    coeffs = [2 * math.cos(2 * math.pi * hz / 48000) for hz in freqs]
    history = len(freqs) * 2  # samples the predictor needs before a window
    W, B = STRICT_WINDOW, STRICT_BLOCK
    block_energy, level_min, residual_max = array.array("d"), array.array("d"), array.array("d")
    buf = array.array("f", [0.0] * history)  # global samples from -history
    buf_start = -history
    pos = 0  # the next window start, a multiple of B
    total = 0
    pending = b""
    P = STRICT_PHASE_BLOCK
    w = 2 * math.pi * freqs[0] / 48000
    sines = array.array("d", (math.sin(w * n) for n in range(P)))
    cosines = array.array("d", (math.cos(w * n) for n in range(P)))
    ss = sum(v * v for v in sines)
    cc = sum(v * v for v in cosines)
    sc = sum(a * b for a, b in zip(sines, cosines))
    det = ss * cc - sc * sc
    amplitude, phase = array.array("d"), array.array("d")
    while True:
        data = process.stdout.read(STRICT_CHUNK * 8)
        eof = not data
        data = pending + data
        usable = len(data) // 8 * 8
        pending = data[usable:]
        if usable:
            stereo = array.array("f")
            stereo.frombytes(data[:usable])
            if sys.byteorder != "little":
                stereo.byteswap()
            buf.extend(map(0.5.__mul__, map(operator.add, stereo[0::2], stereo[1::2])))
            total += usable // 8
        end = buf_start + len(buf)
        stop = pos + (end - W + 1 - pos) // P * P  # windows starting before it are whole
        if stop > pos:
            seg = buf[pos - history - buf_start:stop + W - 1 - buf_start]
            x = seg[history:]
            prefix = array.array("d", itertools.accumulate(map(operator.mul, x, x), initial=0.0))
            level = array.array("d", map(operator.sub, prefix[W:], prefix[:-W]))
            residual = seg
            for c in coeffs:
                residual = array.array("d", map(operator.add, map(operator.sub, residual[2:],
                                                                    map(c.__mul__, residual[1:-1])),
                                                 residual[:-2]))
            rprefix = array.array("d", itertools.accumulate(map(operator.mul, residual, residual),
                                                            initial=0.0))
            rlevel = array.array("d", map(operator.sub, rprefix[W:], rprefix[:-W]))
            for j in range(0, stop - pos, B):
                block_energy.append(prefix[j + B] - prefix[j])
                level_min.append(min(level[j:j + B]))
                residual_max.append(max(rlevel[j:j + B]))
            for j in range(0, stop - pos, P):
                block = x[j:j + P]
                xs = sum(map(operator.mul, block, sines))
                xc = sum(map(operator.mul, block, cosines))
                a, b = (xs * cc - xc * sc) / det, (xc * ss - xs * sc) / det
                amplitude.append(math.hypot(a, b))
                phase.append((math.atan2(b, a) - w * (pos + j)) % (2 * math.pi))
            del buf[:stop - history - buf_start]
            buf_start = stop - history
            pos = stop
        if eof:
            break
    if process.wait() != 0:
        sys.exit("FAIL: ffmpeg cannot decode the audio of %s" % path)
    return block_energy, level_min, residual_max, total, amplitude, phase


def check_strict(path, codec, freqs, ignore_louder=False, min_tone=0.0):
    """Issue 30's continuity check (see STRICT_WINDOW); returns the length
    of the audio in samples."""
    rate, W, B = 48000, STRICT_WINDOW, STRICT_BLOCK
    started = time.monotonic()
    energy, level_min, residual_max, total, amplitude, phase = strict_scan(path, freqs)
    blocks = len(energy)
    per10 = WINDOW // B  # 10 ms in blocks
    if blocks < 2 * REFERENCE_BLOCKS:
        sys.exit("FAIL: less than 0.2 s of audio to check for continuity")
    # 10 ms windows (every 1 ms): where the tone starts and ends.
    prefix = list(itertools.accumulate(energy, initial=0.0))
    tens = [math.sqrt(max(prefix[j + per10] - prefix[j], 0.0) / WINDOW)
            for j in range(blocks - per10 + 1)]
    rough = sorted(tens)[int(len(tens) * 0.9)]
    first_loud = next(j for j in range(len(tens)) if tens[j] >= FLOOR * rough)
    last_loud = next(j for j in range(len(tens) - 1, -1, -1) if tens[j] >= FLOOR * rough)
    edge_blocks = -(-CODEC_EDGE.get(codec, 1024) // B)
    first = first_loud + edge_blocks  # the first block whose windows are checked
    last = last_loud + per10 - edge_blocks  # blocks before it: the tone's
    last_start = last - -(-W // B)  # windows starting before this block end before `last`
    hundreds = [math.sqrt(max(prefix[j + REFERENCE_BLOCKS] - prefix[j], 0.0)
                          / (REFERENCE_BLOCKS * B))
                for j in range(first, last - REFERENCE_BLOCKS + 1, REFERENCE_BLOCKS)]
    if last_start - first < rate // 2 // B or not hundreds:
        sys.exit("FAIL: less than 0.5 s of tone to check for continuity (%.3f s)"
                 % ((last - first) * B / rate))
    tone = sorted(hundreds)[len(hundreds) // 2]
    if (last - first) * B / rate < min_tone:
        sys.exit("FAIL: the tone is checked over %.3f s, less than %g s: it stopped, or "
                 "started late" % ((last - first) * B / rate, min_tone))
    lo, hi = perfect_sine_range(freqs[0], W) if len(freqs) == 1 else (0.0, 0.0)
    print("strict continuity: the tone (RMS %.5f, median of %d windows of 100 ms) from %.3f s "
          "to %.3f s, checked from %.3f s to %.3f s; a perfect %g Hz sine's 2.5 ms windows: "
          "%.1f %% to %.1f %%" % (tone, len(hundreds), first_loud * B / rate,
                                  (last_loud + per10) * B / rate, first * B / rate,
                                  last * B / rate, freqs[0], 100 * lo, 100 * hi))
    checked = range(first, last_start)
    floor_energy = (STRICT_FLOOR * tone) ** 2 * W
    quietest = min(checked, key=lambda j: level_min[j])
    low = [j for j in checked if level_min[j] < floor_energy]
    print("strict continuity: quietest 2.5 ms window %.1f %% of the tone at %.4f s; "
          "%d ms with a window below %d %%"
          % (100 * math.sqrt(level_min[quietest] / W) / tone, quietest * B / rate, len(low),
             100 * STRICT_FLOOR))
    skipped = bytearray(blocks)
    if ignore_louder:
        margin = LOUDER_MARGIN // B
        louder = 0
        for j, rms in enumerate(tens):
            if rms > LOUDER * tone:
                louder += 1
                skipped[max(j - margin, 0):j + per10 + margin] = b"\1" * len(
                    skipped[max(j - margin, 0):j + per10 + margin])
        print("strict continuity: the predictor skips %.3f s around %d ms of sound louder "
              "than %gx the tone" % (sum(skipped) * B / rate, louder, LOUDER))
    predicted = [j for j in checked if not skipped[j]]
    if not predicted:
        sys.exit("FAIL: nothing left for the predictor to check")
    loudest = max(predicted, key=lambda j: residual_max[j])
    ceiling = (STRICT_RESIDUAL_MAX * tone) ** 2 * W
    clicks = [j for j in predicted if residual_max[j] > ceiling]
    print("strict continuity: largest prediction residual %.4f of the tone at %.4f s (max %.2f); "
          "%d ms with a window above; %.1f s of audio scanned in %.1f s"
          % (math.sqrt(residual_max[loudest] / W) / tone, loudest * B / rate,
             STRICT_RESIDUAL_MAX, len(clicks), total / rate, time.monotonic() - started))
    # The sine's phase: each 5 ms block's neighbours, both checked, both
    # holding the tone (a hole is the level check's), not near louder sound.
    per_phase = STRICT_PHASE_BLOCK // B
    steps = []
    for k in range(1, len(phase) - 1):
        if (k - 1) * per_phase < first or (k + 2) * per_phase > last_start:
            continue
        if any(skipped[(k - 1) * per_phase:(k + 2) * per_phase]):
            continue
        if min(amplitude[k - 1], amplitude[k + 1]) < 0.5 * math.sqrt(2) * tone:
            continue
        step = (phase[k + 1] - phase[k - 1] + math.pi) % (2 * math.pi) - math.pi
        steps.append((abs(step), k))
    if len(freqs) != 1:
        steps = []
    if steps:
        largest = max(steps)
        print("strict continuity: the sine fitted to 5 ms blocks: the largest phase step "
              "across a block %.3f rad at %.4f s (max %.2f) over %d blocks"
              % (largest[0], largest[1] * STRICT_PHASE_BLOCK / rate, STRICT_PHASE_MAX, len(steps)))
    jumps = [k for step, k in steps if step > STRICT_PHASE_MAX]
    failures = []
    if jumps:
        failures.append("a discontinuity in the tone: its phase jumps across %d blocks of 5 ms, "
                        "the first at %.4f s (%.3f rad)"
                        % (len(jumps), jumps[0] * STRICT_PHASE_BLOCK / rate,
                           dict((k, v) for v, k in steps)[jumps[0]]))
    if low:
        failures.append("a hole in the tone: %d ms where a 2.5 ms window is below %d %% of its "
                        "RMS, the first at %.4f s (%.1f %%)"
                        % (len(low), 100 * STRICT_FLOOR, low[0] * B / rate,
                           100 * math.sqrt(level_min[low[0]] / W) / tone))
    if clicks:
        failures.append("a discontinuity in the tone: %d ms where the prediction residual "
                        "is above %.2f of its RMS, the first at %.4f s (%.4f)"
                        % (len(clicks), STRICT_RESIDUAL_MAX, clicks[0] * B / rate,
                           math.sqrt(residual_max[clicks[0]] / W) / tone))
    for where in sorted(set(low[:5] + clicks[:5])):
        print("strict continuity: at %.4f s: lowest window %.1f %%, residual %.4f"
              % (where * B / rate, 100 * math.sqrt(level_min[where] / W) / tone,
                 math.sqrt(residual_max[where] / W) / tone))
    # Where the tone is broken, as times (s) of separate places (those
    # within 100 ms are one): soak-audio sets them beside the server's own.
    places = []
    for t in sorted([j * B / rate for j in low + clicks] +
                    [k * STRICT_PHASE_BLOCK / rate for k in jumps]):
        if not places or t - places[-1][1] > 0.1:
            places.append([t, t])
        places[-1][1] = t
    print("strict-defects %d %s" % (len(places), " ".join("%.3f" % a for a, _ in places)))
    if failures:
        sys.exit("FAIL: " + "; ".join(failures))
    return total


def check_aligned(path, stream):
    video = first_pts(path, "v:0")
    audio = first_pts(path, "a:%d" % STREAM)
    # ffprobe shows no initial_padding for Matroska: libopus's pre-skip.
    padding = 312 / 48000 if stream["codec_name"] == "opus" else 0.0
    print("first video packet at %.4f s, first audio packet at %.4f s (padding %.4f s)" %
          (video, audio, padding))
    if abs(video) > 0.0005:
        sys.exit("FAIL: the video starts at %.4f s, not 0" % video)
    # Matroska rounds to the millisecond.
    if not -max(padding, 0.0) - 0.001 <= audio <= 0.001:
        sys.exit("FAIL: the audio starts at %.4f s, expected 0 to -%.4f s" % (audio, padding))


# Samples of encoder priming a decoder outputs as silence when the stream
# does not start before 0 (the priming not marked to be skipped): AAC in
# fragmented MP4, which has no edit list. Matroska's CodecDelay has Opus's
# pre-skip trimmed.
KEPT_PRIMING = {"aac": 1024}


def decoded_start(path):
    """The time of the first decoded audio sample, on the file's clock."""
    out = subprocess.run(["ffmpeg", "-hide_banner", "-copyts", "-i", path, "-map",
                          "0:a:%d" % STREAM, "-af", "ashowinfo", "-f", "null", "-"],
                         check=True, capture_output=True, text=True)
    for line in out.stderr.splitlines():
        if "ashowinfo" in line and "pts_time:" in line:
            return float(line.split("pts_time:")[1].split()[0])
    sys.exit("FAIL: no audio frame times from ashowinfo")


def check_lead_in(path, full, codec, max_ms):
    """The sound starts with the video: its first sample at half its level
    comes at most max_ms after the first video frame, less KEPT_PRIMING."""
    rate = 48000
    mono = [(full[i] + full[i + 1]) / 2 for i in range(0, len(full) - 1, 2)]
    levels = sorted(rms for _, rms in windows_rms(mono, WINDOW, HOP))
    peak = math.sqrt(2) * levels[int(len(levels) * 0.9)]
    onset = next((n for n, x in enumerate(mono) if abs(x) >= peak / 2), None)
    if onset is None:
        sys.exit("FAIL: no sound to find the start of")
    priming = KEPT_PRIMING.get(codec, 0) if first_pts(path, "a:%d" % STREAM) >= 0 else 0
    lead_in = decoded_start(path) + (onset - priming) / rate - first_pts(path, "v:0")
    print("lead-in: the sound from %.1f ms after the first video frame (%.1f ms of the "
          "decoded track, %.1f ms of them the codec's priming; at most %g ms)"
          % (lead_in * 1000, onset * 1000 / rate, priming * 1000 / rate, max_ms))
    if lead_in * 1000 > max_ms:
        sys.exit("FAIL: the sound starts %.1f ms after the first video frame (more than "
                 "%g ms): the file begins with silence that was not played"
                 % (lead_in * 1000, max_ms))


def main():
    global STREAM
    options = {}
    args = sys.argv[1:]
    while args and args[0].startswith("--"):
        key, _, value = args.pop(0)[2:].partition("=")
        options[key] = value
    STREAM = int(options.get("stream", 0))
    path, codec, want = args[0], args[1], float(args[2])
    at = float(args[3]) if len(args) > 3 else None
    silent_from = float(args[4]) if len(args) > 4 else None
    info = probe(path)
    audio = [s for s in info["streams"] if s["codec_type"] == "audio"]
    if len(audio) != int(options.get("streams", 1)):
        sys.exit("FAIL: %d audio streams in %s, expected %s" %
                 (len(audio), path, options.get("streams", 1)))
    stream = audio[STREAM]
    tags = stream.get("tags", {})
    title = tags.get("title", tags.get("handler_name"))
    print("audio stream %d: %s, title %r" % (STREAM, stream["codec_name"], title))
    if "title" in options and title != options["title"]:
        sys.exit("FAIL: audio stream %d is titled %r, expected %r" %
                 (STREAM, title, options["title"]))
    if stream["codec_name"] != codec:
        sys.exit("FAIL: audio codec %s, expected %s" % (stream["codec_name"], codec))
    if int(stream["sample_rate"]) != 48000 or int(stream["channels"]) != 2:
        sys.exit("FAIL: audio %s Hz %s channels, expected 48000 Hz stereo" %
                 (stream["sample_rate"], stream["channels"]))
    if "aligned" in options:
        check_aligned(path, stream)
    expected = [want] + ([float(options["with"])] if "with" in options else [])
    if "strict" in options:
        # Streamed: an hour of sound is not held in memory.
        audio_seconds = check_strict(path, stream["codec_name"], expected,
                                     "ignore-louder" in options,
                                     float(options.get("min-tone", 0))) / 48000
    else:
        full = decode(path, 48000, 2)
        if "lead-in" in options:
            check_lead_in(path, full, stream["codec_name"], float(options["lead-in"]))
        audio_seconds = len(full) / 2 / 48000
    if "audio-only" in options:
        return
    video_seconds, last_longer = video_end(path)
    print("audio %.3f s, video %.3f s (its last frame may last %.3f s longer)" %
          (audio_seconds, video_seconds, last_longer))
    if video_seconds < 1.5:
        sys.exit("FAIL: the video is %.3f s long" % video_seconds)
    # The track is placed from the first frame's time and padded or cut to
    # the end (audio_track_finish), to the sample: what is left is the
    # codec's framing, at most one frame (measured: Opus in Matroska 0-1 ms,
    # AAC in MP4 10-11 ms, its priming not all trimmed by the decoder), and
    # on the audio's side the time the last frame was on screen beyond the
    # 60 fps period the container gives it (measured up to 36 ms with a
    # presenter drawing every 50 ms: the recording ended 52 ms after it).
    frame = CODEC_FRAME.get(codec, 1024) / 48000
    if not -frame <= audio_seconds - video_seconds <= frame + last_longer:
        sys.exit("FAIL: audio %.3f s and video %.3f s differ by more than one %s frame "
                 "(%.1f ms, the audio %.1f ms more)" % (audio_seconds, video_seconds, codec,
                                                      frame * 1000, last_longer * 1000))
    rate = 8000
    mono = decode(path, rate, 1)
    start = len(mono) // 2 - rate // 2 if at is None else int(at * rate)
    window = mono[start:start + rate]
    if len(window) < rate:
        sys.exit("FAIL: no full second of audio at %.2f s" % (start / rate))
    level = dbfs(window)
    print("second from %.2f s: RMS %.1f dBFS" % (start / rate, level))
    if level < -40:
        sys.exit("FAIL: the middle second is silent (%.1f dBFS)" % level)
    # Coarse scan, then 1 Hz around the peak.
    best = max(range(100, 3000, 20), key=lambda f: goertzel_power(window, rate, f))
    best = max((best + d for d in range(-20, 21)),
               key=lambda f: goertzel_power(window, rate, f))
    print("dominant frequency %d Hz" % best)
    # A mix: both tones are about as loud, either may dominate.
    if min(abs(best - hz) for hz in expected) > 10:
        sys.exit("FAIL: dominant frequency %d Hz, expected %s Hz" %
                 (best, " or ".join("%g" % hz for hz in expected)))
    peak = goertzel_power(window, rate, best)
    for key in ("with", "without"):
        if key not in options:
            continue
        hz = float(options[key])
        if key == "with" and abs(best - hz) <= 10:
            hz = want  # the other tone of the two is the one to look for
        power = max(goertzel_power(window, rate, hz + d) for d in range(-3, 4))
        relative = 10 * math.log10(power / peak) if power > 0 else -200
        print("%g Hz: %.1f dB below %d Hz" % (hz, -relative, best))
        if key == "with" and relative < -12:
            sys.exit("FAIL: %g Hz is %.1f dB below %d Hz: not mixed in" % (hz, -relative, best))
        if key == "without" and relative > -30:
            sys.exit("FAIL: %g Hz is there (%.1f dB below %d Hz)" % (hz, -relative, best))
    if "kbps" in options:
        low, high = (float(x) for x in options["kbps"].split("-"))
        kbps = stream_kbps(path, audio_seconds)
        print("audio stream %d: %.1f kbit/s" % (STREAM, kbps))
        if not low <= kbps <= high:
            sys.exit("FAIL: %.1f kbit/s, expected %g to %g" % (kbps, low, high))
    if "continuous" in options:
        check_continuous(full, stream["codec_name"], expected, "ignore-louder" in options,
                         options["continuous"] == "level")
    if "absent" in options:
        absent = float(options["absent"])
        wanted = goertzel_power(mono, rate, want)
        other = goertzel_power(mono, rate, absent)
        below = 10 * math.log10(wanted / other) if other > 0 else 200
        print("%g Hz is %.1f dB below %g Hz over the whole file" % (absent, below, want))
        if below < ABSENT_DB:
            sys.exit("FAIL: %g Hz is in the file, only %.1f dB below %g Hz (want %d dB)" %
                     (absent, below, want, ABSENT_DB))
    if silent_from is not None:
        tail = mono[int(silent_from * rate):]
        if len(tail) < rate // 2:
            sys.exit("FAIL: less than 0.5 s of audio after %.2f s" % silent_from)
        level = dbfs(tail)
        print("from %.2f s to the end: RMS %.1f dBFS" % (silent_from, level))
        if level > -60:
            sys.exit("FAIL: not silent after %.2f s (%.1f dBFS)" % (silent_from, level))


main()
