#!/usr/bin/env python3
"""Checks the drag-and-drop test's recording (tests/window/window-dnd.sh)
by decoding it (ffmpeg).

  dnd-check.py FILE W H TX TY TSIZE X,Y

X,Y: where the app was told the drag was last (recording coordinates).
Wanted: a frame with the 16x16 cyan drag icon's top-left corner at X,Y (an
edge may be a pixel off: chroma subsampling); in the last frame no cyan,
and the TSIZE square target at TX,TY blue (the app got the data). Exit 1
with what was seen. Pure Python.

  dnd-check.py icon FILE W H X,Y

Some frame of FILE, as far as it is written (a recording in progress),
has the icon's corner at X,Y; silent exit 1 while none does.

  dnd-check.py end IMAGE W H TX TY TSIZE

IMAGE (a still of the recording) is what the last frame must be: no cyan,
the target blue. Exit 1 with what was seen.
"""
import importlib.util
import os
import subprocess
import sys

spec = importlib.util.spec_from_file_location(
    "cursor_check", os.path.join(os.path.dirname(os.path.abspath(__file__)), "cursor-check.py"))
cursor_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cursor_check)


def icon_at(frame, w, h, wanted):
    """The cyan box of FRAME when it is the whole icon at WANTED (each edge
    within a pixel), else None."""
    pixels, box = cursor_check.bbox(cursor_check.cyan_mask(frame), w, h)
    if box and pixels >= 14 * 14 and all(abs(a - b) <= 1 for a, b in zip(box, wanted)):
        return box
    return None


def icon_written(args):
    path = args[0]
    w, h = int(args[1]), int(args[2])
    x, y = (int(v) for v in args[3].split(","))
    # The file is still being written: its last cluster may be cut short,
    # so ffmpeg's complaint and status are not a failure; its frames count.
    proc = subprocess.Popen(["ffmpeg", "-v", "quiet", "-i", path, "-f", "rawvideo",
                             "-pix_fmt", "rgb24", "-"], stdout=subprocess.PIPE)
    size, count, found = w * h * 3, 0, None
    while found is None:
        frame = proc.stdout.read(size)
        if len(frame) < size:
            break
        if icon_at(frame, w, h, (x, y, x + 15, y + 15)):
            found = count
        count += 1
    proc.kill()
    proc.wait()
    if found is None:
        sys.exit(1)
    print("the icon at %d,%d in frame %d of the file written so far" % (x, y, found))


def end_problems(frame, w, h, tx, ty, tsize):
    """What keeps FRAME from being the drag's end: cyan left, the target
    not blue."""
    problems = []
    pixels, box = cursor_check.bbox(cursor_check.cyan_mask(frame), w, h)
    if pixels:
        problems.append("the last frame still has cyan at %s" % (box,))
    cx, cy = tx + tsize // 2, ty + tsize // 2
    o = (cy * w + cx) * 3
    r, g, b = frame[o:o + 3]
    if not (b > 200 and r < 60 and g < 60):
        problems.append("the target is %02x%02x%02x at the end, not blue" % (r, g, b))
    return problems


def check_end(args):
    path = args[0]
    w, h, tx, ty, tsize = (int(a) for a in args[1:6])
    result = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo",
                             "-pix_fmt", "rgb24", "-"], capture_output=True)
    if result.returncode != 0 or len(result.stdout) != w * h * 3:
        sys.exit("ffmpeg cannot decode %s as one %dx%d picture" % (path, w, h))
    problems = end_problems(result.stdout, w, h, tx, ty, tsize)
    if problems:
        sys.exit("; ".join(problems))


def main(args):
    if args[0] == "icon":
        icon_written(args[1:])
        return
    if args[0] == "end":
        check_end(args[1:])
        return
    path = args[0]
    w, h, tx, ty, tsize = (int(a) for a in args[1:6])
    x, y = (int(v) for v in args[6].split(","))
    wanted = (x, y, x + 15, y + 15)
    proc = subprocess.Popen(["ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo",
                             "-pix_fmt", "rgb24", "-"], stdout=subprocess.PIPE)
    size = w * h * 3
    count, found, seen, last_frame = 0, None, [], None
    while True:
        frame = proc.stdout.read(size)
        if len(frame) < size:
            break
        pixels, box = cursor_check.bbox(cursor_check.cyan_mask(frame), w, h)
        if box and (not seen or seen[-1][1] != box):
            seen.append((count, box, pixels))
        if found is None and icon_at(frame, w, h, wanted):
            found = count
        last_frame = frame
        count += 1
    if proc.wait() != 0 or count == 0:
        sys.exit("ffmpeg cannot decode %s" % path)
    print("%d frames; cyan boxes (frame: x1,y1-x2,y2/pixels): %s" % (
        count, " ".join("%d:%d,%d-%d,%d/%d" % ((f,) + b + (p,)) for f, b, p in seen[:12])))
    problems = []
    if found is None:
        problems.append("no frame with the icon at %d,%d-%d,%d" % wanted)
    else:
        print("the icon at %d,%d in frame %d" % (x, y, found))
    problems += end_problems(last_frame, w, h, tx, ty, tsize)
    if problems:
        sys.exit("; ".join(problems))


if __name__ == "__main__":
    main(sys.argv[1:])
