#!/usr/bin/env python3
"""The table of doc/testing.md from a run of scripts/mutate.

    mutation-table.py MUTATE_LOG

Reads each tests/mutations/*.diff (its "# bug:" and "# tests:" lines) and
the result table scripts/mutate printed (rows "| mutation | test | result |")
and prints a Markdown table: mutation, the bug, the tests that must catch
it, how many of them did. A mutation the log does not show is listed with
"not run". Exits 1 when a pair in the log was not caught, 2 on bad use.
"""
import glob
import os
import re
import sys

ROW = re.compile(r"^\| ([^|]+?) \| ([^|]+?) \| ([^|]+?) \|$")


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    results = {}
    baseline = set()
    with open(sys.argv[1], encoding="utf-8", errors="replace") as log:
        for line in log:
            match = ROW.match(line.strip())
            if not match or match.group(1) in ("mutation", "---"):
                continue
            name, test, result = match.groups()
            if name == "(none)":
                baseline.add(test)
                continue
            results.setdefault(name, []).append(result.startswith("caught"))
    print("| mutation | the bug | tests that must catch it | caught |")
    print("|---|---|---|---|")
    missed = 0
    pairs = caught = 0
    for path in sorted(glob.glob(os.path.join(repo, "tests/mutations/*.diff"))):
        name = os.path.basename(path)[:-len(".diff")]
        bug, tests = "", []
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("# bug: "):
                    bug = line[len("# bug: "):].strip()
                elif line.startswith("# tests: "):
                    tests = line[len("# tests: "):].split()
                elif not line.startswith("#"):
                    break
        got = results.get(name)
        if got is None:
            verdict = "not run"
        else:
            verdict = "%d of %d" % (sum(got), len(got))
            pairs += len(got)
            caught += sum(got)
            missed += len(got) - sum(got)
        print("| `%s` | %s | %s | %s |" % (name, bug.replace("|", "/"), ", ".join(tests), verdict))
    print()
    print("Without a mutation all %d of these tests passed first. %d of %d mutation/test "
          "pairs caught." % (len(baseline), caught, pairs))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
