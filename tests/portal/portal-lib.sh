# The ScreenCast portal stack for the portal tests (sourced after lib.sh and
# sway-lib.sh): sway 1.7 headless as the desktop, and as the same user (the
# portal identifies callers through /proc/PID/root) a private session bus
# without D-Bus activation (every service started here, so every pid is
# known and stopped: activation would also start xdg-document-portal and
# its FUSE mount), pipewire, wireplumber, xdg-permission-store (where the
# portal keeps remembered choices), xdg-desktop-portal-wlr (no dialog:
# chooser_type=none, output HEADLESS-1; XDPW_PERSIST_MODE=permanent so that
# restore tokens are honoured) and xdg-desktop-portal.
#
# xdpw 0.7 cannot cast a sway that renders with pixman (xdpw #289: it waits
# for a dmabuf announcement pixman never makes): it runs with
# xdpw-shm-shim.so preloaded, which repeats the shm announcement as the
# dmabuf one; xdpw still casts through wl_shm (see the shim's comment), so
# what wl-record receives is sway's picture, copied the ordinary way.

XDP=/usr/libexec/xdg-desktop-portal
XDPW=/usr/libexec/xdg-desktop-portal-wlr
PERMISSION_STORE=/usr/libexec/xdg-permission-store

require_portal_stack() {
	local binary
	for binary in dbus-daemon pipewire wireplumber ffmpeg ffprobe "$XDP" "$XDPW" \
		"$PERMISSION_STORE"; do
		command -v "$binary" >/dev/null ||
			skip "$binary is not installed (Debian: dbus, pipewire, wireplumber," \
			     "xdg-desktop-portal, xdg-desktop-portal-wlr, ffmpeg)"
	done
	[ -f "${XDPW_SHIM:?XDPW_SHIM must point at xdpw-shm-shim.so}" ] || fail "$XDPW_SHIM not built"
}

# start_session_bus: a session bus as sway's user, no activation; adds
# DBUS_SESSION_BUS_ADDRESS to as_user.
start_session_bus() {
	BUS_ADDRESS="unix:path=$USER_DIR/runtime/bus"
	cat >"$TEST_DIR/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>$BUS_ADDRESS</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
CONF
	chmod 0644 "$TEST_DIR/bus.conf"
	start dbus "${as_user[@]}" dbus-daemon --config-file="$TEST_DIR/bus.conf" --nofork \
		--nopidfile
	wait_until 10 "the session bus" test -S "$USER_DIR/runtime/bus"
	as_user+=(DBUS_SESSION_BUS_ADDRESS="$BUS_ADDRESS")
}

start_user_pipewire() {
	start pipewire "${as_user[@]}" pipewire
	PIPEWIRE_PID=$STARTED_PID
	wait_until 10 "pipewire's socket" test -S "$USER_DIR/runtime/pipewire-0"
	start wireplumber "${as_user[@]}" wireplumber
}

# bus_has NAME: NAME is owned on the session bus.
bus_has() {
	"${as_user[@]}" dbus-send --session --print-reply --dest=org.freedesktop.DBus \
		/org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner "string:$1" 2>/dev/null |
		grep -q 'boolean true'
}

# start_portal [XDPW_PERSIST_MODE [unshimmed]]: the permission store, xdpw
# (shimmed unless told) and xdg-desktop-portal. XDPW_CHOOSER: xdpw's
# chooser lines (default: none, HEADLESS-1).
start_portal() {
	local persist=${1:-permanent} preload=$XDPW_SHIM
	[ "${2:-}" != unshimmed ] || preload=
	mkdir -p "$TEST_DIR/xdpw"
	cat >"$TEST_DIR/xdpw/config" <<CONF
[screencast]
${XDPW_CHOOSER:-chooser_type=none
output_name=HEADLESS-1}
CONF
	chmod -R a+rX "$TEST_DIR/xdpw"
	start permission-store "${as_user[@]}" "$PERMISSION_STORE" --replace
	wait_until 10 "the permission store" bus_has org.freedesktop.impl.portal.PermissionStore
	start xdpw "${as_user[@]}" XDPW_PERSIST_MODE="$persist" LD_PRELOAD="$preload" \
		"$XDPW" -l DEBUG -c "$TEST_DIR/xdpw/config"
	XDPW_PID=$STARTED_PID
	wait_until 10 "xdg-desktop-portal-wlr" bus_has org.freedesktop.impl.portal.desktop.wlr
	start portal "${as_user[@]}" XDG_CURRENT_DESKTOP=sway "$XDP" -v
	PORTAL_PID=$STARTED_PID
	wait_until 10 "xdg-desktop-portal" bus_has org.freedesktop.portal.Desktop
}

# start_desktop SIZE: sway showing nothing but its background, and the bus
# and PipeWire as its user.
write_sway_config() {
	cat >"$TEST_DIR/sway.conf" <<CONF
output HEADLESS-1 mode $1
default_border none
xwayland disable
CONF
}
