#!/bin/bash
# presenter -> wl-record --screenshot through the listening socket: both
# ways of presenting (present_surface_for_mode, present_surface), both shm
# formats, an odd size and a padded stride. The PNG must be the pattern
# pixel for pixel: nothing scaled, no channel swapped, the X byte of XRGB
# (0 here, as Mesa sends it) not taken for alpha.
. "$TEST_LIB"

SIZE=641x479

# run_case MODE FORMAT SERVER_SIZE STRIDE_PAD
run_case() {
	local mode=$1 format=$2 server_size=$3 stride_pad=$4
	local name="$mode-$format-pad$stride_pad" socket="wlr-shot-$mode-$format-$stride_pad"
	local png="$TEST_DIR/$name.png"
	log "case $name: wl-record --size $server_size, presenter $SIZE"

	start "wl-record-$name" "$WL_RECORD" --screenshot --timeout 10 --size "$server_size" \
		--socket "$socket" "$png"
	local server=$STARTED_PID
	wait_until 5 "wl-record to listen on $socket" socket_exists "$socket"
	log_has "wl-record-$name" "listening on WAYLAND_DISPLAY=$socket" ||
		fail "wl-record did not log 'listening on WAYLAND_DISPLAY=$socket'"

	WAYLAND_DISPLAY=$socket start "presenter-$name" "$PRESENTER" --mode "$mode" \
		--format "$format" --size "$SIZE" --stride-pad "$stride_pad" --frames 1 --hold-ms 8000
	local client=$STARTED_PID

	wait_exit "$server" 12
	[ "$EXIT_STATUS" -eq 0 ] || fail "wl-record --screenshot exited $EXIT_STATUS"
	wait_exit "$client" 12
	[ "$EXIT_STATUS" -eq 0 ] || fail "presenter exited $EXIT_STATUS"
	if [ "$mode" = for-mode ]; then
		log_has "presenter-$name" "mode_successful" || fail "no mode_successful for present_surface_for_mode"
	fi
	[ -f "$png" ] || fail "no PNG written at $png"
	"$PNG_CHECK" "$png" --size "$SIZE" --pattern 0 >"$TEST_DIR/png-check-$name.log" 2>&1 ||
		{ cat "$TEST_DIR/png-check-$name.log"; fail "$name: PNG is not pattern frame 0"; }
	cat "$TEST_DIR/png-check-$name.log"
	# Nothing may be left behind: no socket, no temporary PNG.
	socket_exists "$socket" && fail "wl-record left its socket $socket behind"
	ls "$TEST_DIR" | grep -v -E '\.(log|png)$|^runtime$' && fail "stray files left in the output folder"
	return 0
}

# present_surface_for_mode: the output must switch to the buffer size, so
# the server starts at another size on purpose.
run_case for-mode xrgb 320x240 0
run_case for-mode argb 320x240 0
# present_surface: the output keeps the size wl-record advertises.
run_case surface xrgb "$SIZE" 0
run_case surface argb "$SIZE" 0
# A stride wider than the row, for both paths.
run_case for-mode xrgb 320x240 256
run_case surface argb "$SIZE" 64
pass
