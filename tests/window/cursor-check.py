#!/usr/bin/env python3
"""Checks the --cursor test's recording (tests/window/window-cursor.sh) by
decoding it (ffmpeg): where the hosted app's cyan pointer image is.

  cursor-check.py on|off FILE W H SIZE HOT_X HOT_Y X,Y [X,Y...]

X,Y: where the app saw the pointer, in order. on: for each, a frame (each
after the one found for the one before) whose cyan pixels are the SIZE x
SIZE image with its top-left corner at X-HOT_X,Y-HOT_Y (an edge may be a
pixel off: chroma subsampling); in the last frame no cyan (the pointer left
the app). off: no cyan in any frame, and for each X,Y a frame with the
app's own white pointer mark there, in order. Exit 1 with what was seen.
Pure Python (no numpy on the test machines).
"""
import subprocess
import sys

# Cyan, also where its chroma is shared with the grey beside it; not the
# app's grey, white, black, magenta or yellow.
HIGH = bytes(1 if v > 150 else 0 for v in range(256))
LOW = bytes(1 if v < 120 else 0 for v in range(256))


def cyan_mask(frame):
    r = frame[0::3].translate(LOW)
    g = frame[1::3].translate(HIGH)
    b = frame[2::3].translate(HIGH)
    n = len(r)
    m = int.from_bytes(r, "big") & int.from_bytes(g, "big") & int.from_bytes(b, "big")
    return m.to_bytes(n, "big")


def bbox(mask, w, h):
    """(count, (x1, y1, x2, y2) inclusive or None)."""
    count = mask.count(1)
    if not count:
        return 0, None
    x1, y1, x2, y2 = w, h, -1, -1
    for y in range(h):
        row = mask[y * w:(y + 1) * w]
        first = row.find(1)
        if first < 0:
            continue
        x1 = min(x1, first)
        x2 = max(x2, row.rfind(1))
        y1 = min(y1, y)
        y2 = y
    return count, (x1, y1, x2, y2)


def white_at(frame, w, x, y):
    o = (y * w + x) * 3
    return all(c > 200 for c in frame[o:o + 3])


def main(args):
    mode, path = args[0], args[1]
    w, h, size, hot_x, hot_y = (int(a) for a in args[2:7])
    points = [tuple(int(v) for v in a.split(",")) for a in args[7:]]
    wanted = [(x - hot_x, y - hot_y, x - hot_x + size - 1, y - hot_y + size - 1)
              for x, y in points]
    proc = subprocess.Popen(["ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo",
                             "-pix_fmt", "rgb24", "-"], stdout=subprocess.PIPE)
    frame_size = w * h * 3
    count = 0
    found = []          # frame index where each wanted thing was seen
    cyan_frames = 0
    seen = []           # distinct cyan boxes, in order
    last = None
    while True:
        frame = proc.stdout.read(frame_size)
        if len(frame) < frame_size:
            break
        pixels, box = bbox(cyan_mask(frame), w, h)
        last = (pixels, box)
        if box and (not seen or seen[-1][1] != box):
            seen.append((count, box, pixels))
        if pixels:
            cyan_frames += 1
        i = len(found)
        if i < len(points):
            if mode == "on" and box and pixels >= (size - 2) ** 2 and \
                    all(abs(a - b) <= 1 for a, b in zip(box, wanted[i])):
                found.append(count)
            elif mode == "off" and white_at(frame, w, *points[i]):
                found.append(count)
        count += 1
    if proc.wait() != 0:
        sys.exit("ffmpeg cannot decode %s" % path)
    if count == 0:
        sys.exit("no frames in %s" % path)
    print("%d frames, %d with cyan; cyan boxes (frame: x1,y1-x2,y2 pixels): %s" % (
        count, cyan_frames,
        " ".join("%d:%d,%d-%d,%d/%d" % ((f,) + b + (p,)) for f, b, p in seen[:12])))
    problems = []
    if mode == "on":
        for i, box in enumerate(wanted):
            if i >= len(found):
                problems.append("no frame with the pointer image at %d,%d-%d,%d (pointer %d,%d, "
                                "hotspot %d,%d)" % (box + points[i] + (hot_x, hot_y)))
                break
            print("pointer %d,%d: the image at %d,%d-%d,%d in frame %d" % (
                points[i] + box + (found[i],)))
        if last[0]:
            problems.append("the last frame still has the pointer image at %s (%d pixels)" % (
                last[1], last[0]))
    else:
        if cyan_frames:
            problems.append("%d frames have cyan without --cursor" % cyan_frames)
        for i, point in enumerate(points):
            if i >= len(found):
                problems.append("no frame with the app's pointer mark at %d,%d" % point)
                break
            print("pointer %d,%d: the app's mark in frame %d" % (point + (found[i],)))
    if problems:
        sys.exit("; ".join(problems))


if __name__ == "__main__":
    main(sys.argv[1:])
