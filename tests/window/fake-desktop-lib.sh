# The fake desktop of tests/window/fake_desktop.c, driven through a fifo
# (sourced after TEST_LIB; FAKE_DESKTOP points at the executable).
: "${FAKE_DESKTOP:?FAKE_DESKTOP must point at the fake-desktop executable}"

# start_fake_desktop W H [SEAT_VERSION]: the desktop on socket
# fake-desktop, its toplevel configured at W x H; its log is desktop.log.
start_fake_desktop() {
	mkfifo -m 0600 "$TEST_DIR/desktop.in"
	exec 7<>"$TEST_DIR/desktop.in"
	start desktop "$FAKE_DESKTOP" fake-desktop "$1" "$2" "$TEST_DIR/desktop.in" ${3:+"$3"}
	wait_until 10 "the fake desktop" log_has desktop '^ready'
	DESKTOP_COMMANDS=0
}

desktop_did() {
	[ "$(grep -c '^ok ' "$TEST_DIR/desktop.log")" -ge "$1" ]
}

# desktop COMMAND...: sends each command (see fake_desktop.c) and waits
# until the desktop has carried them out.
desktop() {
	local command
	for command in "$@"; do
		DESKTOP_COMMANDS=$((DESKTOP_COMMANDS + 1))
		echo "$command" >&7
	done
	wait_until 10 "the fake desktop: $*" desktop_did $DESKTOP_COMMANDS
}
