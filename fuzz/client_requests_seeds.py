#!/usr/bin/env python3
"""Writes the seeds of fuzz-client-requests (fuzz/fuzz_client_requests.c).

Each seed is a scenario a real session goes through: a presented surface
with a pointer, its cursor of several sizes and the wheel; a keyboard with
a keymap; touch; the clipboard and the primary selection between two
clients and the desktop; a drag between two toplevels; copies through
ext-image-copy-capture of shm and dmabuf screens, into good, wrong and
truncated buffers. Requests are encoded from the protocols' XML (opcodes
and argument types); the request interfaces, the operations and the input
types are read from the C sources, so the seeds follow them.

    fuzz/client_requests_seeds.py fuzz/corpus/client-requests

Replay one with its conversation:
    WAYLAND_DEBUG=server build/fuzz/replay-client-requests SEED
"""
import os
import re
import struct
import sys
import xml.etree.ElementTree as ET

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROTOCOLS = '/usr/share/wayland-protocols'
XMLS = [
    '/usr/share/wayland/wayland.xml',
    PROTOCOLS + '/stable/xdg-shell/xdg-shell.xml',
    PROTOCOLS + '/stable/viewporter/viewporter.xml',
    PROTOCOLS + '/unstable/fullscreen-shell/fullscreen-shell-unstable-v1.xml',
    PROTOCOLS + '/unstable/linux-dmabuf/linux-dmabuf-unstable-v1.xml',
    PROTOCOLS + '/unstable/primary-selection/primary-selection-unstable-v1.xml',
    os.path.join(REPO, 'protocol/ext-image-capture-source-v1.xml'),
    os.path.join(REPO, 'protocol/ext-image-copy-capture-v1.xml'),
]
SOURCE = os.path.join(REPO, 'fuzz/fuzz_client_requests.c')
INPUT_EVENT_H = os.path.join(REPO, 'src/common/input_event.h')

XRGB = 1           # wl_shm XRGB8888
ARGB = 0           # wl_shm ARGB8888
DRM_XRGB = 0x34325258
BTN = 0x80         # pressed bit of OP_INPUT's button byte (BTN_LEFT + low bits)


def load_requests():
    table = {}
    for path in XMLS:
        for iface in ET.parse(path).getroot().iter('interface'):
            reqs = {}
            for opcode, req in enumerate(iface.iter('request')):
                args = [(a.get('type'), a.get('allow-null') == 'true') for a in req.iter('arg')]
                reqs[req.get('name')] = (opcode, args)
            table[iface.get('name')] = reqs
    return table


def read_source():
    text = open(SOURCE).read()
    block = text.split('request_interfaces[] = {', 1)[1].split('};', 1)[0]
    interfaces = re.findall(r'&(\w+)_interface', block)
    ops = re.findall(r'\b(OP_\w+),', text.split('enum op {', 1)[1].split('};', 1)[0])
    header = open(INPUT_EVENT_H).read().split('enum wl_record_input_type {', 1)[1].split('};')[0]
    inputs = re.findall(r'\bWL_RECORD_INPUT_(\w+),', header)
    return interfaces, ops, inputs


REQUESTS = load_requests()
INTERFACES, OPS, INPUTS = read_source()


def serial(n=0):
    """The n-th newest serial the client was sent."""
    return ('serial', n)


def memfd(size, name=None):
    """A memfd of `size` bytes; `name` lets truncate() find it."""
    return ('memfd', size, name)


PIPE_WRITE = ('pipe', True)
PIPE_READ = ('pipe', False)


def number(v):
    if isinstance(v, tuple) and v[0] == 'serial':
        return bytes([0xe0 + v[1]])
    if 0 <= v < 0xe0:
        return bytes([v])
    if -8 <= v <= -1:
        return bytes([0xe7 - v])
    return b'\xf0' + struct.pack('>I', v & 0xffffffff)


class Client:
    def __init__(self, globals_):
        self.objects = []  # [interface, name, alive], oldest first
        for iface in globals_:
            self.objects.append([iface, iface, True])

    def index(self, iface, name):
        n = 0
        for obj in reversed(self.objects):
            if obj[0] == iface and obj[2]:
                if obj[1] == name:
                    return n
                n += 1
        raise KeyError('%s %s' % (iface, name))

    def interface_of(self, name):
        for obj in reversed(self.objects):
            if obj[1] == name and obj[2]:
                return obj[0]
        raise KeyError(name)


class Seed:
    def __init__(self, flags=0, width=64, height=48):
        self.out = bytearray([flags, width - 1, height - 1])
        globals_ = ['wl_output', 'wl_compositor', 'wl_shm', 'zwp_linux_dmabuf_v1']
        if not flags & 4:
            globals_.append('zwp_fullscreen_shell_v1')
        globals_ += ['xdg_wm_base', 'wl_subcompositor', 'wp_viewporter', 'wl_seat']
        if not flags & 16:
            globals_ += ['ext_image_copy_capture_manager_v1',
                         'ext_output_image_capture_source_manager_v1']
        if not flags & 1:
            globals_ += ['wl_data_device_manager', 'zwp_primary_selection_device_manager_v1']
        self.globals = globals_
        self.clients = [Client(globals_), Client(globals_)]
        self.memfds = []  # names of the memfds the harness keeps (the first 16)

    def op(self, name):
        self.out.append(OPS.index(name))

    def req(self, client, target, request, *args, new=(), interface=None):
        """`target`: an object's name (a global's is its interface); `new`:
        names of the objects the request makes; object arguments by name,
        None for null."""
        c = self.clients[client]
        iface = interface or c.interface_of(target)
        opcode, arg_types = REQUESTS[iface][request]
        self.op('OP_REQUEST_%d' % client)
        self.out += bytes([INTERFACES.index(iface), c.index(iface, target), opcode])
        values = list(args)
        made = list(new)
        for arg_type, nullable in arg_types:
            if arg_type == 'new_id':
                continue
            v = values.pop(0)
            if arg_type in ('int', 'uint'):
                self.out += number(v)
            elif arg_type == 'fixed':
                self.out += bytes([v]) if 0 <= v < 0xf0 else b'\xf0' + struct.pack('>i', v * 256)
            elif arg_type == 'string':
                if v is None:
                    self.out.append(0xff)
                else:
                    raw = v.encode()
                    self.out += bytes([len(raw)]) + raw
            elif arg_type == 'array':
                self.out += bytes([len(v)]) + bytes(v)
            elif arg_type == 'object':
                if v is None:
                    self.out.append(0x80)
                else:
                    self.out.append(c.index(c.interface_of(v), v))
            elif arg_type == 'fd':
                if v[0] == 'memfd':
                    if len(self.memfds) < 16:
                        self.memfds.append(v[2] if len(v) > 2 else None)
                    size = v[1]
                    if size % 128 == 0 and size // 128 < 0x80:
                        self.out.append(size // 128)
                    else:
                        self.out += b'\xe0' + struct.pack('>I', size)[1:]
                else:
                    self.out.append(0x80 if v[1] else 0xc0)
        assert not values, (iface, request, values)
        new_types = [REQUEST_NEW_TYPES[(iface, request)]] if made else []
        for name, new_iface in zip(made, new_types * len(made)):
            c.objects.append([new_iface, name, True])
        if request in ('destroy', 'release'):
            for obj in reversed(c.objects):
                if obj[1] == target and obj[2]:
                    obj[2] = False
                    break

    def server_made(self, client, iface, name):
        """An object the server made (a data offer): the newest of its kind."""
        self.clients[client].objects.append([iface, name, True])

    def bind(self, client, iface, version):
        self.op('OP_BIND_%d' % client)
        self.out += bytes([self.globals.index(iface), version - 1])
        self.clients[client].objects.append([iface, iface, True])

    def input(self, kind, *fields):
        self.op('OP_INPUT')
        self.out.append(INPUTS.index(kind))
        self.out += bytes(fields)

    def motion(self, x, y):
        """To x,y in whole pixels (< 120)."""
        self.input('POINTER_MOTION', 2 * x, 2 * y)

    def keymap(self, text, fmt, size):
        self.op('OP_INPUT')
        raw = text.encode()
        self.out += bytes([INPUTS.index('KEYBOARD_KEYMAP'), len(raw)]) + raw
        self.out += bytes([fmt]) + number(size)

    def keyboard_enter(self, keys):
        self.op('OP_INPUT')
        self.out += bytes([INPUTS.index('KEYBOARD_ENTER'), len(keys)])
        for k in keys:
            self.out += number(k)

    def desktop_selection(self, primary, mime_types):
        self.op('OP_DESKTOP_SELECTION')
        self.out.append(len(mime_types) << 1 | (1 if primary else 0))
        for m in mime_types:
            raw = m.encode()
            self.out += bytes([len(raw)]) + raw

    def desktop_paste(self, primary, mime_type):
        self.op('OP_DESKTOP_PASTE')
        raw = mime_type.encode()
        self.out += bytes([1 if primary else 0, len(raw)]) + raw

    def truncate(self, name, size):
        """Shrinks the memfd called `name` to `size` bytes (a multiple of 64)."""
        self.op('OP_TRUNCATE')
        pick = len(self.memfds) - 1 - self.memfds.index(name)
        self.out += bytes([pick, size // 64])

    def time(self):
        self.op('OP_TIME')

    def reconnect(self, client):
        self.op('OP_RECONNECT')
        self.out.append(client)
        self.clients[client] = Client(self.globals)

    # -- common steps --

    def shm_buffer(self, client, name, width, height, fmt=XRGB, fd_size=None, stride=None):
        stride = stride or width * 4
        size = stride * height
        self.req(client, 'wl_shm', 'create_pool',
                 memfd(size if fd_size is None else fd_size, name), size, new=[name + '-pool'])
        self.req(client, name + '-pool', 'create_buffer', 0, width, height, stride, fmt,
                 new=[name])
        self.req(client, name + '-pool', 'destroy')

    def show(self, client, surface, buffer, width, height):
        self.req(client, surface, 'attach', buffer, 0, 0)
        self.req(client, surface, 'damage_buffer', 0, 0, width, height)
        self.req(client, surface, 'commit')

    def present(self, client, width, height):
        """A fullscreen-shell surface showing a width x height buffer."""
        self.req(client, 'wl_compositor', 'create_surface', new=['screen'])
        self.req(client, 'zwp_fullscreen_shell_v1', 'present_surface', 'screen', 0, 'wl_output')
        self.shm_buffer(client, 'picture', width, height)
        self.show(client, 'screen', 'picture', width, height)

    def toplevel(self, client, name, width, height):
        """An xdg toplevel, configured (the newest serial), mapped."""
        self.req(client, 'wl_compositor', 'create_surface', new=[name])
        self.req(client, 'xdg_wm_base', 'get_xdg_surface', name, new=[name + '-xdg'])
        self.req(client, name + '-xdg', 'get_toplevel', new=[name + '-top'])
        self.req(client, name, 'commit')
        self.req(client, name + '-xdg', 'ack_configure', serial(0))
        self.shm_buffer(client, name + '-buffer', width, height)
        self.show(client, name, name + '-buffer', width, height)

    def write(self, folder, name):
        with open(os.path.join(folder, name), 'wb') as f:
            f.write(bytes(self.out))


# The interface of each request's new object (the XML's new_id argument).
REQUEST_NEW_TYPES = {}
for _path in XMLS:
    for _iface in ET.parse(_path).getroot().iter('interface'):
        for _req in _iface.iter('request'):
            for _arg in _req.iter('arg'):
                if _arg.get('type') == 'new_id' and _arg.get('interface'):
                    REQUEST_NEW_TYPES[(_iface.get('name'), _req.get('name'))] = _arg.get('interface')


def seat_pointer_cursor():
    """A presented surface, the pointer on it, cursors of 16x16, 1x1, 300x300
    (over the desktop's limit), a buffer-less one, the wheel, buttons."""
    s = Seed(flags=2)
    s.present(0, 64, 48)
    s.req(0, 'wl_seat', 'get_pointer', new=['pointer'])
    s.motion(10, 10)
    s.req(0, 'wl_compositor', 'create_surface', new=['cursor'])
    for name, w, h, fmt in (('c16', 16, 16, ARGB), ('c1', 1, 1, XRGB), ('c300', 300, 300, ARGB)):
        s.shm_buffer(0, name, w, h, fmt)
        s.req(0, 'pointer', 'set_cursor', serial(0), 'cursor', 3, 4)
        s.show(0, 'cursor', name, w, h)
        s.motion(20, 30)
    s.req(0, 'pointer', 'set_cursor', serial(0), None, 0, 0)
    s.req(0, 'pointer', 'set_cursor', serial(0), 'cursor', -5, 70)
    s.input('POINTER_AXIS_SOURCE', 0)
    s.input('POINTER_AXIS', 0, 40)
    s.input('POINTER_AXIS_VALUE120', 0, 60)
    s.input('POINTER_FRAME')
    s.input('POINTER_AXIS_DISCRETE', 1, 1)
    s.input('POINTER_AXIS', 1, 0xe0)
    s.input('POINTER_FRAME')
    s.input('POINTER_AXIS_STOP', 0)
    s.input('POINTER_BUTTON', BTN)
    s.motion(63, 47)
    s.input('POINTER_BUTTON', 0)
    s.input('POINTER_LEAVE')
    s.req(0, 'cursor', 'destroy')
    s.motion(5, 5)
    s.req(0, 'pointer', 'release')
    return s


def seat_old_pointer():
    """wl_seat 5 (axis_discrete) and 1 (no frame) beside 8."""
    s = Seed()
    s.present(0, 64, 48)
    s.bind(0, 'wl_seat', 5)
    s.req(0, 'wl_seat', 'get_pointer', new=['p5'])
    s.bind(0, 'wl_seat', 1)
    s.req(0, 'wl_seat', 'get_pointer', new=['p1'])
    s.motion(30, 20)
    for _ in range(3):
        s.input('POINTER_AXIS_VALUE120', 0, 50)
        s.input('POINTER_AXIS', 0, 20)
        s.input('POINTER_FRAME')
    s.input('POINTER_AXIS_DISCRETE', 0, 0xe8)
    s.input('POINTER_FRAME')
    return s


def seat_keyboard():
    """A keymap (one that lies about its size), enter with keys held, keys,
    modifiers, repeat, leave; a second keyboard after."""
    s = Seed()
    s.present(0, 64, 48)
    s.keymap('xkb_keymap { xkb_keycodes { }; };', 1, 38)
    s.req(0, 'wl_seat', 'get_keyboard', new=['kb'])
    s.keyboard_enter([30, 31, 0x7fffffff])
    s.input('KEYBOARD_KEY', 0x80 | 30)
    s.input('KEYBOARD_MODIFIERS', 1, 0, 2, 0)
    s.input('KEYBOARD_REPEAT', 25, 200)
    s.input('KEYBOARD_KEY', 30)
    s.keymap('short', 1, 100000)
    s.req(0, 'wl_seat', 'get_keyboard', new=['kb2'])
    s.input('KEYBOARD_LEAVE')
    s.req(0, 'kb', 'release')
    s.keyboard_enter([])
    return s


def seat_touch():
    """Touch offered, points down, moved, shaped, up, cancelled, offered no more."""
    s = Seed()
    s.present(0, 64, 48)
    s.input('TOUCH_CAPABILITY', 1)
    s.req(0, 'wl_seat', 'get_touch', new=['touch'])
    s.input('TOUCH_DOWN', 1, 20, 20)
    s.input('TOUCH_DOWN', 2, 100, 60)
    s.input('TOUCH_SHAPE', 1, 8, 4)
    s.input('TOUCH_ORIENTATION', 1, 90)
    s.input('TOUCH_FRAME')
    s.input('TOUCH_MOTION', 1, 200, 200)
    s.input('TOUCH_UP', 2)
    s.input('TOUCH_FRAME')
    s.input('TOUCH_CANCEL')
    s.input('TOUCH_DOWN', 3, 10, 10)
    s.input('TOUCH_CAPABILITY', 0)
    s.req(0, 'touch', 'release')
    return s


def clipboard_two_clients():
    """Client 0 copies (clipboard and primary); the desktop pastes both;
    the keyboard goes to client 1, which is offered them and pastes; the
    desktop sets a selection of many types; client 0's sources go."""
    s = Seed(flags=8)
    s.toplevel(0, 'a', 32, 24)
    for c in (0, 1):
        s.req(c, 'wl_seat', 'get_keyboard', new=['kb'])
        s.req(c, 'wl_data_device_manager', 'get_data_device', 'wl_seat', new=['dev'])
        s.req(c, 'zwp_primary_selection_device_manager_v1', 'get_device', 'wl_seat', new=['pdev'])
    s.keyboard_enter([])
    s.req(0, 'wl_data_device_manager', 'create_data_source', new=['src'])
    s.req(0, 'src', 'offer', 'text/plain')
    s.req(0, 'src', 'offer', 'text/plain;charset=utf-8')
    s.req(0, 'dev', 'set_selection', 'src', serial(0))
    s.req(0, 'zwp_primary_selection_device_manager_v1', 'create_source', new=['psrc'])
    s.req(0, 'psrc', 'offer', 'UTF8_STRING')
    s.req(0, 'pdev', 'set_selection', 'psrc', serial(0))
    s.desktop_paste(False, 'text/plain')
    s.desktop_paste(True, 'UTF8_STRING')
    s.toplevel(1, 'b', 40, 30)
    s.server_made(1, 'wl_data_offer', 'offer')
    s.server_made(1, 'zwp_primary_selection_offer_v1', 'poffer')
    s.req(1, 'offer', 'receive', 'text/plain', PIPE_WRITE)
    s.req(1, 'poffer', 'receive', 'UTF8_STRING', PIPE_WRITE)
    s.req(1, 'offer', 'accept', serial(0), None)
    s.req(1, 'offer', 'destroy')
    s.desktop_selection(False, ['text/plain', 'text/html'] + ['x-%d' % i for i in range(66)])
    s.desktop_selection(True, ['UTF8_STRING'])
    s.server_made(1, 'wl_data_offer', 'desk')
    s.req(1, 'desk', 'receive', 'x-65', PIPE_WRITE)
    s.req(1, 'dev', 'set_selection', None, serial(0))
    s.req(0, 'src', 'destroy')
    s.input('KEYBOARD_LEAVE')
    s.desktop_selection(False, [])
    s.req(0, 'psrc', 'destroy')
    s.req(1, 'dev', 'release')
    return s


def clipboard_many_types():
    """A source offering 70 types (past the 64 kept), set, then offered to
    the other client; a selection offer finished and given actions (a
    drag's requests: errors)."""
    s = Seed()
    s.present(0, 64, 48)
    for c in (0, 1):
        s.req(c, 'wl_data_device_manager', 'get_data_device', 'wl_seat', new=['dev'])
    s.keyboard_enter([])
    s.req(0, 'wl_data_device_manager', 'create_data_source', new=['src'])
    for i in range(70):
        s.req(0, 'src', 'offer', 't/%d' % i)
    s.req(0, 'dev', 'set_selection', 'src', serial(0))
    s.reconnect(0)
    s.present(0, 64, 48)
    s.req(0, 'wl_data_device_manager', 'get_data_device', 'wl_seat', new=['dev'])
    s.desktop_selection(False, ['text/plain'])
    s.server_made(0, 'wl_data_offer', 'offer')
    s.req(0, 'offer', 'set_actions', 1, 1)
    s.req(0, 'offer', 'finish')
    return s


def drag_between_clients():
    """Client 0 drags from its toplevel with an icon over client 1's, which
    accepts, chooses an action, is dropped on and finishes."""
    s = Seed(flags=8 | 2)
    s.toplevel(1, 'b', 64, 48)
    s.toplevel(0, 'a', 32, 24)
    for c in (0, 1):
        s.req(c, 'wl_seat', 'get_pointer', new=['ptr'])
        s.req(c, 'wl_data_device_manager', 'get_data_device', 'wl_seat', new=['dev'])
    s.motion(20, 16)
    s.input('POINTER_BUTTON', BTN)
    s.req(0, 'wl_data_device_manager', 'create_data_source', new=['src'])
    s.req(0, 'src', 'offer', 'text/uri-list')
    s.req(0, 'src', 'set_actions', 3)
    s.req(0, 'wl_compositor', 'create_surface', new=['icon'])
    s.req(0, 'dev', 'start_drag', 'src', 'a', 'icon', serial(0))
    s.shm_buffer(0, 'icon-buffer', 8, 8, ARGB)
    s.show(0, 'icon', 'icon-buffer', 8, 8)
    s.motion(22, 17)
    s.motion(2, 2)
    s.server_made(1, 'wl_data_offer', 'dnd')
    s.req(1, 'dnd', 'accept', serial(0), 'text/uri-list')
    s.req(1, 'dnd', 'set_actions', 3, 2)
    s.motion(3, 3)
    s.input('POINTER_BUTTON', 0)
    s.req(1, 'dnd', 'receive', 'text/uri-list', PIPE_WRITE)
    s.req(1, 'dnd', 'finish')
    s.req(1, 'dnd', 'destroy')
    # A drag within client 0, no source, cancelled by the pointer leaving.
    s.motion(20, 16)
    s.input('POINTER_BUTTON', BTN)
    s.req(0, 'dev', 'start_drag', None, 'a', None, serial(0))
    s.motion(10, 10)
    s.input('POINTER_LEAVE')
    s.input('POINTER_BUTTON', 0)
    s.req(0, 'src', 'destroy')
    return s


def copy_shm_screen():
    """Sessions on the output: a good copy, ARGB, a wrong size, damage, a
    copy waiting for the next commit, a pool whose file is smaller than
    the pool (the write faults), a cursor session, a mode change."""
    s = Seed(width=32, height=24)
    s.present(0, 32, 24)
    s.req(1, 'ext_output_image_capture_source_manager_v1', 'create_source', 'wl_output',
          new=['source'])
    s.req(1, 'ext_image_copy_capture_manager_v1', 'create_session', 'source', 0, new=['session'])

    def copy(name, w, h, fmt=XRGB, fd_size=None, commit=True):
        s.shm_buffer(1, name, w, h, fmt, fd_size=fd_size)
        s.req(1, 'session', 'create_frame', new=['frame-' + name])
        s.req(1, 'frame-' + name, 'attach_buffer', name)
        s.req(1, 'frame-' + name, 'damage_buffer', 0, 0, w, h)
        s.req(1, 'frame-' + name, 'capture')
        if commit:
            s.show(0, 'screen', 'picture', 32, 24)
            s.req(1, 'frame-' + name, 'destroy')

    copy('good', 32, 24)
    copy('argb', 32, 24, ARGB)
    copy('small', 16, 24)
    s.req(1, 'wl_seat', 'get_pointer', new=['ptr'])
    s.req(1, 'ext_image_copy_capture_manager_v1', 'create_pointer_cursor_session', 'source', 'ptr',
          new=['cursor-session'])
    s.req(1, 'cursor-session', 'get_capture_session', new=['cursor-capture'])
    copy('waiting', 32, 24, commit=False)
    s.req(0, 'zwp_fullscreen_shell_v1', 'present_surface_for_mode', 'screen', 'wl_output', 0,
          new=['feedback'])
    s.shm_buffer(0, 'bigger', 48, 40)
    s.show(0, 'screen', 'bigger', 48, 40)
    s.time()
    s.req(1, 'frame-waiting', 'destroy')
    # Last: the write into a pool longer than its file faults, and the
    # copier is disconnected.
    s.req(0, 'screen', 'damage_buffer', 0, 0, 48, 40)
    copy('short', 48, 40, fd_size=128, commit=False)
    s.req(0, 'screen', 'commit')
    return s


def copy_dmabuf_screen():
    """The screen is a client's memfd LINEAR dmabuf: copied, then into a
    truncated pool after the next commit (issue 30 §3.1)."""
    s = Seed(width=16, height=16)
    s.req(0, 'wl_compositor', 'create_surface', new=['screen'])
    s.req(0, 'zwp_fullscreen_shell_v1', 'present_surface', 'screen', 0, 'wl_output')
    for name in ('d0', 'd1'):
        s.req(0, 'zwp_linux_dmabuf_v1', 'create_params', new=[name + '-params'])
        s.req(0, name + '-params', 'add', memfd(1024, name), 0, 0, 64, 0, 0)
        s.req(0, name + '-params', 'create_immed', 16, 16, DRM_XRGB, 0, new=[name])
        s.req(0, name + '-params', 'destroy')
    s.show(0, 'screen', 'd0', 16, 16)
    s.req(1, 'ext_output_image_capture_source_manager_v1', 'create_source', 'wl_output',
          new=['source'])
    s.req(1, 'ext_image_copy_capture_manager_v1', 'create_session', 'source', 0, new=['session'])
    s.shm_buffer(1, 'good', 16, 16)
    s.req(1, 'session', 'create_frame', new=['f1'])
    s.req(1, 'f1', 'attach_buffer', 'good')
    s.req(1, 'f1', 'capture')
    s.req(1, 'f1', 'destroy')
    s.shm_buffer(1, 'short', 16, 16, fd_size=0)
    s.req(1, 'session', 'create_frame', new=['f2'])
    s.req(1, 'f2', 'attach_buffer', 'short')
    s.req(1, 'f2', 'capture')
    s.show(0, 'screen', 'd1', 16, 16)
    # A new copier; the shown dmabuf shrinks: the copy's read faults.
    s.reconnect(1)
    s.req(1, 'ext_output_image_capture_source_manager_v1', 'create_source', 'wl_output',
          new=['source'])
    s.req(1, 'ext_image_copy_capture_manager_v1', 'create_session', 'source', 0, new=['session'])
    s.shm_buffer(1, 'good2', 16, 16)
    for frame in ('f3', 'f4'):
        s.req(1, 'session', 'create_frame', new=[frame])
        s.req(1, frame, 'attach_buffer', 'good2')
        s.req(1, frame, 'capture')
        if frame == 'f3':
            s.req(1, frame, 'destroy')
    s.truncate('d0', 0)
    s.show(0, 'screen', 'd0', 16, 16)
    return s


def shm_pool_truncated():
    """A presented pool shrinks under its buffer: the next commit's read
    faults; a copier waits at the end, when the copy server goes first."""
    s = Seed(flags=2)
    s.present(0, 64, 48)
    s.req(1, 'ext_output_image_capture_source_manager_v1', 'create_source', 'wl_output',
          new=['source'])
    s.req(1, 'ext_image_copy_capture_manager_v1', 'create_session', 'source', 0, new=['session'])
    s.shm_buffer(1, 'target', 64, 48)
    s.req(1, 'session', 'create_frame', new=['f'])
    s.req(1, 'f', 'attach_buffer', 'target')
    s.req(1, 'f', 'capture')
    s.req(1, 'f', 'destroy')
    s.req(1, 'session', 'create_frame', new=['waiting'])
    s.req(1, 'waiting', 'attach_buffer', 'target')
    s.req(1, 'waiting', 'capture')
    s.truncate('picture', 128)
    s.show(0, 'screen', 'picture', 64, 48)
    return s


def drag_icon_destroyed():
    """A drag with an icon; the icon surface is destroyed during the drag
    (libwayland 1.21's signal emission looped on the overlay's listener)."""
    s = Seed(flags=2)
    s.toplevel(0, 'a', 32, 24)
    s.req(0, 'wl_seat', 'get_pointer', new=['ptr'])
    s.req(0, 'wl_data_device_manager', 'get_data_device', 'wl_seat', new=['dev'])
    s.motion(20, 16)
    s.input('POINTER_BUTTON', BTN)
    s.req(0, 'wl_compositor', 'create_surface', new=['icon'])
    s.req(0, 'dev', 'start_drag', None, 'a', 'icon', serial(0))
    s.shm_buffer(0, 'icon-buffer', 8, 8, ARGB)
    s.show(0, 'icon', 'icon-buffer', 8, 8)
    s.motion(22, 18)
    s.req(0, 'icon', 'destroy')
    s.motion(24, 18)
    s.input('POINTER_BUTTON', 0)
    return s


def recording_only():
    """No desktop: no input, no clipboards; devices asked for anyway."""
    s = Seed(flags=1 | 16)
    s.present(0, 64, 48)
    s.req(0, 'wl_seat', 'get_pointer', new=['ptr'])
    s.req(0, 'wl_seat', 'get_keyboard', new=['kb'])
    s.req(0, 'wl_seat', 'get_touch', new=['touch'])
    s.req(0, 'ptr', 'set_cursor', 0, 'screen', 0, 0)
    s.reconnect(0)
    s.present(0, 64, 48)
    return s


SEEDS = {
    'seat-pointer-cursor': seat_pointer_cursor,
    'seat-old-pointer': seat_old_pointer,
    'seat-keyboard': seat_keyboard,
    'seat-touch': seat_touch,
    'clipboard-two-clients': clipboard_two_clients,
    'clipboard-many-types': clipboard_many_types,
    'drag-between-clients': drag_between_clients,
    'copy-shm-screen': copy_shm_screen,
    'copy-dmabuf-screen': copy_dmabuf_screen,
    'shm-pool-truncated': shm_pool_truncated,
    'drag-icon-destroyed': drag_icon_destroyed,
    'recording-only': recording_only,
}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    os.makedirs(sys.argv[1], exist_ok=True)
    for name, make in SEEDS.items():
        make().write(sys.argv[1], name)


if __name__ == '__main__':
    main()
