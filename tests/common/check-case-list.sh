#!/bin/sh
# check-case-list.sh EXECUTABLE CASE...: the cases meson read from the
# source's TEST() lines must be exactly those the executable registered
# (--list), in the same order: a TEST() that meson's reading missed would
# never run.
exe=$1
shift
expected=$(printf '%s\n' "$@")
listed=$("$exe" --list) || { echo "FAIL: $exe --list exited $?"; exit 1; }
if [ "$listed" != "$expected" ]; then
	echo "FAIL: $exe --list differs from the TEST() lines meson read"
	echo "--- meson read:"; printf '%s\n' "$expected"
	echo "--- $exe --list:"; printf '%s\n' "$listed"
	exit 1
fi
echo "ok   $# cases, the same in meson and in $exe"
