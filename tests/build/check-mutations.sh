#!/bin/bash
# scripts/mutate proves the tests with the bugs of tests/mutations/. A
# mutation that no longer applies to the code proves nothing, silently: each
# must still apply, name a bug and name tests that exist.
#   check-mutations.sh SOURCE_ROOT BUILD_ROOT
set -u
root=$1 build=$2
tests=$(meson test -C "$build" --list --no-rebuild 2>/dev/null | sed 's/^.* \/ //')
[ -n "$tests" ] || { echo "FAIL: meson test --list gave nothing"; exit 1; }
status=0 count=0
for file in "$root"/tests/mutations/*.diff; do
	name=$(basename "$file" .diff)
	count=$((count + 1))
	if ! (cd "$root" && git apply --check "$file" 2>&1); then
		echo "FAIL: $name no longer applies: update tests/mutations/$name.diff"
		status=1
	fi
	grep -q '^# bug: .' "$file" || { echo "FAIL: $name names no bug"; status=1; }
	names=$(sed -n 's/^# tests: *//p' "$file")
	[ -n "$names" ] || { echo "FAIL: $name names no tests"; status=1; }
	for test in $names; do
		grep -qxF "$test" <<<"$tests" || { echo "FAIL: $name names '$test', which is no test"; status=1; }
	done
done
[ "$count" -gt 0 ] || { echo "FAIL: no mutations in tests/mutations"; exit 1; }
[ "$status" = 0 ] && echo "ok   $count mutations apply and name existing tests"
exit "$status"
