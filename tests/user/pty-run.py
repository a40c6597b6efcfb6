#!/usr/bin/env python3
"""pty-run.py COLUMNS SECONDS OUT -- COMMAND...: runs COMMAND on a pseudo
terminal COLUMNS wide, types Ctrl+C after SECONDS (the terminal driver sends
SIGINT and echoes ^C, as for a user), and writes everything the terminal
received to OUT. Exits with COMMAND's exit status."""
import fcntl
import os
import pty
import select
import struct
import sys
import termios
import time


def main():
    columns, seconds, out = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
    command = sys.argv[sys.argv.index("--") + 1:]
    pid, master = pty.fork()
    if pid == 0:
        # The size is set before COMMAND starts, so its first look sees it.
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
        os.execvp(command[0], command)
    received = bytearray()
    interrupt_at = time.monotonic() + seconds
    interrupted = False
    deadline = interrupt_at + 60
    while time.monotonic() < deadline:
        if not interrupted and time.monotonic() >= interrupt_at:
            os.write(master, b"\x03")
            interrupted = True
        ready, _, _ = select.select([master], [], [], 0.05)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child side is closed
                break
            if not data:
                break
            received += data
    _, status = os.waitpid(pid, 0)
    with open(out, "wb") as f:
        f.write(received)
    sys.exit(os.waitstatus_to_exitcode(status))


main()
