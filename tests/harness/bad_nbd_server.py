# SPDX-License-Identifier: BSD-2-Clause
"""NBD servers that misbehave on purpose, for the far-memory tests: what
nbdkit (tests/harness/nbd_server.py) never does. A small server of our
own, written from the protocol (NetworkBlockDevice/nbd, doc/proto.md):
fixed newstyle, NBD_OPT_GO answered with NBD_INFO_EXPORT, simple
replies, an export served from a file the way nbdkit's file plugin
serves it (its size, read and written in place, flushed on FLUSH). It
listens on 127.0.0.1 only (the emulators' user-mode networks reach it
through their gateway, 10.0.2.2), on a free port, in a thread, for as
long as a with-block lasts:

    with BadNbdServer(ctx.workdir, image, "drop-after", after=1000) as srv:
        ctx.boot_cfg(f"swap.device = {srv.url()}\\n...")

Modes (each misbehaves once; then the server is sound again):

  "wrong-cookie"  after `after` good replies, answers one request with
                  WRONG_COOKIE, a cookie the client never sent. With
                  hold=H it first takes requests without answering them
                  until it holds H (that one among them), so that the
                  client has exactly H in flight then.
  "short-read"    after `after` good replies, answers the next READ with
                  its header and only `short` bytes of its data, then
                  closes the connection.
  "drop-after"    closes the connection once it has answered `after`
                  requests, then serves the next connection normally.
  "good"          never misbehaves.

A close is a FIN (shutdown for writing, then what the client still sends
is read and dropped until it goes), not a reset: the client must see
"the server closed the connection". Every connection is bounded
(CONN_IDLE_S without a byte, CONN_MAX_S in all). What the server did goes
to WORKDIR/bad-nbd-PORT.log; a client that breaks the protocol is
recorded in .errors (the tests check it is empty)."""

import os
import socket
import struct
import threading
import time

from nbd_server import GATEWAY

NBDMAGIC = 0x4E42444D41474943
IHAVEOPT = 0x49484156454F5054
OPT_REPLY_MAGIC = 0x0003E889045565A9
REQUEST_MAGIC = 0x25609513
SIMPLE_REPLY_MAGIC = 0x67446698

FLAG_FIXED_NEWSTYLE = 1 << 0
FLAG_NO_ZEROES = 1 << 1
FLAG_C_FIXED_NEWSTYLE = 1 << 0
TFLAG_HAS_FLAGS = 1 << 0
TFLAG_SEND_FLUSH = 1 << 2

OPT_ABORT = 2
OPT_INFO = 6
OPT_GO = 7
REP_ACK = 1
REP_INFO = 3
REP_ERR_UNSUP = (1 << 31) | 1
REP_ERR_INVALID = (1 << 31) | 3
INFO_EXPORT = 0

CMD_READ = 0
CMD_WRITE = 1
CMD_DISC = 2
CMD_FLUSH = 3
EINVAL = 22

MAX_REQUEST = 32 << 20
WRONG_COOKIE = 0xBAD0C00C1E000000   # the client's cookies count from 1
MODES = ("good", "wrong-cookie", "short-read", "drop-after")

CONN_IDLE_S = 30.0
CONN_MAX_S = 180.0
DRAIN_S = 5.0
TICK_S = 0.2


class ConnectionOver(Exception):
    """The client went, or a bound was reached: on to the next one."""


class ProtocolError(Exception):
    """The client broke the protocol."""


class BadNbdServer:
    """The file at image as an NBD export, misbehaving as mode says."""

    def __init__(self, workdir, image, mode, after=0, short=1000, hold=0):
        if mode not in MODES:
            raise ValueError(f"mode {mode!r} is none of {MODES}")
        self.image = str(image)
        self.mode = mode
        self.after = after
        self.short = short
        self.hold = hold
        self.armed = mode != "good"
        self.connections = 0
        self.requests = []          # per connection: requests taken
        self.errors = []
        self.misbehaved = None      # what it did, once it did
        self.workdir = workdir
        self._stop = threading.Event()
        self._thread = None
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self.log_path = workdir / f"bad-nbd-{self.port}.log"

    def url(self, export=""):
        return f"nbd://{GATEWAY}:{self.port}/{export}"

    # -- life

    def start(self):
        self._log_file = open(self.log_path, "a")
        self.log(f"serving {self.image} on 127.0.0.1:{self.port}, mode "
                 f"{self.mode}, after {self.after}")
        self._listener.listen(4)
        self._listener.settimeout(TICK_S)
        self._thread = threading.Thread(target=self._serve, daemon=True,
                                        name=f"bad-nbd-{self.port}")
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=DRAIN_S + 2 * TICK_S + 1)
            self._thread = None
        self._listener.close()
        if getattr(self, "_log_file", None):
            self._log_file.close()
            self._log_file = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    def log(self, text):
        if getattr(self, "_log_file", None):
            self._log_file.write(f"{time.monotonic():.3f} {text}\n")
            self._log_file.flush()

    # -- connections

    def _serve(self):
        while not self._stop.is_set():
            try:
                conn, peer = self._listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            self.connections += 1
            self.requests.append(0)
            self.log(f"connection {self.connections} from {peer}")
            with conn:
                conn.settimeout(TICK_S)
                try:
                    _Conn(self, conn).run()
                except ConnectionOver as e:
                    self.log(f"connection {self.connections} over: {e}")
                except ProtocolError as e:
                    self.errors.append(str(e))
                    self.log(f"connection {self.connections}: the client "
                             f"broke the protocol: {e}")
                except OSError as e:
                    self.log(f"connection {self.connections}: {e}")

    def fires(self, answered):
        """Does the armed misbehaviour happen now, after answered good
        replies on this connection?"""
        return self.armed and answered >= self.after


class _Conn:
    """One connection: handshake, then requests until it ends."""

    def __init__(self, server, sock):
        self.srv = server
        self.sock = sock
        self.start = time.monotonic()
        self.fd = os.open(server.image, os.O_RDWR)
        self.size = os.fstat(self.fd).st_size

    # -- bytes

    def recv_exact(self, n):
        data = bytearray()
        idle_since = time.monotonic()
        while len(data) < n:
            now = time.monotonic()
            if self.srv._stop.is_set():
                raise ConnectionOver("the server stops")
            if now - idle_since > CONN_IDLE_S:
                raise ConnectionOver(f"no byte for {CONN_IDLE_S:g} s")
            if now - self.start > CONN_MAX_S:
                raise ConnectionOver(f"open for {CONN_MAX_S:g} s")
            try:
                chunk = self.sock.recv(n - len(data))
            except socket.timeout:
                continue
            except ConnectionResetError:
                raise ConnectionOver("the client reset the connection")
            if not chunk:
                raise ConnectionOver("the client closed the connection")
            data += chunk
            idle_since = time.monotonic()
        return bytes(data)

    def send(self, data):
        self.sock.sendall(data)

    def close(self, why):
        """A FIN after what was sent; what comes after is dropped."""
        self.srv.log(f"closing: {why}")
        self.sock.shutdown(socket.SHUT_WR)
        deadline = time.monotonic() + DRAIN_S
        while time.monotonic() < deadline and not self.srv._stop.is_set():
            try:
                if not self.sock.recv(65536):
                    break
            except socket.timeout:
                continue
            except OSError:
                break
        raise ConnectionOver(why)

    # -- the protocol

    def run(self):
        try:
            self.handshake()
            self.transmission()
        finally:
            os.close(self.fd)

    def option_reply(self, option, rtype, data=b""):
        self.send(struct.pack(">QIII", OPT_REPLY_MAGIC, option, rtype,
                              len(data)) + data)

    def handshake(self):
        """Fixed newstyle ("Newstyle negotiation"), NBD_OPT_GO."""
        self.send(struct.pack(">QQH", NBDMAGIC, IHAVEOPT,
                              FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES))
        (cflags,) = struct.unpack(">I", self.recv_exact(4))
        if not cflags & FLAG_C_FIXED_NEWSTYLE:
            raise ProtocolError(f"client flags 0x{cflags:x} without "
                                "NBD_FLAG_C_FIXED_NEWSTYLE")
        while True:
            magic, option, length = struct.unpack(">QII",
                                                  self.recv_exact(16))
            if magic != IHAVEOPT:
                raise ProtocolError(f"option magic 0x{magic:x}")
            if length > 65536:
                raise ProtocolError(f"option {option} of {length} bytes")
            data = self.recv_exact(length)
            if option == OPT_ABORT:
                self.option_reply(option, REP_ACK)
                raise ConnectionOver("NBD_OPT_ABORT")
            if option not in (OPT_GO, OPT_INFO):
                self.option_reply(option, REP_ERR_UNSUP)
                continue
            if not self.go_data_valid(data):
                self.option_reply(option, REP_ERR_INVALID)
                continue
            self.option_reply(option, REP_INFO, struct.pack(
                ">HQH", INFO_EXPORT, self.size,
                TFLAG_HAS_FLAGS | TFLAG_SEND_FLUSH))
            self.option_reply(option, REP_ACK)
            if option == OPT_GO:
                self.srv.log(f"handshake done, export of {self.size} bytes")
                return

    @staticmethod
    def go_data_valid(data):
        """Name length, name, number of information requests, requests."""
        if len(data) < 6:
            return False
        (name_len,) = struct.unpack_from(">I", data)
        if 4 + name_len + 2 > len(data):
            return False
        (ninfo,) = struct.unpack_from(">H", data, 4 + name_len)
        return len(data) == 4 + name_len + 2 + 2 * ninfo

    def reply(self, error, cookie, data=b""):
        self.send(struct.pack(">IIQ", SIMPLE_REPLY_MAGIC, error, cookie)
                  + data)

    def take_request(self):
        magic, flags, rtype, cookie, offset, length = struct.unpack(
            ">IHHQQI", self.recv_exact(28))
        if magic != REQUEST_MAGIC:
            raise ProtocolError(f"request magic 0x{magic:08x}")
        data = b""
        if rtype == CMD_WRITE:
            if length > MAX_REQUEST:
                raise ProtocolError(f"a write of {length} bytes")
            data = self.recv_exact(length)
        self.srv.requests[-1] += 1
        return rtype, cookie, offset, length, data

    def answer(self, rtype, cookie, offset, length, data):
        """As nbdkit's file plugin would; False after NBD_CMD_DISC."""
        if rtype == CMD_DISC:
            return False
        if rtype in (CMD_READ, CMD_WRITE) and (
                length > MAX_REQUEST or offset + length > self.size):
            self.reply(EINVAL, cookie)
        elif rtype == CMD_READ:
            self.reply(0, cookie, os.pread(self.fd, length, offset))
        elif rtype == CMD_WRITE:
            os.pwrite(self.fd, data, offset)
            self.reply(0, cookie)
        elif rtype == CMD_FLUSH:
            os.fsync(self.fd)
            self.reply(0, cookie)
        else:
            self.reply(EINVAL, cookie)
        return True

    def transmission(self):
        srv = self.srv
        answered = 0
        while True:
            if srv.mode == "drop-after" and srv.fires(answered):
                srv.armed = False
                srv.misbehaved = f"closed after {answered} replies"
                self.close(srv.misbehaved)
            request = self.take_request()
            rtype, cookie = request[0], request[1]
            if srv.mode == "wrong-cookie" and srv.fires(answered):
                srv.armed = False
                for _ in range(srv.hold - 1):
                    self.take_request()
                srv.misbehaved = (f"answered cookie {cookie} as "
                                  f"{WRONG_COOKIE} after {answered} "
                                  f"replies, holding {srv.hold}")
                srv.log(srv.misbehaved)
                self.reply(0, WRONG_COOKIE)
                continue
            if (srv.mode == "short-read" and rtype == CMD_READ and
                    srv.fires(answered)):
                srv.armed = False
                offset, length = request[2], request[3]
                part = os.pread(self.fd, min(srv.short, length), offset)
                self.reply(0, cookie, part)
                srv.misbehaved = (f"sent {len(part)} of {length} bytes of "
                                  f"the read of cookie {cookie}")
                self.close(srv.misbehaved)
            if not self.answer(*request):
                raise ConnectionOver("NBD_CMD_DISC")
            answered += 1
