"""The container backend's way in to its executor: stdin/stdout of one exec session, relayed to the socket.

Runs as ``sandbox_executor.py --proxy CONTROL_SOCKET`` inside the container. Standard library only.
"""

from __future__ import annotations

import os
import selectors
import socket
import sys


def proxy(path: str) -> int:
    """Relay stdin to the control socket at ``path`` and its answers to stdout, until either side ends.

    Containers reach their executor this way: one exec session runs this, and its attached stdin and
    stdout carry the protocol. Exit status 3: no executor is listening (the caller starts one).
    """
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
    except OSError as e:
        print(f"rebench executor proxy: no executor at {path}: {e}", file=sys.stderr)
        return 3
    sel = selectors.DefaultSelector()
    sel.register(0, selectors.EVENT_READ)
    sel.register(conn, selectors.EVENT_READ)
    while True:
        for key, _ in sel.select():
            if key.fileobj == 0:
                data = os.read(0, 1 << 16)
                if not data:
                    conn.shutdown(socket.SHUT_WR)
                    sel.unregister(0)
                    continue
                conn.sendall(data)
            else:
                data = conn.recv(1 << 16)
                if not data:
                    return 0
                view = memoryview(data)
                while view:
                    view = view[os.write(1, view):]
