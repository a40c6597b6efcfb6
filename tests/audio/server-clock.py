#!/usr/bin/env python3
"""Watches the test's sound server keep time, independently of wl-record:
  pacat --record --raw ... | server-clock.py log FILE
      writes "MONOTONIC_NS FRAMES" for each read of the raw 48 kHz stereo
      s16 sound on standard input (FRAMES: counted since the start), and
      the sound itself as a WAV file, FILE.wav (for audio-check.py)
  server-clock.py loss FILE FROM_NS TO_NS
      prints how much of its timeline the server lost between FROM_NS and
      TO_NS (CLOCK_MONOTONIC), and each step of 5 ms or more
  server-clock.py span FILE FROM_NS TO_NS OUT
      writes to OUT (WAV) the sound read between FROM_NS and TO_NS less
      its last 0.2 s (with --app-audio the player dies with the recording:
      its last instants are not a server's fault)
  server-clock.py explain FILE_CHECK SERVER_CHECK LOSS [RECORD_LOG]
      with the outputs of audio-check.py --strict on the recorded file and
      on the server's own sound (their "strict-defects" lines) and of
      `loss` over the same span: prints each place where the file's tone
      breaks and what the server did there; exits 1 when one is not
      within EXPLAIN_S of a break of the server's own sound or of a step of
      its timeline (the file breaks where the server did, or wl-record
      made a hole of its own). With wl-record's -v log, a break within
      EXPLAIN_ZEROS_S of a place where wl-record said the sound came with
      digital silence in it is the server's too: it gave wl-record's
      stream zeros that the other recorder's stream did not get

A server that keeps time delivers 48000 frames a second of CLOCK_MONOTONIC
(PipeWire's null sink runs on it). Its lag, the wall time elapsed less the
frames' time, is steady, plus upward spikes when this reader runs late
(the frames then wait in the pipe: read later, they are all counted, and
the lag falls back). Its lower envelope (the least lag over the next
second) rises only when the server produced no sound for a while and did
not make up for it: a graph stalled on a loaded machine (seen: 50 to 100
ms, once in some minutes with both cores busy). wl-record then rightly
sees a gap in the sound's timing. tone-loaded.sh records again when the
server lost time: the strict check is judged on a server that kept time."""
import os
import re
import signal
import sys
import time
import wave

FRAME_BYTES = 4


def log(path):
    total = 0
    pending = 0
    # The WAV's header is written with each read's frames: it is whole
    # whenever the reader is stopped (SIGTERM ends it between reads).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with open(path, "w", buffering=1) as out, wave.open(path + ".wav", "wb") as sound:
        sound.setnchannels(2)
        sound.setsampwidth(2)
        sound.setframerate(48000)
        while True:
            data = os.read(0, 1 << 16)
            if not data:
                return
            now = time.monotonic_ns()
            pending += len(data)
            total += pending // FRAME_BYTES
            pending %= FRAME_BYTES
            out.write("%d %d\n" % (now, total))
            sound.writeframes(data)


def loss(path, from_ns, to_ns):
    reads = []
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) == 2:
                reads.append((int(fields[0]), int(fields[1])))
    if len(reads) < 100:
        sys.exit("FAIL: the server's sound was hardly read (%d reads)" % len(reads))
    # The lag after each read: elapsed time less the frames' time, in ms;
    # the frames read up to then were all there (reads take what waits).
    t0 = reads[0][0]
    lag = [((t - t0) - frames * 1e9 / 48000) / 1e6 for t, frames in reads]
    times = [t for t, _ in reads]
    # Lower envelope: the least lag of the reads in the following second.
    envelope, j = [], 0
    for i in range(len(reads)):
        j = max(j, i)
        while j + 1 < len(reads) and times[j + 1] - times[i] <= 1e9:
            j += 1
        envelope.append(min(lag[i:j + 1]))
    inside = [i for i in range(len(reads)) if from_ns <= times[i] and times[i] + 1e9 <= to_ns]
    if not inside:
        sys.exit("FAIL: the server's sound was not read during the recording")
    steps, base = [], envelope[inside[0]]
    for i in inside:
        if envelope[i] - base >= 5:
            steps.append(((times[i] - from_ns) / 1e9, envelope[i] - base))
            base = envelope[i]
        base = min(base, envelope[i])
    lost = envelope[inside[-1]] - envelope[inside[0]]
    for at, size in steps:
        print("server clock: at %.2f s into the recording, %.1f ms of the server's timeline "
              "lost" % (at, size))
    print("server clock: %d reads; the server lost %.1f ms of its timeline over the recording"
          % (len(inside), lost))
    print("lost-ms %.1f" % max(lost, sum(size for _, size in steps)))


def span(path, from_ns, to_ns, out_path):
    with open(path) as f:
        reads = [tuple(int(v) for v in line.split()) for line in f if len(line.split()) == 2]
    first = max([frames for t, frames in reads if t <= from_ns] or [0])
    last = max([frames for t, frames in reads if t <= to_ns] or [0]) - 48000 // 5
    with wave.open(path + ".wav", "rb") as sound, wave.open(out_path, "wb") as out:
        out.setparams(sound.getparams())
        sound.setpos(min(first, sound.getnframes()))
        out.writeframes(sound.readframes(max(last - first, 0)))


# The file's times and the other recorder's differ by the two streams'
# latencies (10 to 30 ms); a break is one place within 100 ms
# (audio-check.py): a place this near is the same.
EXPLAIN_S = 0.15
# wl-record says the place of the zeros in the file's time, as the check
# does the break's (in 5 ms blocks).
EXPLAIN_ZEROS_S = 0.03


def defects(path):
    with open(path) as f:
        for line in f:
            fields = line.split()
            if fields and fields[0] == "strict-defects":
                return [float(v) for v in fields[2:]]
    return []


def zeros_said(record_log):
    """The places (s) where wl-record said its source's sound had digital
    silence in it."""
    if not record_log:
        return []
    pattern = re.compile(r"[0-9.]+ ms of digital silence in the source's sound at ([0-9.]+) s")
    with open(record_log, errors="replace") as f:
        return [float(m.group(1)) for m in map(pattern.search, f) if m]


def explain(file_check, server_check, loss_path, record_log=None):
    zeros = zeros_said(record_log)
    steps = []
    with open(loss_path) as f:
        for line in f:
            fields = line.split()
            if line.startswith("server clock: at "):
                steps.append(float(fields[3]))
    server = defects(server_check)
    unexplained = 0
    for at in defects(file_check):
        near = [t for t in server if abs(t - at) <= EXPLAIN_S]
        stepped = [t for t in steps if abs(t - at) <= EXPLAIN_S]
        given = [t for t in zeros if abs(t - at) <= EXPLAIN_ZEROS_S]
        if given and not (near or stepped):
            print("explained: the file's tone breaks at %.3f s, where the server gave "
                  "wl-record's stream digital silence (said at %.3f s)" % (at, given[0]))
        elif near or stepped:
            print("explained: the file's tone breaks at %.3f s, where the server's own sound "
                  "%s" % (at, "breaks too (at %.3f s)" % near[0] if near
                          else "did not, but its timeline stepped (at %.2f s)" % stepped[0]))
        else:
            print("UNEXPLAINED: the file's tone breaks at %.3f s; the server's own sound "
                  "does not break within %.2f s, nor does its timeline step" % (at, EXPLAIN_S))
            unexplained += 1
    print("explain: %d places where the file breaks not explained by the server "
          "(its own sound breaks in %d, its timeline stepped %d times)"
          % (unexplained, len(server), len(steps)))
    return 1 if unexplained else 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "log":
        log(sys.argv[2])
    elif len(sys.argv) == 6 and sys.argv[1] == "span":
        span(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    elif len(sys.argv) in (5, 6) and sys.argv[1] == "explain":
        sys.exit(explain(*sys.argv[2:]))
    elif len(sys.argv) == 5 and sys.argv[1] == "loss":
        loss(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
