# Sourced by the scripts here: the Debian 12 packages wl-record builds with
# (one list, so that no script can fall behind meson.build), and apt_install.

# The scripts' settings are WL_RECORD_*; the WLR_* spellings of earlier
# versions (WLR_ is wlroots' namespace) still work for a while.
for _wl_record_name in BUILD_DIR ASAN_BUILD_DIR NO_APT FUZZ_SECONDS FUZZ_JOBS FUZZ_BUILD_DIR \
	FUZZ_VERBOSE SOAK_DIR KEEP_TMP DEMO_WIDTH DEMO_HEIGHT; do
	_wl_record_old=WLR_$_wl_record_name
	_wl_record_new=WL_RECORD_$_wl_record_name
	if [ -z "${!_wl_record_new+x}" ] && [ -n "${!_wl_record_old+x}" ]; then
		export "$_wl_record_new=${!_wl_record_old}"
	fi
done
unset _wl_record_name _wl_record_old _wl_record_new

BUILD_PACKAGES=(
	meson ninja-build pkg-config gcc libc6-dev
	libwayland-dev wayland-protocols libwayland-bin
	libpixman-1-dev libpng-dev
	libavcodec-dev libavformat-dev libavutil-dev libswscale-dev libavfilter-dev libyuv-dev
	libswresample-dev  # the audio track's drift compensation (src/encode/audio_track.c)
	libva-dev libdrm-dev libegl-dev libgles-dev libgbm-dev scdoc
	libpulse-dev  # --audio (src/audio): PulseAudio and pipewire-pulse alike
	libpipewire-0.3-dev  # --capture pipewire=NODE (src/pipewire)
	libglib2.0-dev  # --capture portal (src/portal): GDBus
)

# apt_install PACKAGE...: installs as root; does nothing for other users or
# with WL_RECORD_NO_APT=1 (the packages are then assumed present).
apt_install() {
	[ "${WL_RECORD_NO_APT:-0}" != 1 ] && [ "$(id -u)" = 0 ] || return 0
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q && apt-get install -y -q --no-install-recommends "$@"
}
