#!/usr/bin/env python3
"""The status line and the other lines on a terminal (issue 30 §6: "the
status line is not cleared before other output is written after it").
  status-line.py WL_RECORD PRESENTER

wl-record records the presenter three times:
1. In the foreground of a pseudo-terminal. While it records, SIGUSR1 asks for
   a still twice: "writing a still" comes from the compositor thread and
   "wrote ….png" from the encoder thread, a few ms apart. Ctrl+C is typed to
   stop (the terminal echoes ^C), and the file's path comes on stdout. On the
   screen this leaves (the bytes played through a small terminal emulator)
   every line starts at column 0 with no status text before it on its row,
   and no status line is left at the end; in the bytes, each line written
   while the recording goes on is followed by the status line drawn again
   before anything else is written.
2. As a background job of the terminal (as after `wl-record out.mkv &`), then
   brought to the foreground: while in the background no status line is
   drawn and no control sequence written, not even around its messages (they
   would land on the shell's prompt); once in the foreground the status line
   is drawn.
3. Hosting a command that writes a line every 0.2 s: each of its lines is
   on a row of its own at column 0 and followed by the status line drawn
   again; the command still writes to a terminal (ours, relayed).
4. Without a terminal (stderr and stdout to files): no control sequence, no
   carriage return.
Exit status 1 with the reason when a check fails, 77 when the machine cannot
run the test."""
import fcntl
import os
import pty
import re
import select
import shlex
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time

COLUMNS = 200
TIMEOUT = 60
STATUS = re.compile(rb"wl-record: \d\d:\d\d:\d\d  ")
STILL_WRITTEN = re.compile(rb"wl-record: wrote [^\r\n]*\.png\r?\n")


def fail(why):
    print("FAIL: " + why)
    sys.exit(1)


def shell(argv, foreground, commands, report):
    """The child on the terminal, as a shell: runs argv as a job of its own
    process group, in the foreground or not; "fg" on `commands` gives it the
    terminal. Exits with the job's status."""
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, COLUMNS, 0, 0))
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    job = os.fork()
    if job == 0:
        os.setpgid(0, 0)
        if foreground:
            os.tcsetpgrp(0, os.getpid())
        signal.signal(signal.SIGTTOU, signal.SIG_DFL)
        os.execv(argv[0], argv)
    try:
        os.setpgid(job, job)
    except OSError:
        pass  # the job did it first
    if foreground:
        os.tcsetpgrp(0, job)
    os.write(report, b"%d\n" % job)
    while True:
        ready, _, _ = select.select([commands], [], [], 0.05)
        if ready and os.read(commands, 16).startswith(b"fg"):
            os.tcsetpgrp(0, job)
        pid, status = os.waitpid(job, os.WNOHANG)
        if pid:
            code = os.waitstatus_to_exitcode(status)
            os._exit(code if code >= 0 else 128 - code)


class Terminal:
    """wl-record on a pseudo-terminal, started by a shell of ours."""

    def __init__(self, argv, foreground):
        commands_read, self.commands = os.pipe()
        report_read, report = os.pipe()
        self.pid, self.master = pty.fork()
        if self.pid == 0:
            try:
                shell(argv, foreground, commands_read, report)
            finally:
                os._exit(127)
        os.close(commands_read)
        os.close(report)
        self.received = bytearray()
        line = b""
        while not line.endswith(b"\n"):
            piece = os.read(report_read, 16)
            if not piece:
                fail("the shell did not start the job")
            line += piece
        os.close(report_read)
        self.job = int(line)
        self.closed = False

    def read(self, timeout):
        """Reads what came within `timeout` s; False once the terminal closed."""
        if self.closed:
            return False
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(self.master, 65536)
        except OSError:  # EIO: no process has the terminal open any more
            data = b""
        if not data:
            self.closed = True
            return False
        self.received += data
        return True

    def wait_for(self, what, found):
        """Reads until found(received) is true."""
        deadline = time.monotonic() + TIMEOUT
        while not found(self.received):
            if not self.read(0.1) or time.monotonic() > deadline:
                fail("waited in vain for %s; the terminal got: %r" % (what, bytes(self.received)))

    def drain(self):
        """Reads what is there now."""
        while self.read(0) and select.select([self.master], [], [], 0)[0]:
            pass

    def finish(self):
        """Reads to the end; the job's exit status."""
        deadline = time.monotonic() + TIMEOUT
        while self.read(0.1):
            if time.monotonic() > deadline:
                os.kill(self.job, signal.SIGKILL)
                fail("wl-record did not exit: %r" % bytes(self.received))
        _, status = os.waitpid(self.pid, 0)
        return os.waitstatus_to_exitcode(status)


def screen(data):
    """The rows a terminal shows after `data` (no wrapping: COLUMNS is wider
    than any line here): \\r, \\n, ESC [ K and printable text."""
    text = data.decode("utf-8", "replace")
    rows, row, col, i = [[]], 0, 0, 0
    while i < len(text):
        c = text[i]
        if c == "\r":
            col = 0
        elif c == "\n":
            row += 1
            if row == len(rows):
                rows.append([])
        elif c == "\x1b":
            match = re.match(r"\x1b\[[0-9;]*([A-Za-z])", text[i:])
            if not match or match.group(1) != "K":
                fail("a control sequence other than ESC [ K: %r" % text[i:i + 8])
            del rows[row][col:]
            i += len(match.group(0))
            continue
        else:
            line = rows[row]
            line.extend(" " * (col + 1 - len(line)))
            line[col] = c
            col += 1
        i += 1
    return ["".join(r).rstrip() for r in rows]


def events(data):
    """Each time wl-record wrote its name: ("status", pos) for a status
    line drawn, ("line", pos, text) for any other line."""
    found = []
    for match in re.finditer(rb"wl-record: ", data):
        if STATUS.match(data, match.start()):
            found.append(("status", match.start(), ""))
        else:
            end = data.find(b"\n", match.start())
            found.append(("line", match.start(),
                          data[match.start():end].decode("utf-8", "replace").rstrip("\r")))
    return found


def recorded(path):
    """The recording's file has its first cluster: a second of it is done."""
    try:
        return os.path.getsize(path) > 4096
    except OSError:
        return False


def presenter_command(presenter, log):
    """The presenter, its own output to `log` (a COMMAND's output goes to the
    terminal unmediated; it is not what is checked here)."""
    return ["sh", "-c", 'exec "$0" "$@" >%s 2>&1' % shlex.quote(log), presenter,
            "--size", "160x120", "--frames", "100000", "--interval-ms", "20"]


def rows_hold(label, data, out, lines=()):
    """The rows the screen shows after `data`, printed, and whether each is
    a message of wl-record's, the path `out` or a line that starts with one
    of `lines` (the hosted command's), none a status line left behind and
    none with a message or such a line after other text on its row."""
    ok = True
    starts = ("wl-record: ",) + tuple(lines)
    rows = [r for r in screen(data) if r]
    for r in rows:
        print("%s screen: %s" % (label, r))
        if STATUS.search(r.encode()):
            print("FAIL a status line is left on the screen: %r" % r)
            ok = False
        elif r != out and not r.startswith(starts):
            print("FAIL a row that is neither a message, %sthe path: %r"
                  % ("the command's line nor " if lines else "nor ", r))
            ok = False
        if any(r.find(start, 1) > 0 for start in starts):
            print("FAIL a line after other text on its row: %r" % r)
            ok = False
    return rows, ok


def foreground_case(wl_record, presenter, tmp):
    out = os.path.join(tmp, "fg.mkv")
    term = Terminal([wl_record, "--size", "160x120", out, "--"] +
                    presenter_command(presenter, os.path.join(tmp, "fg-presenter.log")), True)
    term.wait_for("a status line with frames",
                  lambda data: re.search(rb"wl-record: \d\d:\d\d:\d\d  [1-9]\d* frame", data))
    for k in (1, 2):
        os.kill(term.job, signal.SIGUSR1)
        term.wait_for("still %d written" % k,
                      lambda data: len(STILL_WRITTEN.findall(data)) == k)
        term.wait_for("the status line after still %d" % k,
                      lambda data: STATUS.search(data, list(STILL_WRITTEN.finditer(data))[-1].end()))
    os.write(term.master, b"\x03")  # Ctrl+C: SIGINT, ^C echoed
    status = term.finish()
    data = bytes(term.received)
    print("fg: the terminal got %r" % data[-700:])
    if status != 0:
        fail("wl-record stopped by Ctrl+C exited %d" % status)

    rows, ok = rows_hold("fg", data, out)
    if not rows or rows[-1] != out:
        print("FAIL the path %s is not the last row on its own" % out)
        ok = False
    # Each line written while the recording goes on is followed by the status
    # line drawn again, before any other line.
    seen = events(data)
    first_status = next(i for i, e in enumerate(seen) if e[0] == "status")
    stop = next((i for i, e in enumerate(seen) if "stopping:" in e[2]), len(seen))
    mid = [i for i in range(first_status, stop) if seen[i][0] == "line"]
    if len(mid) < 4:
        print("FAIL expected the 4 lines of two stills while recording, got %r"
              % [seen[i][2] for i in mid])
        ok = False
    for i in mid:
        if i + 1 >= len(seen) or seen[i + 1][0] != "status":
            print("FAIL %r is not followed by the status line (next: %r)"
                  % (seen[i][2], seen[i + 1][2] if i + 1 < len(seen) else "nothing"))
            ok = False
    return ok


def command_output_case(wl_record, presenter, tmp):
    """The hosted command writes lines while the status line is shown: each
    is printed on a row of its own at column 0, followed by the status line
    drawn again, and the command still writes to a terminal."""
    out = os.path.join(tmp, "command.mkv")
    log = os.path.join(tmp, "command-presenter.log")
    talker = ('(while kill -0 $$ 2>/dev/null; do i=$((i+1)); '
              'if [ -t 1 ]; then t=terminal; else t=pipe; fi; '
              'echo "app says $i on a $t"; sleep 0.2; done) </dev/null & '
              'exec "$0" "$@" >%s 2>&1' % shlex.quote(log))
    term = Terminal([wl_record, "--size", "160x120", out, "--", "sh", "-c", talker, presenter,
                     "--size", "160x120", "--frames", "100000", "--interval-ms", "20"], True)
    term.wait_for("a status line with frames",
                  lambda data: re.search(rb"wl-record: \d\d:\d\d:\d\d  [1-9]\d* frame", data))
    shown = STATUS.search(bytes(term.received)).start()
    term.wait_for("four of the command's lines after the status line",
                  lambda data: len(re.findall(rb"app says \d+", data[shown:])) >= 4)
    os.write(term.master, b"\x03")
    status = term.finish()
    data = bytes(term.received)
    print("command: the terminal got %r" % data[-700:])
    if status != 0:
        fail("wl-record hosting a talking command, stopped by Ctrl+C, exited %d" % status)
    rows, ok = rows_hold("command", data, out, ("app says ",))
    for r in rows:
        if r.startswith("app says ") and not r.endswith(" on a terminal"):
            print("FAIL the command does not write to a terminal: %r" % r)
            ok = False
    # Each of the command's lines written while the status line was shown is
    # followed by the status line drawn again before anything else.
    lines = [m for m in re.finditer(rb"app says \d+[^\n]*\n", data) if m.start() > shown]
    stop = data.find(b"stopping:")
    lines = [m for m in lines if stop < 0 or m.start() < stop]
    if len(lines) < 4:
        print("FAIL expected four of the command's lines while recording, got %d" % len(lines))
        ok = False
    for m in lines:
        after = STATUS.search(data, m.end())
        other = data.find(b"\n", m.end())
        if not after or (0 <= other < after.start()):
            print("FAIL %r is not followed by the status line" % m.group(0))
            ok = False
    return ok


def background_case(wl_record, presenter, tmp):
    out = os.path.join(tmp, "bg.mkv")
    term = Terminal([wl_record, "--size", "160x120", out, "--"] +
                    presenter_command(presenter, os.path.join(tmp, "bg-presenter.log")), False)
    # A second of recording (past the status line's first update), and a
    # still's two messages, all in the background.
    deadline = time.monotonic() + TIMEOUT
    while not recorded(out):
        if not term.read(0.1) or time.monotonic() > deadline:
            fail("the background recording wrote no cluster: %r" % bytes(term.received))
    os.kill(term.job, signal.SIGUSR1)
    term.wait_for("the still written in the background",
                  lambda data: STILL_WRITTEN.search(data))
    term.drain()
    background = bytes(term.received)
    os.write(term.commands, b"fg\n")
    term.wait_for("the status line once in the foreground",
                  lambda data: STATUS.search(data, len(background)))
    os.write(term.master, b"\x03")
    status = term.finish()
    print("bg: in the background the terminal got %r" % background)
    print("bg: then %r" % bytes(term.received[len(background):])[:300])
    if status != 0:
        fail("wl-record in the foreground stopped by Ctrl+C exited %d" % status)
    ok = True
    if STATUS.search(background):
        print("FAIL a status line was drawn while wl-record was a background job")
        ok = False
    if b"\x1b" in background or re.search(rb"\r(?!\n)", background):
        print("FAIL a control sequence or carriage return was written while in the background")
        ok = False
    return ok


def no_terminal_case(wl_record, presenter, tmp):
    out = os.path.join(tmp, "plain.mkv")
    err_path, out_path = os.path.join(tmp, "plain.err"), os.path.join(tmp, "plain.out")
    with open(err_path, "wb") as err, open(out_path, "wb") as stdout:
        job = subprocess.Popen([wl_record, "--size", "160x120", out, "--"] +
                               presenter_command(presenter, os.path.join(tmp, "plain-presenter.log")),
                               stdin=subprocess.DEVNULL, stdout=stdout, stderr=err,
                               start_new_session=True)
    try:
        deadline = time.monotonic() + TIMEOUT
        while not recorded(out):
            if job.poll() is not None or time.monotonic() > deadline:
                fail("the recording without a terminal wrote no cluster: %s"
                     % open(err_path, "rb").read())
            time.sleep(0.05)
        job.send_signal(signal.SIGUSR1)
        while not STILL_WRITTEN.search(open(err_path, "rb").read()):
            if job.poll() is not None or time.monotonic() > deadline:
                fail("no still written without a terminal: %s" % open(err_path, "rb").read())
            time.sleep(0.05)
        job.send_signal(signal.SIGINT)
        status = job.wait(TIMEOUT)
    finally:
        if job.poll() is None:
            job.kill()
            job.wait()
    if status != 0:
        fail("wl-record without a terminal exited %d" % status)
    ok = True
    for path in (err_path, out_path):
        data = open(path, "rb").read()
        print("plain: %s: %r" % (os.path.basename(path), data[-300:]))
        if b"\x1b" in data or b"\r" in data:
            print("FAIL a control sequence or carriage return in %s without a terminal" % path)
            ok = False
    if open(out_path, "rb").read() != (out + "\n").encode():
        print("FAIL stdout holds more or less than the path")
        ok = False
    return ok


def main():
    wl_record, presenter = sys.argv[1], sys.argv[2]
    if not os.path.exists("/dev/ptmx"):
        print("SKIP: no pseudo-terminals here (/dev/ptmx)")
        sys.exit(77)
    for name in ("WAYLAND_DISPLAY", "WAYLAND_SOCKET", "WAYLAND_SERVER_SOCKET", "DISPLAY",
                 "WAYLAND_DEBUG"):
        os.environ.pop(name, None)
    with tempfile.TemporaryDirectory(prefix="wlr-status-line.") as tmp:
        runtime = os.path.join(tmp, "runtime")
        os.mkdir(runtime, 0o700)
        os.environ["XDG_RUNTIME_DIR"] = runtime
        results = [case(wl_record, presenter, tmp)
                   for case in (foreground_case, command_output_case, background_case,
                                no_terminal_case)]
    if not all(results):
        sys.exit(1)
    print("PASS")


main()
