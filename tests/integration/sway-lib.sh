# sway 1.7 headless as a user's desktop, for tests that run wl-record in it
# (sourced after lib.sh). sway refuses to run as root: as root, sway and
# everything that talks to it run as 'nobody' through setpriv, in a
# private home and XDG_RUNTIME_DIR under $TEST_DIR (skip when that cannot
# be had).
#
#   start_sway CONFIG_FILE
# sets SWAY_PID, DISPLAY_NAME (sway's socket), USER_DIR (writable by that
# user) and the array as_user: a command prefix with that user, HOME,
# XDG_RUNTIME_DIR and WAYLAND_DISPLAY.
start_sway() {
	local config=$1
	require_commands sway swaymsg
	USER_DIR=$TEST_DIR/user
	mkdir -m 0700 "$USER_DIR" "$USER_DIR/runtime"
	as_user=(env)
	if [ "$(id -u)" -eq 0 ]; then
		command -v setpriv >/dev/null || skip "running as root without setpriv to drop privileges"
		id nobody >/dev/null 2>&1 || skip "running as root and there is no user 'nobody'"
		getent group nogroup >/dev/null || skip "running as root and there is no group 'nogroup'"
		setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null ||
			skip "running as root and setpriv cannot drop to 'nobody'"
		require_reachable_by_nobody
		chmod 0711 "$TEST_DIR"
		chown -R nobody "$USER_DIR"
		as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups env)
	fi
	as_user+=(HOME="$USER_DIR" XDG_RUNTIME_DIR="$USER_DIR/runtime")
	chmod 0644 "$config"
	start sway "${as_user[@]}" WLR_BACKENDS=headless WLR_LIBINPUT_NO_DEVICES=1 \
		WLR_RENDERER=pixman sway -c "$config"
	SWAY_PID=$STARTED_PID
	wait_until 20 "sway's socket" sway_socket_found
	as_user+=(WAYLAND_DISPLAY="$DISPLAY_NAME")
	wait_until 20 "sway's IPC socket" sway_ipc_found
}

sway_socket_found() {
	DISPLAY_NAME=$(find "$USER_DIR/runtime" -maxdepth 1 -name 'wayland-[0-9]*' \
		! -name '*.lock' -printf '%f\n' 2>/dev/null | head -n 1)
	[ -n "$DISPLAY_NAME" ]
}

sway_ipc_found() {
	SWAYSOCK=$(find "$USER_DIR/runtime" -maxdepth 1 -name 'sway-ipc.*.sock' 2>/dev/null |
		head -n 1)
	[ -n "$SWAYSOCK" ] || return 1
	export SWAYSOCK
}

# sway_msg ARG...: swaymsg as sway's user.
sway_msg() {
	"${as_user[@]}" SWAYSOCK="$SWAYSOCK" swaymsg "$@"
}

# start_virtual_pointer WIDTH HEIGHT: sway headless has no input devices,
# so a test's pointer is the tests' virtual pointer ($VIRTUAL_POINTER,
# tests/window/virtual_pointer.c over an output of WIDTH x HEIGHT), held
# for the whole test as a real mouse would be, driven through a fifo on fd 7.
# Then `pointer COMMAND...` sends one command and waits until it was done.
start_virtual_pointer() {
	mkfifo -m 0644 "$TEST_DIR/pointer.in"
	exec 7<>"$TEST_DIR/pointer.in"
	start pointer "${as_user[@]}" "$VIRTUAL_POINTER" "$1" "$2" "$TEST_DIR/pointer.in"
	wait_until 10 "the virtual pointer" log_has pointer '^ready'
	POINTER_COMMANDS=0
}
pointer_did() {
	[ "$(grep -c '^ok ' "$TEST_DIR/pointer.log")" -ge "$1" ]
}
pointer() {
	POINTER_COMMANDS=$((POINTER_COMMANDS + 1))
	echo "$*" >&7
	wait_until 10 "the virtual pointer: $*" pointer_did $POINTER_COMMANDS
}

# start_keyboard: a keyboard for the whole test, as a desktop has. Sway
# headless has none, and each `wtype KEYS` adds a virtual keyboard for a
# few milliseconds only, too briefly for a client to bind a wl_keyboard
# when the seat gains the capability; this wtype sleeps until the test ends.
start_keyboard() {
	start keyboard "${as_user[@]}" wtype -s 3600000 -k Escape
	wait_until 10 "sway's keyboard" sway_has_keyboard
}
sway_has_keyboard() {
	sway_msg -t get_inputs -r | grep -q '"type": "keyboard"'
}
