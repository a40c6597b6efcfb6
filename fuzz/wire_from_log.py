#!/usr/bin/env python3
"""Turns a WAYLAND_DEBUG=server log into a seed for fuzz-display.

Only the client's requests (log lines without "->") are encoded, with the
opcodes and argument types of the protocol XML files given. The seed format
is the one fuzz/fuzz_display.c reads:

    byte 0          number of file descriptors to pass (0..4)
    4 bytes each    little-endian size of each memfd (its pixels are a pattern)
    the rest        wire bytes, sent to the server as they are

Every "fd N" argument of the log becomes one memfd of the size the request
that carries it names (create_pool's size), in order.

    wire_from_log.py OUT_DIR LOG... --xml wayland.xml --xml fullscreen-shell.xml
"""
import argparse
import os
import re
import struct
import sys
import xml.etree.ElementTree as ET

LINE = re.compile(r'^\[\s*[\d.]+\]\s+(?P<iface>[A-Za-z_0-9]+)@(?P<id>\d+)\.(?P<req>\w+)\((?P<args>.*)\)\s*$')


# wl_registry.bind names the global by the number the *logged* server gave
# it; wl-record numbers its globals in creation order (server.c: the
# output, wl_compositor, wl_shm, zwp_linux_dmabuf_v1, the fullscreen shell).
# A wrong number costs every seed a protocol error at its first bind.
GLOBAL_NAMES = {'wl_output': 1, 'wl_compositor': 2, 'wl_shm': 3, 'zwp_fullscreen_shell_v1': 5}


def load_protocols(paths):
    """{interface: {request: (opcode, [arg types])}}"""
    table = {}
    for path in paths:
        for iface in ET.parse(path).getroot().iter('interface'):
            reqs = {}
            for opcode, req in enumerate(iface.iter('request')):
                args = []
                for arg in req.iter('arg'):
                    args.append((arg.get('type'), arg.get('interface')))
                reqs[req.get('name')] = (opcode, args)
            table[iface.get('name')] = reqs
    return table


def split_args(text):
    """Splits the logged argument list at top-level commas (strings may hold commas)."""
    out, cur, quoted = [], '', False
    for ch in text:
        if ch == '"':
            quoted = not quoted
        if ch == ',' and not quoted:
            out.append(cur.strip())
            cur = ''
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def object_id(text):
    if text == 'nil':
        return 0
    return int(text.rsplit('@', 1)[1])


def encode_string(s):
    raw = s.encode() + b'\0'
    pad = (4 - len(raw) % 4) % 4
    return struct.pack('<I', len(raw)) + raw + b'\0' * pad


class Ids:
    """Gives every new object a fresh id. The logged client reused ids once
    the server had answered (frame callbacks, say); a replay sent at once
    would reuse them too early, so ids are renumbered, never reused."""

    def __init__(self):
        self.map = {1: 1}
        self.next = 2

    def new(self, logged):
        self.map[logged] = self.next
        self.next += 1
        return self.map[logged]

    def ref(self, logged):
        return self.map.get(logged, logged) if logged else 0


def encode(table, ids, line):
    """Returns (wire bytes, [fd sizes]) for one logged request, or None."""
    m = LINE.match(line)
    if not m or ' -> ' in line:
        return None
    iface, req = m.group('iface'), m.group('req')
    if iface not in table or req not in table[iface]:
        return None
    opcode, types = table[iface][req]
    logged = split_args(m.group('args'))
    sender = ids.ref(int(m.group('id')))
    body, fds = b'', []
    # A new_id without an interface in the XML (wl_registry.bind) is
    # logged as one "new id [unknown]@N" after its interface name and
    # version, which the log shows as two separate arguments.
    values = iter(logged)
    for kind, _ in types:
        value = next(values)
        if kind == 'new_id' and _ is None:
            name = value.strip('"')
            version = int(next(values))
            body = body[:-4] + struct.pack('<I', GLOBAL_NAMES.get(name, struct.unpack('<I', body[-4:])[0]))
            nid = ids.new(object_id(next(values)))
            body += encode_string(name) + struct.pack('<II', version, nid)
        elif kind == 'new_id':
            body += struct.pack('<I', ids.new(object_id(value)))
        elif kind == 'object':
            body += struct.pack('<I', ids.ref(object_id(value)))
        elif kind == 'int':
            body += struct.pack('<i', int(value))
        elif kind == 'uint':
            body += struct.pack('<I', int(value) & 0xffffffff)
        elif kind == 'fixed':
            body += struct.pack('<i', int(round(float(value) * 256)))
        elif kind == 'string':
            body += encode_string(value.strip('"'))
        elif kind == 'fd':
            fds.append(None)  # size filled in below
        elif kind == 'array':
            body += struct.pack('<I', 0)
        else:
            return None
    if fds:
        # create_pool(new id, fd, size): the memfd is as big as the pool.
        size = int(logged[-1])
        fds = [size for _ in fds]
    header = struct.pack('<IHH', sender, opcode, 8 + len(body))
    return header + body, fds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('out_dir')
    parser.add_argument('logs', nargs='+')
    parser.add_argument('--xml', action='append', required=True)
    parser.add_argument('--max-fds', type=int, default=4)
    opts = parser.parse_args()
    table = load_protocols(opts.xml)
    os.makedirs(opts.out_dir, exist_ok=True)
    for log in opts.logs:
        wire, fds, ids = b'', [], Ids()
        skipped = 0
        with open(log) as f:
            for line in f:
                encoded = encode(table, ids, line.strip())
                if encoded is None:
                    if ' -> ' not in line and line.strip():
                        skipped += 1
                    continue
                msg, msg_fds = encoded
                if len(fds) + len(msg_fds) > opts.max_fds:
                    break  # the seed format passes a few fds only
                wire += msg
                fds += msg_fds
        seed = bytes([len(fds)]) + b''.join(struct.pack('<I', s) for s in fds) + wire
        name = os.path.basename(log).replace('.wayland-debug.log', '') + '.seed'
        with open(os.path.join(opts.out_dir, name), 'wb') as f:
            f.write(seed)
        print(f'{name}: {len(wire)} wire bytes, {len(fds)} fds, {skipped} lines not encoded')
    return 0


if __name__ == '__main__':
    sys.exit(main())
