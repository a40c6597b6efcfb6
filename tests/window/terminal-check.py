#!/usr/bin/env python3
"""Checks for window-terminal.sh, by decoding (ffmpeg) what wl-record wrote
or what sway showed. Ink: a pixel far from the picture's background (its
most common grey level).

  terminal-check.py ink PNG X Y W H
      Exit 0 when the rectangle X,Y W x H of PNG holds text (ink pixels on
      at least two rows). For waiting until the terminal has drawn.
  terminal-check.py video FILE
      The recording of a terminal in which `echo hello` was typed and run.
      Text lines are the bands of rows with ink in the last frame; there
      must be at least three: the command line ("$ echo hello", 12
      characters), its output ("hello", 5) and the next prompt. Checked:
        - an early frame has ink in the first band only (the prompt);
        - in the last frame the first band's text reaches about 12/5 as
          far right as the second band's (the typed command, the output),
          and the first band has half as much ink again as in that early frame;
        - a frame between has the first band's ink grown while the second
          band is still empty (the typed text shown before Return): said,
          not required (typing and Return may share a frame).
"""
import subprocess
import sys

INK_DISTANCE = 60


def decode_gray(path, size=None):
    if size is None:
        probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0",
                                "-show_entries", "stream=width,height", "-of", "csv=p=0", path],
                               capture_output=True, text=True)
        if probe.returncode != 0:
            sys.exit("ffprobe cannot read %s: %s" % (path, probe.stderr))
        size = tuple(int(v) for v in probe.stdout.strip().split(",")[:2])
    result = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-fps_mode", "passthrough",
                             "-f", "rawvideo", "-pix_fmt", "gray", "-"], capture_output=True)
    if result.returncode != 0:
        sys.exit("ffmpeg cannot decode %s: %s" % (path, result.stderr.decode(errors="replace")))
    w, h = size
    data = result.stdout
    frames = [data[i:i + w * h] for i in range(0, len(data) - w * h + 1, w * h)]
    return w, h, frames


def ink_table(frame):
    counts = [0] * 256
    for v in frame[::7]:
        counts[v] += 1
    background = counts.index(max(counts))
    return bytes(1 if abs(v - background) > INK_DISTANCE else 0 for v in range(256))


def row_ink(frame, w, h, table, x0=0, x1=None):
    x1 = w if x1 is None else x1
    return [frame[y * w + x0:y * w + x1].translate(table).count(1) for y in range(h)]


def row_right_edge(frame, w, y0, y1, table):
    right = -1
    for y in range(y0, y1):
        marks = frame[y * w:(y + 1) * w].translate(table)
        r = marks.rfind(1)
        right = max(right, r)
    return right


def bands(rows):
    """(first, last + 1) of each run of rows with ink, runs closer than 2
    rows joined."""
    out = []
    for y, n in enumerate(rows):
        if n == 0:
            continue
        if out and y - out[-1][1] <= 2:
            out[-1][1] = y + 1
        else:
            out.append([y, y + 1])
    return [tuple(b) for b in out]


def check_ink(args):
    path = args[0]
    x, y, w, h = (int(a) for a in args[1:5])
    result = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=width,height",
                             "-of", "csv=p=0", path], capture_output=True, text=True)
    size = tuple(int(v) for v in result.stdout.strip().split(",")[:2])
    width, height, frames = decode_gray(path, size)
    frame = frames[0]
    crop = b"".join(frame[(y + r) * width + x:(y + r) * width + x + w] for r in range(h))
    table = ink_table(crop)
    rows = [n for n in row_ink(crop, w, h, table) if n]
    print("%d rows with ink" % len(rows))
    return 0 if len(rows) >= 2 else 1


def check_video(args):
    w, h, frames = decode_gray(args[0])
    if len(frames) < 2:
        print("%d frames" % len(frames))
        return 1
    last = frames[-1]
    table = ink_table(last)
    found = bands(row_ink(last, w, h, table))
    print("%d frames %dx%d; text lines in the last frame (rows): %s" % (len(frames), w, h, found))
    if len(found) < 3:
        print("fewer than three text lines in the last frame")
        return 1
    line1, line2 = found[0], found[1]

    def band_ink(frame, band):
        return sum(row_ink(frame, w, h, table)[band[0]:band[1]])

    per_frame = [(band_ink(f, line1), band_ink(f, line2), band_ink(f, found[2])) for f in frames]
    early = next((i for i, (a, b, c) in enumerate(per_frame) if a > 0 and b == 0 and c == 0), None)
    if early is None:
        print("no frame with the prompt alone: %s" % per_frame[:20])
        return 1
    typed = next((i for i, (a, b, c) in enumerate(per_frame)
                  if i > early and b == 0 and a > per_frame[early][0] * 1.5), None)
    right1 = row_right_edge(last, w, line1[0], line1[1], table)
    right2 = row_right_edge(last, w, line2[0], line2[1], table)
    left = min(frame_left(last, w, band, table) for band in (line1, line2))
    print("prompt alone in frame %d (ink %d); typed text before Return: %s; last frame: "
          "line 1 ink %d reaching x=%d, line 2 ink %d reaching x=%d, text from x=%d" %
          (early, per_frame[early][0], "frame %d" % typed if typed is not None else "not seen",
           per_frame[-1][0], right1, per_frame[-1][1], right2, left))
    if per_frame[-1][0] <= per_frame[early][0] * 1.5:
        print("the command line has no more ink than the prompt had")
        return 1
    ratio = (right1 - left + 1) / max(1, right2 - left + 1)
    print("line 1 / line 2 extent: %.2f (12/5 = 2.40)" % ratio)
    if not 2.0 <= ratio <= 2.9:
        print("the lines are not '$ echo hello' over 'hello'")
        return 1
    return 0


def frame_left(frame, w, band, table):
    left = w
    for y in range(band[0], band[1]):
        marks = frame[y * w:(y + 1) * w].translate(table)
        i = marks.find(1)
        if i >= 0:
            left = min(left, i)
    return left


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "ink" and len(sys.argv) == 7:
        return check_ink(sys.argv[2:])
    if len(sys.argv) == 3 and sys.argv[1] == "video":
        return check_video(sys.argv[2:])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
