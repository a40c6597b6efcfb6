#!/usr/bin/env python3
"""Counts the skips of a meson test run (issue 34).

    check-skips.py TESTLOG_JSON [ALLOWED_SKIPS]

Reads meson's testlog.json (one JSON object a line) and prints every test
that skipped (meson's result SKIP: exit status 77) with the reason its
output gives (tests/integration/lib.sh's skip() prints "NAME: SKIP: why",
tests/common/test-runner.c's test_skip() "SKIP: why"). A test that passed
but whose output shows a part of it skipped (a "SKIP:" line, or the C
runner's "case NAME skipped" when it ran every case in one process) is
listed too: a program whose cases partly skip must not hide it.

Exits 1 when any test not named in ALLOWED_SKIPS (default:
tests/allowed-skips next to this script) skipped in whole or in part, unless
WL_RECORD_ALLOW_SKIPS=1 (a developer accepting them knowingly); exits 2
when the log cannot be read.
"""
import json
import os
import re
import sys

SKIP_LINE = re.compile(r"(^|: )SKIP: |^case \S+ skipped")


def read_allowed(path):
    allowed = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            name = line.split("#", 1)[0].strip()
            if name:
                allowed.add(name)
    return allowed


def output_of(test):
    # meson merges stderr into stdout unless --split; read both.
    return "\n".join(test.get(key) or "" for key in ("stdout", "stderr"))


def reasons(text, whole):
    lines = [l.strip() for l in text.splitlines() if SKIP_LINE.search(l.strip())]
    if lines or not whole:
        return lines
    rest = [l.strip() for l in text.splitlines() if l.strip()]
    return ["(no SKIP line; its output ends: %s)" % rest[-1]] if rest else [
        "(no reason printed)"]


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    log = argv[1]
    allowed_path = argv[2] if len(argv) == 3 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "allowed-skips")
    allowed = read_allowed(allowed_path)
    skips = []  # (name, whole, reasons)
    try:
        with open(log, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    test = json.loads(line)
                except ValueError as e:
                    print("check-skips: %s:%d: not JSON: %s" % (log, number, e), file=sys.stderr)
                    return 2
                # "wl-record:dmabuf / dmabuf/gpu-vaapi-map": the list
                # names the test as meson.build does, without project
                # and suite.
                name = test.get("name", "?").split(" / ", 1)[-1]
                text = output_of(test)
                if test.get("result") == "SKIP":
                    skips.append((name, True, reasons(text, True)))
                elif test.get("result") == "OK":
                    part = reasons(text, False)
                    if part:
                        skips.append((name, False, part))
    except OSError as e:
        print("check-skips: cannot read %s: %s" % (log, e.strerror), file=sys.stderr)
        return 2

    unexpected = [name for name, _, _ in skips if name not in allowed]
    if not skips:
        print("no test skipped")
        return 0
    print("%d test(s) skipped, %d of them not in %s:" % (
        len(skips), len(unexpected), os.path.relpath(allowed_path)))
    for name, whole, why in skips:
        tag = "SKIPPED" if name in unexpected else "allowed"
        what = "" if whole else " (passed, but part of it skipped)"
        print("  %s %s%s" % (tag, name, what))
        for reason in why:
            print("      %s" % reason)
    if not unexpected:
        return 0
    if os.environ.get("WL_RECORD_ALLOW_SKIPS") == "1":
        print("WL_RECORD_ALLOW_SKIPS=1: accepting the %d skip(s) above; these tests "
              "did not run" % len(unexpected))
        return 0
    print("FAIL: %d test(s) skipped that must run: install what they name (scripts/test "
          "does, as root), or set WL_RECORD_ALLOW_SKIPS=1 to accept the skips knowingly"
          % len(unexpected))
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
