#!/usr/bin/env python3
"""The library boundaries of src/, checked with the build's own compile
commands: a source of each part is compiled with exactly the include folders
and definitions the build gives that part, and must not reach the headers of
the parts it may not see. Each part must still reach its own and common/'s
headers, so a check that passes only because nothing compiles cannot pass.

Usage: check-boundaries.py BUILD_DIR
"""
import json
import os
import shlex
import subprocess
import sys

# part -> (headers it must reach, headers it must not reach)
RULES = {
    "common": (["frame.h", "frame_source.h"],
               ["recording.h", "server.h", "screen.h", "encoder.h", "recorder.h",
                "screencopy_source.h", "copy_server.h", "audio_capture.h", "app_sink.h",
                "desktop_window.h", "pipewire_source.h", "sigbus_guard.h"]),
    "capture": (["server.h", "frame.h", "sigbus_guard.h", "capture_source.h"],
                ["encoder.h", "recorder.h", "muxer.h", "screencopy_source.h",
                 "copy_server.h", "pipewire_source.h"]),
    "encode": (["encoder.h", "frame.h", "audio_chunk.h"],
               ["recording.h", "server.h", "screen.h", "surface.h", "screencopy_source.h",
                "audio_capture.h", "app_sink.h", "pipewire_source.h"]),
    # Audio capture (libpulse): common/ only; chunks leave through
    # common's audio_chunk.h, the recorder is not its to know.
    "audio": (["audio_capture.h", "app_sink.h", "audio_chunk.h", "clock.h"],
              ["server.h", "screen.h", "encoder.h", "recorder.h", "muxer.h",
               "audio_track.h", "screencopy_source.h", "copy_server.h"]),
    # A client of another compositor: none of the nested compositor's
    # (server) headers, nor the encoder's.
    "screencopy": (["screencopy_source.h", "frame.h", "capture_source.h"],
                   ["server.h", "screen.h", "surface.h", "shm.h", "encoder.h",
                    "recorder.h"]),
    # A PipeWire node as a frame source: common/ and the SIGBUS guard
    # only; none of the compositor's, the desktop client's or the encoder's.
    "pipewire": (["pipewire_source.h", "frame_source.h", "sigbus_guard.h", "capture_source.h"],
                 ["server.h", "screen.h", "surface.h", "shm.h", "encoder.h",
                  "recorder.h", "screencopy_source.h", "copy_server.h",
                  "audio_capture.h"]),
    # The SIGBUS guard: libc and common/'s log only.
    "sigbus": (["sigbus_guard.h", "log.h"],
               ["server.h", "encoder.h", "recorder.h", "screencopy_source.h",
                "pipewire_source.h"]),
    # Serves ext-image-copy-capture as a frame sink: common/ and the
    # protocol code only; the compositor's wl_shm reaches it through
    # common's shm_writer.h.
    "copy_server": (["copy_server.h", "frame_source.h", "shm_writer.h"],
                    ["server.h", "screen.h", "surface.h", "shm.h", "buffer.h",
                     "sigbus_guard.h", "encoder.h", "recorder.h",
                     "screencopy_source.h"]),
    # --window: a client of the user's desktop, a frame sink like the
    # others; the nested compositor, the encoder and the other clients'
    # headers are not its to know.
    "window": (["desktop_window.h", "frame_source.h", "xdg-shell-client-protocol.h"],
               ["server.h", "screen.h", "surface.h", "shm.h", "encoder.h", "recorder.h",
                "screencopy_source.h", "copy_server.h", "audio_capture.h"]),
    # What the clients of the user's desktop share (wayland-client): common/
    # only; it serves screencopy/ and window/, and knows neither.
    "client": (["roundtrip.h", "desktop_connection.h", "log.h"],
               ["server.h", "screen.h", "surface.h", "encoder.h", "recorder.h",
                "screencopy_source.h", "desktop_window.h", "copy_server.h",
                "pipewire_source.h", "portal_screencast.h"]),
    # The ScreenCast portal (GDBus): it hands a PipeWire remote fd and a node
    # to pipeline/, which gives them to pipewire/; it reads no frames itself
    # (its capture source holds pipewire/'s through capture_source.h).
    "portal": (["portal_screencast.h", "log.h", "capture_source.h"],
               ["server.h", "screen.h", "surface.h", "encoder.h", "recorder.h",
                "screencopy_source.h", "desktop_window.h", "copy_server.h",
                "pipewire_source.h", "audio_capture.h"]),
    # The frame path without the program: the sources it chooses among
    # (not the compositor: the program hands its source in), the
    # recorder's, the still writer's and audio's headers; never the
    # program's (what it needs of cmd/ comes as a request, configs and
    # pipeline_events.h), nor the compositor's or the other sinks'.
    "pipeline": (["recording.h", "screenshot.h", "pipeline_events.h", "source_select.h",
                  "capture_source.h", "recorder.h", "png_writer.h", "audio_capture.h",
                  "frame_pacer.h", "screencopy_source.h", "pipewire_source.h",
                  "portal_screencast.h"],
                 ["app.h", "options.h", "stats.h", "control.h", "server.h", "screen.h",
                  "surface.h", "desktop_window.h", "copy_server.h"]),
}


def include_flags(command):
    """The -I, -D and -U flags of one compile command, as a list."""
    args = shlex.split(command)
    flags = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-I", "-D", "-U", "-isystem", "-iquote") and i + 1 < len(args):
            flags += [arg, args[i + 1]]
            i += 1
        elif arg.startswith(("-I", "-D", "-U", "-isystem", "-iquote")):
            flags.append(arg)
        i += 1
    return args[0], flags


def reaches(compiler, flags, directory, header):
    probe = '#if !__has_include("%s")\n#error unreachable\n#endif\n' % header
    result = subprocess.run([compiler, "-fsyntax-only", "-x", "c", "-", *flags],
                            input=probe, text=True, cwd=directory,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return result.returncode == 0


def main():
    build_dir = sys.argv[1]
    with open(os.path.join(build_dir, "compile_commands.json")) as f:
        commands = json.load(f)
    failures = 0
    # Every part has its rule: a new folder without one would be unchecked.
    src_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src")
    for part in sorted(os.listdir(src_dir)):
        if os.path.isdir(os.path.join(src_dir, part)) and part not in RULES:
            print(f"FAIL src/{part} has no rule in check-boundaries.py")
            failures += 1
    for part, (allowed, forbidden) in RULES.items():
        marker = os.sep + os.path.join("src", part) + os.sep
        entry = next((e for e in commands
                      if marker in os.path.normpath(os.path.join(e["directory"], e["file"]))), None)
        if entry is None:
            print(f"FAIL src/{part}: no compile command in {build_dir}")
            failures += 1
            continue
        compiler, flags = include_flags(entry["command"])
        for header in allowed:
            if not reaches(compiler, flags, entry["directory"], header):
                print(f"FAIL src/{part} cannot include its own \"{header}\"")
                failures += 1
        for header in forbidden:
            if reaches(compiler, flags, entry["directory"], header):
                print(f"FAIL src/{part} can include \"{header}\": the boundary leaks")
                failures += 1
            else:
                print(f"ok   src/{part} cannot include \"{header}\"")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
