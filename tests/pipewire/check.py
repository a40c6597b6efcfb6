#!/usr/bin/env python3
"""Checks a recording of tests/pipewire/producer.c's node, by decoding it.

  check.py FILE PRODUCER_LOG MODE [--stop-ns NS]

Every frame is one of the producer's solid colours (palette_colour() in
producer.c, mirrored by colour_number() here: the producer draws its own
palette, not tests/pattern.c), told apart by a pixel left of the centre:
the colours follow the producer's order, every frame the producer queued
between the first and the last one seen is there (see missing_frames()
for the one exception), and the time between two frames in the file is the
time between their Header pts (the producer's "frame INDEX PTS_NS
QUEUED_NS" lines) within a frame period of the recording's 60 fps grid.

MODE adds: crop (256x192, its corners the frame's colour, not the black
outside the crop), damage (the producer declared only the left half
changed: the right half lags behind), cursor / no-cursor (the cursor's
orange square drawn, or not), cursor-moves (buffers without a picture
that move the cursor: it moves over the last picture), still (the file lasts until the stop,
--stop-ns, though the producer stopped sending)."""
import argparse
import json
import subprocess
import sys

PALETTE_STEP = 85
TOLERANCE = 28           # per channel, after H.264 in 4:2:0
GRID_NS = 1e9 / 60       # the recording's frame period
TIME_TOLERANCE_NS = GRID_NS + 8e6


def fail(message):
    print(f"check.py: FAIL: {message}")
    sys.exit(1)


def decode(path):
    info = json.loads(subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
         "stream=width,height:frame=pts_time", "-of", "json", path],
        check=True, capture_output=True, text=True).stdout)
    width, height = info["streams"][0]["width"], info["streams"][0]["height"]
    times = [float(f["pts_time"]) for f in info["frames"]]
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-fps_mode", "passthrough", "-f", "rawvideo",
                          "-pix_fmt", "rgb24", "-"], check=True, capture_output=True).stdout
    size = width * height * 3
    frames = [raw[i:i + size] for i in range(0, len(raw) - size + 1, size)]
    if len(frames) != len(times):
        fail(f"{len(frames)} pictures decoded but {len(times)} frame times")
    return width, height, times, frames


def pixel(frame, width, x, y):
    i = (y * width + x) * 3
    return tuple(frame[i:i + 3])


def colour_number(rgb):
    """palette_colour()'s number (1..63) of a decoded pixel, or None."""
    digits = []
    for v in rgb:
        d = round(v / PALETTE_STEP)
        if abs(v - d * PALETTE_STEP) > TOLERANCE:
            return None
        digits.append(d)
    n = digits[0] + 4 * digits[1] + 16 * digits[2]
    return n if n else None


def producer_frames(path):
    """The producer's frames: {index: pts_ns}, {index: queued_ns}, and how
    many it could not send (no free buffer: not produced, no index)."""
    pts, queued, unsent = {}, {}, 0
    with open(path) as f:
        for line in f:
            parts = line.split()
            if parts and parts[0] == "frame":
                if len(parts) != 4:
                    fail(f"a producer line without its queue time: {line.strip()}")
                pts[int(parts[1])] = int(parts[2])
                queued[int(parts[1])] = int(parts[3])
            elif parts and parts[0] == "unsent":
                unsent += 1
    if not pts:
        fail("the producer logged no frame")
    return pts, queued, unsent


def missing_frames(seen, first, last, pts, queued):
    """The rule: every frame the producer queued between the first and the
    last one in the file must be in the file. wl-record keeps only the
    newest picture of a recording frame period (GRID_NS, --fps) by design:
    the newest of the buffers waiting when it reads the stream, and the
    newest of the frames whose pts fall in one period. So a frame may be
    missing only where the producer outran the frame rate: it queued the
    next frame less than one period after this one (by queue time or by
    Header pts). A frame PipeWire could not take (no free buffer) was never
    produced: the producer logs it "unsent" and gives it no index.

    Returns (lost, excused): the missing indices against the rule, and the
    missing ones it allows."""
    lost, excused = [], []
    for index in range(first, last + 1):
        if index in seen:
            continue
        after = index + 1
        if index not in queued or after not in queued:
            lost.append(index)
        elif (queued[after] - queued[index] < GRID_NS or
              pts[after] - pts[index] < GRID_NS):
            excused.append(index)
        else:
            lost.append(index)
    return lost, excused


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("producer_log")
    parser.add_argument("mode")
    parser.add_argument("--stop-ns", type=int)
    args = parser.parse_args()

    width, height, times, frames = decode(args.file)
    pts, queued, unsent = producer_frames(args.producer_log)
    if args.mode == "crop" and (width, height) != (256, 192):
        fail(f"the file is {width}x{height}, not the crop's 256x192")
    if args.mode != "crop" and (width, height) != (320, 240):
        fail(f"the file is {width}x{height}, not 320x240")

    # Which producer frame each file frame is: the colour gives it modulo
    # 63, the order the rest (the producer's index only grows).
    cx, cy = width // 4, height // 2  # left of centre: damage mode's honest half
    indices = []
    for n, frame in enumerate(frames):
        number = colour_number(pixel(frame, width, cx, cy))
        if number is None:
            fail(f"frame {n} ({times[n]:.3f} s): {pixel(frame, width, cx, cy)} is none of "
                 "the producer's colours")
        index = number - 1
        if indices:
            previous = indices[-1]
            while index < previous:
                index += 63
            if index - previous > 40:
                fail(f"frame {n}: producer frame {index} after {previous}: out of order")
        else:
            # The first frame the file holds: the earliest producer frame
            # of that colour.
            index = min(i for i in pts if i % 63 == index % 63)
        indices.append(index)

    seen = sorted(set(indices))
    first, last = seen[0], seen[-1]
    expected = last - first + 1
    print(f"check.py: {len(frames)} frames in {times[-1]:.2f} s, producer frames "
          f"{first}..{last}, {len(seen)} of them seen; {unsent} the producer could not "
          "send (no free buffer)")
    if expected < 8 and args.mode != "still":
        fail(f"only producer frames {first}..{last} recorded")
    lost, excused = missing_frames(set(seen), first, last, pts, queued)
    for index in excused:
        print(f"check.py: producer frame {index} is missing: frame {index + 1} was queued "
              f"{(queued[index + 1] - queued[index]) / 1e6:.1f} ms after it (pts "
              f"{(pts[index + 1] - pts[index]) / 1e6:.1f} ms), within a "
              f"{GRID_NS / 1e6:.1f} ms frame period: the newer one kept, as meant")
    if lost:
        detail = ", ".join(
            f"{i} (the next queued "
            f"{(queued[i + 1] - queued[i]) / 1e6:.1f} ms after it)" if i + 1 in queued
            else str(i) for i in lost)
        fail(f"{len(lost)} of the producer's {expected} frames {first}..{last} are not in "
             f"the file, though the next came a frame period or more later: {detail}")

    # Times: the file's gaps are the Header pts gaps.
    first_time = {}
    for t, index in zip(times, indices):
        first_time.setdefault(index, t)
    worst = 0
    for a, b in zip(seen, seen[1:]):
        if a not in pts or b not in pts:
            fail(f"producer frame {a} or {b} is not in the producer's log")
        file_gap = (first_time[b] - first_time[a]) * 1e9
        pts_gap = pts[b] - pts[a]
        error = abs(file_gap - pts_gap)
        worst = max(worst, error)
        if error > TIME_TOLERANCE_NS:
            fail(f"producer frames {a} -> {b}: {file_gap / 1e6:.1f} ms apart in the file, "
                 f"{pts_gap / 1e6:.1f} ms apart by their Header pts")
    print(f"check.py: frame times follow the Header pts within {worst / 1e6:.1f} ms")

    last_frame = frames[-1]
    background = pixel(last_frame, width, cx, cy)
    if args.mode == "crop":
        for x, y in [(1, 1), (width - 2, 1), (1, height - 2), (width - 2, height - 2)]:
            if colour_number(pixel(last_frame, width, x, y)) != colour_number(background):
                fail(f"corner ({x},{y}) is {pixel(last_frame, width, x, y)}, not the "
                     f"picture's {background}: the crop is wrong")
    if args.mode == "damage":
        # Only the left half was declared changed: the encoder keeps the
        # right half of an older frame. Had the damage been ignored (or
        # taken as unknown), both halves would agree in every frame.
        lagging = 0
        for frame in frames[2:]:
            left = colour_number(pixel(frame, width, width // 4, cy))
            right = colour_number(pixel(frame, width, 3 * width // 4, cy))
            if right is None:
                fail(f"the right half {pixel(frame, width, 3 * width // 4, cy)} is no "
                     "colour the producer drew")
            lagging += left != right
        print(f"check.py: the undamaged right half lags in {lagging} of "
              f"{len(frames) - 2} frames")
        if lagging < (len(frames) - 2) // 2:
            fail("the right half follows the left though the damage left it out")
    if args.mode in ("cursor", "no-cursor", "cursor-moves"):
        # producer.c: position (100,80), hotspot (8,8), the orange square at
        # (8..24) of the 32x32 bitmap: (100..116, 80..96) of the picture.
        inside = pixel(last_frame, width, 108, 88)
        clear = pixel(last_frame, width, 93, 73)  # a transparent pixel of the bitmap
        orange = all(abs(a - b) <= TOLERANCE for a, b in zip(inside, (255, 128, 0)))
        if colour_number(clear) != colour_number(background):
            fail(f"the cursor's transparent part is {clear}, not the picture's {background}")
        if args.mode == "cursor" and not orange:
            fail(f"no cursor drawn: {inside} at (108,88), not orange")
        if args.mode == "no-cursor" and colour_number(inside) != colour_number(background):
            fail(f"{inside} at (108,88) with --no-cursor, not the picture's {background}")
    if args.mode == "cursor-moves":
        # After 10 frames the producer only moves the cursor (buffers
        # without a picture): the file must show it moving over the last
        # picture, one orange square each time, nothing left where it was.
        moves = set()
        with open(args.producer_log) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 3 and parts[0] == "cursor":
                    moves.add(int(parts[2]))
        if len(moves) < 5:
            fail(f"the producer moved the cursor only {len(moves)} times")
        places = []
        for frame in frames:
            orange = [x for x in range(width) if all(
                abs(a - b) <= TOLERANCE for a, b in zip(pixel(frame, width, x, 88), (255, 128, 0)))]
            if not orange:
                fail("a frame without the cursor")
            if orange[-1] - orange[0] > 20 or not 12 <= len(orange) <= 20:
                fail(f"the cursor is not one 16-pixel square on row 88: {orange}")
            places.append(orange[0])
        drawn = set(places)
        wrong = [x for x in drawn if not any(abs(x - m) <= 2 for m in moves | {100})]
        if wrong:
            fail(f"the cursor drawn at x {wrong}, where the producer never put it")
        first_place = pixel(last_frame, width, 104, 88)
        if colour_number(first_place) != colour_number(background):
            fail(f"{first_place} at (104,88): the cursor's first place was not cleared")
        print(f"check.py: the cursor drawn at {len(drawn)} places: {sorted(drawn)}")
        if len(drawn) < 5:
            fail(f"the cursor moved {len(moves)} times, the file shows {len(drawn)} places")
    if args.mode == "still":
        if args.stop_ns is None:
            fail("still needs --stop-ns")
        # The file's zero is its first frame; the stop came this long after.
        wanted = (args.stop_ns - pts[first]) / 1e9
        print(f"check.py: the file ends at {times[-1]:.3f} s, the stop came at {wanted:.3f} s")
        if times[-1] < wanted - 0.25 or times[-1] > wanted + 0.5:
            fail(f"the file ends at {times[-1]:.3f} s, not at the stop ({wanted:.3f} s)")
    print("check.py: ok")


main()
