#!/bin/bash
# cage (wlroots 0.16, Debian 12) nested in wl-record through its wayland
# backend with the pixman renderer: its output is an xdg toplevel, fullscreen
# at wl-record's size, showing weston-simple-shm.
. "$TEST_LIB"
command -v cage >/dev/null || skip "cage is not installed (apt-get install cage)"
# Debian's cage is built with Xwayland support and refuses to start without it.
command -v Xwayland >/dev/null || skip "Xwayland is not installed (Debian's cage needs it)"
require_commands weston-simple-shm

PNG=$TEST_DIR/cage.png
run=(env WLR_BACKENDS=wayland WLR_RENDERER=pixman WLR_NO_HARDWARE_CURSORS=1 "$WL_RECORD"
	--no-fullscreen-shell --background '#204080' --size 640x480 --timeout 20 --delay 2 "$PNG"
	-- cage -- weston-simple-shm)
if [ "$(id -u)" -eq 0 ]; then
	# wlroots refuses to run as root, and Xwayland wants /tmp/.X11-unix to
	# be its user's or root's: an unprivileged user in a mount namespace
	# with a private /tmp/.X11-unix.
	command -v unshare >/dev/null && command -v setpriv >/dev/null ||
		skip "running as root without unshare/setpriv to drop to an unprivileged user"
	id nobody >/dev/null 2>&1 || skip "running as root and there is no user 'nobody'"
	getent group nogroup >/dev/null || skip "running as root and there is no group 'nogroup'"
	# The same steps as below, on `true`: a container or chroot may refuse
	# a mount namespace (seen in a chroot: "unshare: cannot change root
	# filesystem propagation: Invalid argument"), the tmpfs or setpriv.
	if ! unshare -m sh -c 'mkdir -p /tmp/.X11-unix &&
		mount -t tmpfs -o mode=1777 tmpfs /tmp/.X11-unix &&
		exec setpriv --reuid=nobody --regid=nogroup --clear-groups true' \
		>"$TEST_DIR/probe.log" 2>&1; then
		skip "running as root and cannot drop to 'nobody' in a private mount namespace:" \
			"$(tr '\n' ' ' <"$TEST_DIR/probe.log")"
	fi
	require_reachable_by_nobody
	chmod 0711 "$TEST_DIR"
	WORK=$TEST_DIR/cage
	mkdir -m 0700 "$WORK" "$WORK/runtime"
	chown -R nobody "$WORK"
	PNG=$WORK/cage.png
	run=(env WLR_BACKENDS=wayland WLR_RENDERER=pixman WLR_NO_HARDWARE_CURSORS=1
		HOME="$WORK" XDG_RUNTIME_DIR="$WORK/runtime" "$WL_RECORD" --no-fullscreen-shell
		--background '#204080' --size 640x480 --timeout 20 --delay 2 "$PNG"
		-- cage -- weston-simple-shm)
	start cage unshare -m sh -c 'mkdir -p /tmp/.X11-unix &&
		mount -t tmpfs -o mode=1777 tmpfs /tmp/.X11-unix &&
		exec setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"' sh "${run[@]}"
else
	start cage "${run[@]}"
fi
wait_exit "$STARTED_PID" 40
[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record --no-fullscreen-shell -- cage exited $EXIT_STATUS"
# cage fills the whole output with its own (black) clear colour, so none of
# wl-record's background shows; simple-shm's 250x250 window is inside.
"$REGION_CHECK" "$PNG" --size 640x480 --ref 204080 --differs 0,0,640x480,100 \
	--ref 000000 --differs 20,20,210x210,90 --matches 300,300,340x180 ||
	fail "the still is not cage's 640x480 output showing simple-shm"
pass
