# Sourced by the scripts here: the Debian 12 packages wl-record builds with
# (one list, so that no script can fall behind meson.build), and apt_install.

BUILD_PACKAGES=(
	meson ninja-build pkg-config gcc libc6-dev
	libwayland-dev wayland-protocols libwayland-bin
	libpixman-1-dev libpng-dev
	libavcodec-dev libavformat-dev libavutil-dev libswscale-dev libavfilter-dev libyuv-dev
	libva-dev libdrm-dev libegl-dev libgles-dev scdoc
)

# apt_install PACKAGE...: installs as root; does nothing for other users or
# with WLR_NO_APT=1 (the packages are then assumed present).
apt_install() {
	[ "${WLR_NO_APT:-0}" != 1 ] && [ "$(id -u)" = 0 ] || return 0
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q && apt-get install -y -q --no-install-recommends "$@"
}
