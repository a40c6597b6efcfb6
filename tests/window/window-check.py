#!/usr/bin/env python3
"""Checks for the --window tests, by decoding (ffmpeg) what sway showed and
what wl-record wrote.

  window-check.py screen PNG X Y W H PW PH RRGGBB
      In the desktop's screenshot PNG, the window's content at X,Y (W x H)
      shows a PW x PH picture of colour RRGGBB scaled to fit, its aspect
      kept, centred: the colour at its centre and 3 pixels inside each of
      its edges, black in the middle of each letterbox bar wider than 6
      pixels. Exit 1 with what was seen otherwise.
  window-check.py video FILE X Y RRGGBB[,RRGGBB...]
      The pixel X,Y of the video's frames goes through these colours in
      this order (each at least once, nothing else but black before the
      first); prints the frame count.
"""
import struct
import subprocess
import sys

TOLERANCE = 40


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    return struct.unpack(">II", head[16:24])


def decode_rgb(path, extra=()):
    result = subprocess.run(["ffmpeg", "-v", "error", "-i", path, *extra, "-f", "rawvideo",
                             "-pix_fmt", "rgb24", "-"], capture_output=True)
    if result.returncode != 0:
        sys.exit("ffmpeg cannot decode %s: %s" % (path, result.stderr.decode(errors="replace")))
    return result.stdout


def colour(text):
    return tuple(int(text[i:i + 2], 16) for i in (0, 2, 4))


def near(a, b, tolerance=TOLERANCE):
    return all(abs(x - y) <= tolerance for x, y in zip(a, b))


def fit(window_w, window_h, picture_w, picture_h):
    """As src/window/window_fit.c: aspect kept, centred."""
    if window_w * picture_h <= window_h * picture_w:
        w, h = window_w, (window_w * picture_h + picture_w // 2) // picture_w
    else:
        w, h = (window_h * picture_w + picture_h // 2) // picture_h, window_h
    return (window_w - w) // 2, (window_h - h) // 2, w, h


def check_screen(args):
    path = args[0]
    x, y, w, h, pw, ph = (int(a) for a in args[1:7])
    want = colour(args[7])
    width, height = png_size(path)
    rgb = decode_rgb(path)

    def pixel(px, py):
        i = (py * width + px) * 3
        return tuple(rgb[i:i + 3])

    fx, fy, fw, fh = fit(w, h, pw, ph)
    fx += x
    fy += y
    probes = [("centre", fx + fw // 2, fy + fh // 2, want),
              ("left edge", fx + 3, fy + fh // 2, want),
              ("right edge", fx + fw - 4, fy + fh // 2, want),
              ("top edge", fx + fw // 2, fy + 3, want),
              ("bottom edge", fx + fw // 2, fy + fh - 4, want)]
    black = (0, 0, 0)
    if fx - x > 6:
        probes.append(("left bar", x + (fx - x) // 2, fy + fh // 2, black))
        probes.append(("right bar", fx + fw + (x + w - fx - fw) // 2, fy + fh // 2, black))
    if fy - y > 6:
        probes.append(("top bar", fx + fw // 2, y + (fy - y) // 2, black))
        probes.append(("bottom bar", fx + fw // 2, fy + fh + (y + h - fy - fh) // 2, black))
    bad = []
    for name, px, py, expected in probes:
        seen = pixel(px, py)
        if not near(seen, expected, TOLERANCE if expected != black else 24):
            bad.append("%s %d,%d is %02x%02x%02x, not %02x%02x%02x" % (name, px, py, *seen,
                                                                     *expected))
    summary = "window %d,%d %dx%d: picture at %d,%d %dx%d" % (x, y, w, h, fx, fy, fw, fh)
    if bad:
        print(summary + ": " + "; ".join(bad))
        return 1
    print(summary + ": ok (%d probes)" % len(probes))
    return 0


def check_video(args):
    path = args[0]
    x, y = int(args[1]), int(args[2])
    order = [colour(c) for c in args[3].split(",")]
    # Each frame as it was written (no frames repeated to a constant rate).
    pixels = decode_rgb(path, ["-vsync", "passthrough", "-vf",
                               "format=rgb24,crop=1:1:%d:%d" % (x, y)])
    frames = [tuple(pixels[i:i + 3]) for i in range(0, len(pixels) - 2, 3)]
    step = -1
    seen = []
    for index, frame in enumerate(frames):
        matches = [i for i, c in enumerate(order) if near(frame, c)]
        if matches and matches[0] == step:
            continue
        if matches and matches[0] == step + 1:
            step += 1
            seen.append("%02x%02x%02x" % order[step])
            continue
        if step < 0 and near(frame, (0, 0, 0), 24):
            continue
        print("frame %d is %02x%02x%02x after %s" % (index, *frame,
                                                     ",".join(seen) or "nothing"))
        return 1
    if step != len(order) - 1:
        print("the colours went only as far as %s in %d frames" % (",".join(seen) or "nothing",
                                                                   len(frames)))
        return 1
    print("%d frames" % len(frames))
    return 0


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "screen" and len(sys.argv) == 10:
        return check_screen(sys.argv[2:])
    if len(sys.argv) >= 2 and sys.argv[1] == "video" and len(sys.argv) == 6:
        return check_video(sys.argv[2:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
