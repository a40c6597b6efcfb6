#!/bin/bash
# fuzz-display-seeds: the seeds of fuzz/corpus/display still do what
# fuzz/README.md says they do. They name wl-record's own global numbers
# (wire_from_log.py), which a new global can shift; a stale seed binds the
# wrong globals and is refused at once, and the fuzzer then starts from
# nothing, unnoticed. Each seed, replayed with WAYLAND_DEBUG=server, must
# bind the fullscreen shell, have its mode accepted (mode_successful) and
# draw no protocol error.
#   check-display-seeds.sh REPLAY_DISPLAY FOLDER   (its *.seed files)
set -u
replay=${1:?replay-display}
seeds=("${2:?a folder of seeds}"/*.seed)
[ -e "${seeds[0]}" ] || { echo "FAIL: no seed in $2"; exit 1; }
failed=0
for seed in "${seeds[@]}"; do
	log=$(WAYLAND_DEBUG=server "$replay" "$seed" 2>&1)
	name=$(basename "$seed")
	ok=1
	if ! grep -q 'zwp_fullscreen_shell_v1@[0-9]*\.present_surface_for_mode' <<<"$log"; then
		echo "FAIL: $name does not reach the fullscreen shell's present_surface_for_mode"
		ok=0
	elif ! grep -q -- '-> zwp_fullscreen_shell_mode_feedback_v1@[0-9]*\.mode_successful()' <<<"$log"; then
		echo "FAIL: $name: the mode is not accepted (no mode_successful)"
		ok=0
	fi
	if grep -q -- '-> wl_display@1\.error' <<<"$log"; then
		echo "FAIL: $name draws a protocol error: $(grep -m 1 -- '-> wl_display@1\.error' <<<"$log")"
		ok=0
	fi
	if [ "$ok" = 1 ]; then
		echo "$name: binds $(grep -c 'wl_registry@[0-9]*\.bind' <<<"$log") globals, mode accepted"
	else
		failed=1
	fi
done
[ "$failed" = 0 ] && echo PASS
exit "$failed"
