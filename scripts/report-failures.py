#!/usr/bin/env python3
"""Repeats, briefly, why a meson test run failed.

    report-failures.py TESTLOG_JSON [LINES]

Prints each test of meson's testlog.json (one JSON object a line) whose
result is FAIL, TIMEOUT or UNEXPECTEDPASS, with the last LINES (default 6)
lines of its output that say why: its FAIL line first when it has one.
scripts/test prints this at the end of its run, where a CI log that keeps
only its beginning and its end still shows it. Exits 2 when the log
cannot be read, else 0.
"""
import json
import sys

BAD = {"FAIL", "TIMEOUT", "UNEXPECTEDPASS", "ERROR"}


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    keep = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    try:
        with open(sys.argv[1], encoding="utf-8") as f:
            tests = [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError) as error:
        print("report-failures.py: cannot read %s: %s" % (sys.argv[1], error), file=sys.stderr)
        return 2
    for test in tests:
        if test.get("result") not in BAD:
            continue
        output = "\n".join(test.get(key) or "" for key in ("stdout", "stderr"))
        lines = [line.rstrip() for line in output.splitlines() if line.strip()]
        said = [line for line in lines if "FAIL" in line or "ERROR" in line][:2]
        tail = [line for line in lines[-keep:] if line not in said]
        print("%s %s (%.0f s)" % (test["result"], test["name"], test.get("duration") or 0))
        for line in said + tail:
            print("    " + line[:300])
    return 0


if __name__ == "__main__":
    sys.exit(main())
