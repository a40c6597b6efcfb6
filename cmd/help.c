#include "help.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libswscale/swscale.h>

void print_help(FILE *out)
{
	fputs(
"Usage: wl-record [OPTIONS] [FILE] [-- COMMAND [ARG...]]\n"
"Records what a Wayland compositor presents to it (fullscreen shell), or the\n"
"apps and nested compositors it hosts (xdg-shell), as H.264 video, or takes a\n"
"PNG still.\n"
"\n"
"Output:\n"
"  FILE, -o, --output FILE  .mkv (default), .mp4, .mov, .webm: record; .png: still;\n"
"                           - : Matroska on stdout\n"
"  -s, --screenshot         write one PNG still and exit\n"
"      --delay SECONDS      screenshot: take the picture this long after the first\n"
"                           frame (0: the first frame that is not all black)\n"
"      --timeout SECONDS    screenshot: give up after this long without a frame (10)\n"
"      --duration SECONDS   stop recording after this long\n"
"      --frames N           stop after N frames\n"
"\n"
"Compositor:\n"
"      --size WxH           output mode until a client asks for another (1920x1080)\n"
"      --fps N              frame rate: frame callbacks and recording cap (60)\n"
"      --socket NAME        listen on $XDG_RUNTIME_DIR/NAME (default wl-record-N);\n"
"                           ignored when WAYLAND_SERVER_SOCKET hands over a client\n"
"  -- COMMAND [ARG...]      run COMMAND connected to wl-record; stop when it exits\n"
"      --no-fullscreen-shell  offer xdg-shell only (nested compositors then open\n"
"                           a fullscreen window instead of presenting)\n"
"      --background COLOR   behind xdg-shell windows and around smaller presented\n"
"                           surfaces: #rrggbb, black, white, gray (black)\n"
"      --compose-all        show every xdg-shell window, stacked oldest first;\n"
"                           default: only the most recently mapped one (all\n"
"                           windows are fullscreen at the output size)\n"
"\n"
"Encoding:\n"
"      --codec NAME         libx264, h264_vaapi, hevc_vaapi, ... (default: VA-API\n"
"                           when a render node works, else libx264)\n"
"      --device PATH        VA-API render node (default: first /dev/dri/renderD*)\n"
"      --bitrate RATE       target bit rate, e.g. 8M (default: quality-based)\n"
"      --crf N              quality for libx264 (default 23; lower is better)\n"
"  -p, --codec-param K=V    encoder option, e.g. -p preset=veryfast (repeatable)\n"
"      --cfr                constant frame rate at --fps (repeats frames)\n"
"      --list-encoders      list the encoders usable here and exit\n"
"\n"
"Control of a running instance:\n"
"      --snap               ask it for a PNG still beside its recording (SIGUSR1)\n"
"      --stop               ask it to finish its recording (SIGINT)\n"
"      --pid-file PATH      pid file (default $XDG_RUNTIME_DIR/wl-record.pid)\n"
"\n"
"  -v, --verbose  -q, --quiet  -h, --help  -V, --version\n"
"\n"
"Exit status: 0 done, 1 failed, 2 bad command line; with COMMAND, its status.\n",
	      out);
}

void print_version(FILE *out)
{
	unsigned c = avcodec_version(), f = avformat_version(), s = swscale_version();
	fprintf(out, "wl-record %s (libavcodec %u.%u.%u, libavformat %u.%u.%u, libswscale %u.%u.%u)\n",
		WL_RECORD_VERSION, AV_VERSION_MAJOR(c), AV_VERSION_MINOR(c), AV_VERSION_MICRO(c),
		AV_VERSION_MAJOR(f), AV_VERSION_MINOR(f), AV_VERSION_MICRO(f),
		AV_VERSION_MAJOR(s), AV_VERSION_MINOR(s), AV_VERSION_MICRO(s));
}
