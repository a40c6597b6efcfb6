#!/usr/bin/env python3
"""audio-server-clock-explain: server-clock.py explain on made-up check
outputs: a break of the file's tone is explained only by a break of the
server's own sound or a step of its timeline within 0.15 s, or by digital
silence wl-record said it got within 0.03 s, and one that is not fails it,
whatever else is explained.
    server-clock-selftest.py SERVER_CLOCK_PY"""
import os
import subprocess
import sys
import tempfile

SCRIPT = sys.argv[1]


def explain(file_places, server_places, steps, zeros=None):
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for name, places in (("file", file_places), ("server", server_places)):
            path = os.path.join(folder, name)
            with open(path, "w") as f:
                f.write("strict continuity: whatever\n")
                f.write("strict-defects %d %s\n" % (len(places), " ".join("%.3f" % p for p in places)))
            paths.append(path)
        loss = os.path.join(folder, "loss")
        with open(loss, "w") as f:
            for at in steps:
                f.write("server clock: at %.2f s into the recording, 50.0 ms of the server's "
                        "timeline lost\n" % at)
            f.write("server clock: 5900 reads; the server lost 50.0 ms of its timeline over "
                    "the recording\nlost-ms 50.0\n")
        record_log = []
        if zeros is not None:
            record_log = [os.path.join(folder, "record.log")]
            with open(record_log[0], "w") as f:
                f.write("wl-record: record: src/pipeline/recording.c:266: audio: auto_null.monitor\n")
                for at in zeros:
                    f.write("wl-record: encode: src/encode/audio_track.c:254: audio 1: 5.3 ms of "
                            "digital silence in the source's sound at %.3f s: so it came\n" % at)
        run = subprocess.run([sys.executable, SCRIPT, "explain", paths[0], paths[1], loss]
                             + record_log, capture_output=True, text=True)
        print(run.stdout, end="")
        return run.returncode


failures = []


def case(name, expected, *args):
    print("== %s" % name)
    status = explain(*args)
    if status != expected:
        failures.append("%s: exit %d, expected %d" % (name, status, expected))


case("nothing broke", 0, [], [], [])
case("the server broke there too", 0, [38.105], [38.100], [])
case("the server broke 0.1 s off (the streams' latencies)", 0, [12.0], [12.1], [])
case("the server's timeline stepped there", 0, [20.0], [], [20.05])
case("a break of wl-record's own", 1, [30.0], [], [])
case("the server broke elsewhere", 1, [30.0], [10.0], [50.0])
case("one of two explained", 1, [38.1, 45.0], [38.1], [])
case("0.2 s off is not the same place", 1, [12.0], [12.2], [])
case("wl-record got zeros there", 0, [30.0], [], [], [29.98])
case("wl-record got zeros 0.1 s off", 1, [30.0], [], [], [30.1])
case("zeros explain one of two", 1, [30.0, 45.0], [], [], [30.0])
case("a log without zeros", 1, [30.0], [], [], [])
for failure in failures:
    print("FAIL: " + failure)
sys.exit(1 if failures else 0)
