#!/usr/bin/env python3
"""Checks the --window input test's recording (tests/window/window-input.sh)
by decoding it (ffmpeg), as drawn by tests/window/input_client.c:

  input-check.py FILE W H CLICK_X CLICK_Y POPUP_X POPUP_Y KEYSYMS BUTTON DISMISSED WHEEL

In the last frame (W x H): the magenta click mark centred at CLICK_X,CLICK_Y
(within a pixel), the block rows: keysyms (hex, newest first, comma-
separated), the last button, the dismissed popups and the wheel steps. In
some frame the yellow popup with its top-left corner at POPUP_X,POPUP_Y
(give -1 -1 to skip); not in the last frame. Exit 1 with what was seen.

  input-check.py pixel PNG X Y RRGGBB

The pixel X,Y of the screenshot PNG is RRGGBB (within 40 a channel).

  input-check.py rows FILE W H ROW=VALUE...

In the last frame, block row ROW is VALUE (16 bits; negative as such).

  input-check.py popup FILE W H POPUP_X POPUP_Y

Some frame of FILE, as far as it is written (a recording in progress),
shows the yellow popup at POPUP_X,POPUP_Y; silent exit 1 while none does.

  input-check.py marks FILE W H X,Y...

In the last frame, the app's green touch marks (7x7) are centred at each
X,Y (within 1.5 pixels), and there are no others.
"""
import subprocess
import sys

BLOCK = 16
ROWS = 9  # the app's block rows (input_client.c); its marks are below them


def check_pixel(args):
    path, x, y, want = args[0], int(args[1]), int(args[2]), args[3]
    want = tuple(int(want[i:i + 2], 16) for i in (0, 2, 4))
    head = open(path, "rb").read(24)
    width = int.from_bytes(head[16:20], "big")
    result = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo",
                             "-pix_fmt", "rgb24", "-"], capture_output=True)
    o = (y * width + x) * 3
    seen = tuple(result.stdout[o:o + 3])
    print("pixel %d,%d is %02x%02x%02x" % ((x, y) + seen))
    if len(seen) != 3 or any(abs(a - b) > 40 for a, b in zip(seen, want)):
        sys.exit("pixel %d,%d is %s, not %s" % (x, y, seen, want))


def decode(path, w, h):
    result = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo",
                             "-pix_fmt", "rgb24", "-"], capture_output=True)
    if result.returncode != 0:
        sys.exit("ffmpeg cannot decode %s: %s" % (path, result.stderr.decode(errors="replace")))
    size = w * h * 3
    count = len(result.stdout) // size
    if count == 0:
        sys.exit("no frames in %s" % path)
    return [result.stdout[i * size:(i + 1) * size] for i in range(count)]


def popup_yellow(frame, w, popup_x, popup_y):
    """The popup (POPUP_W x POPUP_H of input_client.c: 60x40), by a pixel
    inside it away from the edges and from the pointer's mark."""
    o = ((popup_y + 20) * w + popup_x + 30) * 3
    r, g, b = frame[o], frame[o + 1], frame[o + 2]
    return r > 180 and g > 180 and b < 90


def check_popup_shown(args):
    path, w, h, popup_x, popup_y = args[0], int(args[1]), int(args[2]), int(args[3]), \
        int(args[4])
    # The file is still being written: its last cluster may be cut short,
    # so ffmpeg's complaint and status are not a failure; its frames count.
    result = subprocess.run(["ffmpeg", "-v", "quiet", "-i", path, "-f", "rawvideo",
                             "-pix_fmt", "rgb24", "-"], capture_output=True)
    size = w * h * 3
    count = len(result.stdout) // size
    shown = [i for i in range(count)
             if popup_yellow(result.stdout[i * size:(i + 1) * size], w, popup_x, popup_y)]
    if not shown:
        sys.exit(1)
    print("the popup in frame %d of the %d written" % (shown[0], count))


def block_row(frame, w, r):
    value = 0
    for b in range(16):
        o = ((r * BLOCK + BLOCK // 2) * w + b * BLOCK + BLOCK // 2) * 3
        value = value << 1 | (1 if sum(frame[o:o + 3]) > 3 * 128 else 0)
    return value


def check_rows(args):
    path, w, h = args[0], int(args[1]), int(args[2])
    last = decode(path, w, h)[-1]
    problems = []
    for spec in args[3:]:
        r, want = (int(v) for v in spec.split("="))
        seen = block_row(last, w, r)
        print("row %d: %d (%#06x), expected %d" % (r, seen, seen, want))
        if seen != want & 0xffff:
            problems.append("row %d is %d, not %d" % (r, seen, want & 0xffff))
    if problems:
        sys.exit("; ".join(problems))
    print("ok")


def check_marks(args):
    path, w, h = args[0], int(args[1]), int(args[2])
    wanted = [tuple(float(v) for v in a.split(",")) for a in args[3:]]
    last = decode(path, w, h)[-1]
    green = set()
    for y in range(h):
        for x in range(w):
            o = (y * w + x) * 3
            r, g, b = last[o], last[o + 1], last[o + 2]
            if g > 150 and r < 100 and b < 100:
                green.add((x, y))
    # Group the green pixels into marks (8-connected).
    marks = []
    while green:
        todo = [green.pop()]
        pixels = []
        while todo:
            x, y = todo.pop()
            pixels.append((x, y))
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    if (x + dx, y + dy) in green:
                        green.remove((x + dx, y + dy))
                        todo.append((x + dx, y + dy))
        if len(pixels) >= 9:
            marks.append((sum(p[0] for p in pixels) / len(pixels),
                          sum(p[1] for p in pixels) / len(pixels), len(pixels)))
    print("marks at %s; expected %s" % (
        " ".join("%.1f,%.1f(%d)" % m for m in marks),
        " ".join("%g,%g" % p for p in wanted)))
    problems = []
    for x, y in wanted:
        if not any(abs(mx - x) <= 1.5 and abs(my - y) <= 1.5 for mx, my, _ in marks):
            problems.append("no mark at %g,%g" % (x, y))
    if len(marks) != len(wanted):
        problems.append("%d marks, not %d" % (len(marks), len(wanted)))
    if problems:
        sys.exit("; ".join(problems))
    print("ok")


def main(args):
    if args[0] == "pixel":
        check_pixel(args[1:])
        return
    if args[0] == "rows":
        check_rows(args[1:])
        return
    if args[0] == "popup":
        check_popup_shown(args[1:])
        return
    if args[0] == "marks":
        check_marks(args[1:])
        return
    path = args[0]
    w, h, click_x, click_y, popup_x, popup_y = (int(a) for a in args[1:7])
    keysyms = [int(k, 16) for k in args[7].split(",")]
    button, dismissed, wheel = (int(a) for a in args[8:11])
    result = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo",
                             "-pix_fmt", "rgb24", "-"], capture_output=True)
    if result.returncode != 0:
        sys.exit("ffmpeg cannot decode %s: %s" % (path, result.stderr.decode(errors="replace")))
    size = w * h * 3
    data = result.stdout
    count = len(data) // size
    if count == 0:
        sys.exit("no frames in %s" % path)
    frames = [data[i * size:(i + 1) * size] for i in range(count)]

    def pixel(frame, x, y):
        o = (y * w + x) * 3
        return frame[o], frame[o + 1], frame[o + 2]

    def row(frame, r):
        value = 0
        for b in range(16):
            p = pixel(frame, b * BLOCK + BLOCK // 2, r * BLOCK + BLOCK // 2)
            value = value << 1 | (1 if sum(p) > 3 * 128 else 0)
        return value

    def yellow(frame):
        return popup_yellow(frame, w, popup_x, popup_y)

    last = frames[-1]
    problems = []
    seen = [row(last, r) for r in range(7)]
    print("%d frames; last frame rows: %s" % (count, " ".join("%#06x" % v for v in seen)))
    for i, want in enumerate(keysyms):
        if seen[i] != want:
            problems.append("keysym %d back is %#x, not %#x" % (i, seen[i], want))
    for r, want, what in ((4, button, "last button"), (5, dismissed, "dismissed popups"),
                          (6, wheel & 0xffff, "wheel steps")):
        if seen[r] != want:
            problems.append("%s: %d, not %d" % (what, seen[r], want))
    xs, ys = [], []
    for y in range(ROWS * BLOCK, h):
        for x in range(w):
            r, g, b = pixel(last, x, y)
            if r > 150 and b > 150 and g < 100:
                xs.append(x)
                ys.append(y)
    if not xs:
        problems.append("no click mark in the last frame")
    else:
        cx, cy = sum(xs) / len(xs), sum(ys) / len(ys)
        print("click mark at %.1f,%.1f (%d pixels), expected %d,%d" %
              (cx, cy, len(xs), click_x, click_y))
        if abs(cx - click_x) > 1.01 or abs(cy - click_y) > 1.01:
            problems.append("the click mark is at %.1f,%.1f, not %d,%d" %
                            (cx, cy, click_x, click_y))
    if popup_x >= 0:
        shown = [i for i, f in enumerate(frames) if yellow(f)]
        print("popup shown in %d frames" % len(shown))
        if not shown:
            problems.append("the popup at %d,%d is in no frame" % (popup_x, popup_y))
        if yellow(last):
            problems.append("the popup is still shown in the last frame")
    if problems:
        sys.exit("; ".join(problems))
    print("ok")


if __name__ == "__main__":
    main(sys.argv[1:])
