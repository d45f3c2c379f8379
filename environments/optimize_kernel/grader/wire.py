"""The control channel between the grader and the process that runs the agent's code.

One Unix SOCK_SEQPACKET connection: every message is one JSON object in one packet (boundaries are
kept by the kernel, so nothing is parsed out of a byte stream), optionally carrying file descriptors
(SCM_RIGHTS) for the shared buffers. This file is copied next to ``runner.py`` into a directory the
agent's user can read, so it must stay self-contained (standard library only) and hold no secrets.

Canary ecca2186-2e7c-42f5-b36a-c361cba02702: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import array
import json
import os
import select
import socket
import time
from typing import Any

MAX_PACKET = 1 << 20
MAX_FDS = 253  # SCM_MAX_FD: a CPU round sends one memory file per call with its "go"


class ChannelClosed(Exception):
    """The other side closed the connection (or died)."""


class ChannelTimeout(Exception):
    """No message arrived before the deadline."""


class BadMessage(Exception):
    """A packet that is not a JSON object (the agent's code can write to the channel too)."""


class Channel:
    """A connected SOCK_SEQPACKET socket that sends and receives JSON objects (and fds)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    @staticmethod
    def connect(path: str) -> "Channel":
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        sock.connect(path)
        return Channel(sock)

    def fileno(self) -> int:
        return self.sock.fileno()

    def send(self, message: dict[str, Any], fds: list[int] | None = None) -> None:
        self.send_bytes(encode(message), fds)

    def send_bytes(self, payload: bytes, fds: list[int] | None = None) -> None:
        if fds:
            socket.send_fds(self.sock, [payload], fds)
        else:
            self.sock.send(payload)

    def recv(self, timeout: float | None = None, spin: float = 0.0) -> tuple[dict[str, Any], list[int]]:
        """The next message and any fds it carried; raises ChannelTimeout, ChannelClosed or BadMessage.

        ``spin``: poll without sleeping for up to this many seconds first. Waking a blocked process
        costs tens to hundreds of microseconds on a virtual machine; polling costs a core instead.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        if spin > 0:
            spin_end = time.monotonic() + spin if deadline is None else min(deadline, time.monotonic() + spin)
            while True:
                for _ in range(200):
                    try:
                        data, fds = self.recv_raw(socket.MSG_DONTWAIT)
                        return decode(data), fds
                    except BlockingIOError:
                        pass
                if time.monotonic() > spin_end:
                    break
        while deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ChannelTimeout()
            ready, _, _ = select.select([self.sock], [], [], left)
            if ready:
                break
        data, fds = self.recv_raw()
        return decode(data), fds

    def recv_raw(self, flags: int = 0) -> tuple[bytes, list[int]]:
        fds = array.array("i")
        try:
            data, ancdata, msg_flags, _ = self.sock.recvmsg(MAX_PACKET, socket.CMSG_LEN(MAX_FDS * fds.itemsize),
                                                            flags)
        except (ConnectionResetError, BrokenPipeError) as e:
            raise ChannelClosed(str(e)) from e
        for level, kind, cdata in ancdata:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                usable = len(cdata) - (len(cdata) % fds.itemsize)
                fds.frombytes(cdata[:usable])
        if not data and not fds:
            raise ChannelClosed("the other side closed the channel")
        if msg_flags & socket.MSG_TRUNC:
            for fd in fds:
                os.close(fd)
            raise ChannelClosed("message larger than the channel allows")
        return data, list(fds)

    def close(self) -> None:
        self.sock.close()


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode()


def decode(data: bytes) -> dict[str, Any]:
    try:
        value = json.loads(data.decode())
    except ValueError as e:
        raise BadMessage(f"a message that is not JSON ({e})") from None
    if not isinstance(value, dict):
        raise BadMessage("a message that is not a JSON object")
    return value
