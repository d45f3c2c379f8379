"""The one-shot jail: agent code that sees hidden inputs runs where it can reach nothing but what the grader gives.

A grader that runs agent code on hidden data (a scaffold on hidden problems, a model on hidden windows, a
pipeline on hidden rows) asks for a jailed call: ``$REBENCH_AS_AGENT --jail [--bind SRC:DST] [--bind-rw SRC:DST]
[--forward PORT=SOCKET] -- ARGV`` (``rebench_env.agent_call.run_as_agent(..., jail=Jail(...))``), or the
sandbox jails every as-agent call (``"jail": true`` in the broker's configuration: an environment's one flag).
The as-agent broker then

1. freezes every other process of the agent user (SIGSTOP; ``AgentFreezer``), so nothing the agent left
   running can watch, signal or talk to the call while it runs, and keeps them frozen until the call's
   processes are all gone;
2. masks every socket, FIFO and device node of the directories the jail shows that the agent user could have
   written to (the workspace, the grader's bound directories): a path socket ignores the network namespace, a
   read-only bind does not stop ``connect()``, and a frozen listener's socket still queues connections. The
   walk (``special_files``) cannot fail open: it refuses the call (``JailRefused``, saying what to delete) where
   it cannot list a directory or bubblewrap cannot take a path; every other place the agent user can write to
   is private in the jail;
3. starts ARGV as the agent user inside a nested bubblewrap namespace (``jail_argv``): its own network
   namespace with only a loopback (nothing the agent listens on is reachable; ``--forward`` serves a TCP port
   of that loopback from a unix socket the grader bound in), its own process namespace (it sees and signals
   only its own processes, which all die with it), its own IPC and UTS namespaces, the file system read-only,
   private empty ``/tmp``, ``/var/tmp``, ``/run``, ``/dev/shm``, home and the sandbox's writable mounts, the
   workspace read-only, and only the grader's ``--bind-rw`` directories writable.

4. once the last jailed call of the freeze is gone, and before the agent's processes run again, evicts the
   page cache of every file the jail shared with the agent (``evict_shared_page_cache``): pages a call read
   or evicted would otherwise tell the agent one bit each.

So the call cannot write anything that outlives it (except into what the grader bound writable, which the
grader reads and deletes), and what it learned leaves only through what the grader reports and the call's
duration. Left open (docs/sandbox.md, "The one-shot jail"): timing (the call's total duration is visible to
the agent) and kernel state read back by timing (the dentry cache, global counters), a few bits a call.

The jail's own /proc needs a fully visible proc mount in the namespace it is made from (the kernel refuses a
new proc in a user namespace otherwise, and bubblewrap and container engines cover parts of theirs): the
executor mounts one at ``FULL_PROC`` (root-only) when it starts, while it still has CAP_SYS_ADMIN.
Standard library only: it runs under the system ``python3`` inside sandboxes and containers.
"""

from __future__ import annotations

import ctypes
import os
import signal
import stat
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

FULL_PROC_DIR = "/run/rebench-proc"
"""A root-only directory (0700) holding FULL_PROC: a proc mounted on it directly would show its own mode (0555)."""
FULL_PROC = f"{FULL_PROC_DIR}/proc"
"""Where the executor mounts an uncovered proc so that jails may mount their own."""

MAX_MASKED_SPECIAL_FILES = 256
"""A workspace with more sockets and FIFOs than this is refused a jailed call (each is masked by a bind)."""

# Directories an agent process may write to, made empty (private tmpfs) inside the jail.
_PRIVATE_DIRS = ("/tmp", "/var/tmp", "/run", "/home", "/dev/shm", "/protected")


@dataclass(frozen=True)
class Bind:
    source: str
    target: str
    writable: bool = False


@dataclass(frozen=True)
class Forward:
    """TCP ``port`` on the jail's loopback, connected through to the unix socket ``socket`` (a path in the jail)."""

    port: int
    socket: str


@dataclass(frozen=True)
class JailRequest:
    binds: tuple[Bind, ...] = ()
    forwards: tuple[Forward, ...] = ()

    @staticmethod
    def from_json(data: dict[str, Any] | None) -> "JailRequest":
        data = data or {}
        binds = tuple(Bind(str(b["source"]), str(b.get("target") or b["source"]), bool(b.get("writable")))
                      for b in data.get("binds") or [])
        forwards = tuple(Forward(int(f["port"]), str(f["socket"])) for f in data.get("forwards") or [])
        for b in binds:
            if not os.path.isabs(b.source) or not os.path.isabs(b.target):
                raise ValueError(f"jail binds need absolute paths: {b.source}:{b.target}")
            # The jail's root is read-only: a new mount point can only be made in one of its private directories.
            if not any(b.target.startswith(d + "/") for d in _PRIVATE_DIRS) and not os.path.exists(b.target):
                raise ValueError(f"jail bind target {b.target} must exist or lie under one of {', '.join(_PRIVATE_DIRS)} "
                                 "(e.g. /run/in/...)")
            if not os.path.exists(b.source):
                raise FileNotFoundError(2, f"jail bind source does not exist: {b.source}")
        for f in forwards:
            if not 0 < f.port < 65536 or not os.path.isabs(f.socket):
                raise ValueError(f"a forward needs a port 1-65535 and an absolute socket path: {f.port}={f.socket}")
        return JailRequest(binds, forwards)


@dataclass
class JailConfig:
    """What the sandbox tells the broker about its jails (the ``jail`` part of the broker configuration)."""

    always: bool = False
    """Jail every as-agent call (the environment opted in)."""
    workspace: str = "/home/agent/workspace"
    keep: list[str] = field(default_factory=list)
    """Paths bound read-only again over the private directories (a venv or asset under /home, /tmp or /run)."""
    writable_mounts: list[str] = field(default_factory=list)
    """Agent-writable mounts of the sandbox, made private in the jail like /tmp."""
    init: str = ""
    """``jail_init.py``, which serves ``--forward`` ports inside the jail."""
    bwrap: str = "bwrap"
    """The bubblewrap to start (the local sandbox binds the host's at /opt/rebench/bin/bwrap; else PATH's)."""

    @staticmethod
    def from_json(data: dict[str, Any] | None, workspace: str, init: str) -> "JailConfig":
        data = data or {}
        return JailConfig(bool(data.get("always")), workspace, [str(p) for p in data.get("keep") or []],
                          [str(p) for p in data.get("writableMounts") or []], init, str(data.get("bwrap") or "bwrap"))


class JailRefused(ValueError):
    """A jailed call the broker will not start: the message (the broker's own words) says what to delete."""


def special_files(root: str, shown_as: str | None = None, limit: int = MAX_MASKED_SPECIAL_FILES) -> list[str]:
    """Every socket, FIFO and device node below the directory ``root``, as paths under ``shown_as`` (default ``root``).

    The walk opens each directory relative to its parent (``openat``, never following a link), so no path length
    limits it, and refuses (``JailRefused``) rather than skip anything: a directory it cannot list or enter, an
    entry it cannot inspect, a chain deeper than ``MAX_WALK_DEPTH``, more than ``limit`` special files, or one whose
    path is too long for bubblewrap to mask (``MAX_MASK_PATH_BYTES``). ``root`` is resolved first, as bubblewrap
    resolves a bind's source. Callers hold the agent's processes frozen (``AgentFreezer``): nothing changes during it.
    """
    real = os.path.realpath(root)
    shown = shown_as if shown_as is not None else root
    found: list[str] = []
    try:
        fd = _open_directory(real)
    except OSError as e:
        raise _cannot_look(shown, "", f"it cannot be opened ({e.strerror})") from None
    try:
        _walk(fd, shown, "", 0, found, limit)
    finally:
        os.close(fd)
    return found


MAX_WALK_DEPTH = 256
"""Directory levels below a walked root; a deeper chain is refused (its sockets could not be masked anyway)."""

MAX_MASK_PATH_BYTES = 3968
"""The longest path bubblewrap is given to mask (PATH_MAX 4096, less its own prefix and a margin)."""

_OPEN_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK


def _open_directory(path: str) -> int:
    """``path`` (absolute, no links in it) opened as a directory, one component at a time."""
    fd = os.open("/", _OPEN_DIRECTORY)
    for part in [p for p in path.split("/") if p]:
        try:
            child = os.open(part, _OPEN_DIRECTORY, dir_fd=fd)
        finally:
            os.close(fd)
        fd = child
    return fd


def _walk(fd: int, shown: str, relative: str, depth: int, found: list[str], limit: int) -> None:
    """Add the special files below the open directory ``fd`` (``shown``/``relative`` in the jail) to ``found``."""
    try:
        with os.scandir(fd) as listing:
            entries = [(entry.name, entry.stat(follow_symlinks=False).st_mode) for entry in listing]
    except OSError as e:
        raise _cannot_look(shown, relative, f"it cannot be listed ({e.strerror})") from None
    for name, mode in entries:
        path = f"{relative}/{name}" if relative else name
        if stat.S_ISDIR(mode):
            if depth + 1 > MAX_WALK_DEPTH:
                raise _cannot_look(shown, path, f"it lies more than {MAX_WALK_DEPTH} directories deep")
            try:
                child = os.open(name, _OPEN_DIRECTORY, dir_fd=fd)
            except OSError as e:
                raise _cannot_look(shown, path, f"it cannot be entered ({e.strerror})") from None
            try:
                _walk(child, shown, path, depth + 1, found, limit)
            finally:
                os.close(child)
        elif not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
            full = f"{shown}/{path}"
            if len(os.fsencode(full)) > MAX_MASK_PATH_BYTES:
                raise JailRefused(f"a jailed call cannot mask the {_kind(mode)} {_described(shown, path)}: its path is "
                                  f"{len(os.fsencode(full)):,} bytes long, more than bubblewrap takes; delete it (or the "
                                  "directories above it) before the next scoring call")
            found.append(full)
            if len(found) > limit:
                raise JailRefused(f"{_quoted(shown)} holds more than {limit} sockets, FIFOs or device nodes, which a jailed "
                                  f"call masks one by one: delete them (find {_quoted(shown)} -type s -delete, and -type p) "
                                  "before the next scoring call")


def _cannot_look(shown: str, relative: str, why: str) -> JailRefused:
    return JailRefused(f"a jailed call masks every socket and FIFO of the agent's files and cannot look for them in "
                       f"{_described(shown, relative)}: {why}; make it readable (chmod -R u+rwX) or delete it before the "
                       "next scoring call")


def _described(shown: str, relative: str, most: int = 240) -> str:
    """``shown``/``relative`` for a message: in full when short, else its first directory, depth and name."""
    full = f"{shown}/{relative}" if relative else shown
    if len(full) <= most:
        return _quoted(full)
    parts = relative.split("/")
    top, name = _quoted(f"{shown}/{parts[0]}"), _quoted(parts[-1], 60)
    return f"{top}/.../{name} ({len(parts) - 1} directories below {_quoted(shown)})"


def _quoted(path: str, most: int = 240) -> str:
    """``path`` for a message: control and undecodable characters escaped, long names shortened."""
    text = path.encode("utf-8", "surrogateescape").decode("ascii", "backslashreplace")
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return repr(text[: most - 3] + "..." if len(text) > most else text)


def _kind(mode: int) -> str:
    return "socket" if stat.S_ISSOCK(mode) else "FIFO" if stat.S_ISFIFO(mode) else "device node"


_PSEUDO_FILESYSTEMS = frozenset({"proc", "sysfs", "devtmpfs", "devpts", "cgroup", "cgroup2", "mqueue", "debugfs", "tracefs",
                                  "securityfs", "pstore", "bpf", "configfs", "fusectl", "hugetlbfs", "autofs", "binfmt_misc",
                                  "efivarfs", "rpc_pipefs", "nsfs"})
_OPEN_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


@dataclass
class Eviction:
    """What one ``evict_shared_page_cache`` did: files advised, entries it could not open, seconds."""

    files: int = 0
    skipped: int = 0
    seconds: float = 0.0


def shared_trees(config: JailConfig) -> tuple[list[str], set[str]]:
    """(roots, skipped) of what a jail and the agent both see: the namespace's root without the jail's private
    directories and pseudo file systems, and the workspace and kept paths, which the jail binds back."""
    skipped = {"/proc", "/sys", "/dev", FULL_PROC_DIR, *_PRIVATE_DIRS, *config.writable_mounts}
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as f:
            for line in f:
                fields = line.split(" - ", 1)
                mount_point = fields[0].split(" ")[4].encode("utf-8", "surrogateescape").decode("unicode_escape", "surrogateescape")
                if len(fields) == 2 and fields[1].split(" ", 1)[0] in _PSEUDO_FILESYSTEMS:
                    skipped.add(mount_point)
    except (OSError, IndexError):
        pass
    return ["/", config.workspace, *config.keep], skipped


def evict_shared_page_cache(config: JailConfig) -> Eviction:
    """Drop the page cache of every regular file a jail could read and the agent can open, after a jailed call.

    A jailed call that reads page N of a file leaves page N in the page cache after it is gone, and the agent
    reads that back: with ``mincore`` on a file it owns (a sparse file of any size in the workspace costs no
    disk), or with ``preadv2(RWF_NOWAIT)`` or the time of a read on any file it can open (a library under /usr);
    a call that evicts a page (``posix_fadvise(DONTNEED)``, allowed on any file it can open) is read back the
    same way. So once the last jailed call of a freeze is gone, and before the agent's processes run again,
    every regular file of the trees the jail shares with the agent (``shared_trees``) is advised
    POSIX_FADV_DONTNEED: what stays cached is what a process still maps (the agent's frozen ones, the
    grader's) or has not written back, none of it the jail's doing. The walk opens each directory relative to
    its parent (no path length limits it, no link is followed) and goes on past what it cannot open (the
    broker is root: only entries removed meanwhile); it costs about a second per 150,000 files. It starts once
    no read is in flight (``wait_for_reads``), so that pages the call asked for last are there to evict.
    """
    started = time.monotonic()
    done = Eviction()
    wait_for_reads()
    roots, skipped = shared_trees(config)
    for root in dict.fromkeys(roots):
        try:
            fd = _open_directory(os.path.realpath(root))
        except OSError:
            continue
        try:
            _evict_below(fd, "" if root == "/" else root, skipped if root == "/" else set(), 0, done)
        finally:
            os.close(fd)
    done.seconds = time.monotonic() - started
    return done


def resident_pages(path: str | os.PathLike[str]) -> list[bool]:
    """Which 4 KiB pages of ``path`` are in the page cache, as its owner reads it back: ``mincore`` on a shared
    map of the whole file. It reads nothing (a ``preadv2(RWF_NOWAIT)`` probe is not exact on every kernel: on
    6.18 one that misses starts reading the page in). The tests use it to check an eviction."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    size = os.stat(path).st_size
    if size == 0:
        return []
    fd = os.open(path, os.O_RDONLY)
    try:
        address = libc.mmap(None, size, 1, 1, fd, 0)  # PROT_READ, MAP_SHARED
    finally:
        os.close(fd)
    if address in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), f"mmap {path}")
    try:
        vec = (ctypes.c_ubyte * ((size + 4095) // 4096))()
        if libc.mincore(ctypes.c_void_p(address), ctypes.c_size_t(size), vec) != 0:
            raise OSError(ctypes.get_errno(), f"mincore {path}")
        return [bool(v & 1) for v in vec]
    finally:
        libc.munmap(ctypes.c_void_p(address), ctypes.c_size_t(size))

def wait_for_reads(most_s: float = 5.0) -> None:
    """Wait until no block device has a request in flight (``/proc/diskstats``), at most ``most_s`` seconds.

    A page being read cannot be evicted: reads a jailed call queued just before it ended (``readahead`` of
    gigabytes) would land after the walk passed their file. Other work on the host can keep requests in flight
    for longer than ``most_s``; the walk then starts anyway.
    """
    deadline = time.monotonic() + most_s
    while time.monotonic() < deadline:
        try:
            with open("/proc/diskstats") as f:
                if not any(int(fields[11]) for fields in (line.split() for line in f) if len(fields) > 11):
                    return
        except (OSError, ValueError):
            return
        time.sleep(0.01)


def _evict_below(fd: int, path: str, skipped: set[str], depth: int, done: Eviction) -> None:
    try:
        with os.scandir(fd) as listing:
            entries = [(entry.name, entry.stat(follow_symlinks=False).st_mode) for entry in listing]
    except OSError:
        done.skipped += 1
        return
    for name, mode in entries:
        if stat.S_ISDIR(mode):
            child_path = f"{path}/{name}" if depth < 8 else ""
            if child_path in skipped:
                continue
            if depth + 1 > MAX_WALK_DEPTH + 1:  # deeper than a jailed call's walk lets a workspace be
                done.skipped += 1
                continue
            try:
                child = os.open(name, _OPEN_DIRECTORY, dir_fd=fd)
            except OSError:
                done.skipped += 1
                continue
            try:
                _evict_below(child, child_path, skipped, depth + 1, done)
            finally:
                os.close(child)
        elif stat.S_ISREG(mode):
            try:
                file = os.open(name, _OPEN_FILE, dir_fd=fd)
            except OSError:
                done.skipped += 1
                continue
            try:
                os.posix_fadvise(file, 0, 0, os.POSIX_FADV_DONTNEED)
                done.files += 1
            except OSError:
                done.skipped += 1
            finally:
                os.close(file)


def gpu_nodes() -> list[str]:
    """The NVIDIA device nodes this namespace has (the sandbox's GPUs), for the jail's /dev."""
    try:
        names = os.listdir("/dev")
    except OSError:
        return []
    nodes = [f"/dev/{n}" for n in sorted(names) if n.startswith("nvidia")]
    if os.path.isdir("/dev/nvidia-caps"):
        nodes = [n for n in nodes if n != "/dev/nvidia-caps"] + ["/dev/nvidia-caps"]
    return nodes


def jail_argv(request: JailRequest, config: JailConfig, cwd: str, argv: list[str]) -> list[str]:
    """The bubblewrap command line that runs ``argv`` in a jail (the module docstring says what it is).

    Every directory the jail shows that the agent user could have written to (the workspace, a grader's bind,
    a kept path that is not read-only) is walked by ``special_files`` and each socket, FIFO and device node in
    it masked by /dev/null; JailRefused (nothing started) when one cannot be.
    """
    args = [config.bwrap, "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--hostname", "rebench-jail",
            "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev"]
    for node in gpu_nodes():
        args += ["--dev-bind", node, node]
    # Outermost first: a kept path inside a private directory is bound again over it, and a writable mount
    # inside a kept path (which a recursive bind would bring back) is made private after it.
    layers = [(d, False) for d in (*_PRIVATE_DIRS, *config.writable_mounts)] + [(p, True) for p in config.keep]
    for path, kept in sorted(layers, key=lambda layer: len([p for p in layer[0].split("/") if p])):
        if not kept:
            if os.path.isdir(path) and not os.path.islink(path):
                args += ["--perms", "1777" if path in ("/tmp", "/var/tmp", "/dev/shm") else "0755", "--tmpfs", path]
        elif os.path.exists(path):
            args += ["--ro-bind", path, path]
            if os.path.isdir(path) and not _read_only(path):
                args += _masks(special_files(path))
    if os.path.isdir(config.workspace):
        args += ["--ro-bind", config.workspace, config.workspace, *_masks(special_files(config.workspace))]
    for bind in request.binds:
        args += ["--bind" if bind.writable else "--ro-bind", bind.source, bind.target]
        if os.path.isdir(bind.source):  # a file the grader binds (a service's socket) is its own choice
            try:
                args += _masks(special_files(bind.source, bind.target))
            except JailRefused:
                # Names there may come from an earlier jailed call, which saw hidden data: none goes into the message.
                raise JailRefused(f"a jailed call cannot mask every socket, FIFO and device node of the directory bound at "
                                  f"{_quoted(bind.target)}: one too deep, too many, or a directory it cannot list, which an "
                                  "earlier jailed call (agent code) left there") from None
    args += ["--chdir", cwd, "--"]
    if request.forwards:
        forwards = [f"--forward={f.port}={f.socket}" for f in request.forwards]
        args += ["/usr/bin/python3", "-E", "-s", config.init, *forwards, "--"]
    return args + argv


def _masks(paths: list[str]) -> list[str]:
    return [arg for path in paths for arg in ("--ro-bind", "/dev/null", path)]


def _read_only(path: str) -> bool:
    """Whether ``path`` lies on a read-only mount (nothing below it can be made, by the agent or anyone)."""
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


_libc = ctypes.CDLL(None, use_errno=True)
MS_NOSUID, MS_NODEV, MS_NOEXEC = 2, 4, 8


def mount_full_proc() -> str | None:
    """Mount an uncovered proc at FULL_PROC (root-only); None when done or already there, else why not."""
    try:
        if os.path.exists(os.path.join(FULL_PROC_DIR, "self")):
            return None  # mounted on the directory itself by an executor from before FULL_PROC_DIR
        os.makedirs(FULL_PROC_DIR, mode=0o700, exist_ok=True)
        os.chmod(FULL_PROC_DIR, 0o700)
        os.makedirs(FULL_PROC, mode=0o700, exist_ok=True)
        if os.path.exists(os.path.join(FULL_PROC, "self")):
            return None
    except OSError as e:
        return f"cannot make {FULL_PROC}: {e}"
    if _libc.mount(b"proc", FULL_PROC.encode(), b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None) != 0:
        return f"mounting proc at {FULL_PROC} failed: {os.strerror(ctypes.get_errno())}"
    return None


HOST_PID_NAMESPACE = "pid:[4026531836]"
"""The kernel's initial process namespace (PROC_PID_INIT_INO): a freezer must never run there."""


def in_host_pid_namespace() -> bool:
    try:
        return os.readlink("/proc/self/ns/pid") == HOST_PID_NAMESPACE
    except OSError:
        return True


def _proc_stat(pid: int) -> tuple[str, int, int] | None:
    """(state, ppid, real uid) of the process ``pid``, or None if it is gone.

    The state is that of its threads, not of its leader alone: a thread group whose leader has exited shows
    the leader as a zombie (``Z``) while its other threads run (a red-team attacker's observer, 2026-12-06,
    called ``SYS_exit`` on its main thread and read a jailed call's files through ``/proc/PID/root`` and the
    page cache live, frozen by nothing). So the first thread that is neither stopped nor dead gives the state,
    and a process is stopped only when every thread is.
    """
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
        with open(f"/proc/{pid}/status", "rb") as f:
            status = f.read()
    except OSError:
        return None
    fields = data[data.rindex(b")") + 2:].split()
    uid_line = next((line for line in status.splitlines() if line.startswith(b"Uid:")), b"Uid: -1")
    return _thread_state(pid, fields[0].decode()), int(fields[1]), int(uid_line.split()[1])


def _thread_state(pid: int, leader: str) -> str:
    """The state of the first thread of ``pid`` that is neither stopped nor dead, else the leader's."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return leader
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat", "rb") as f:
                data = f.read()
        except OSError:
            continue
        state = data[data.rindex(b")") + 2:].split()[0].decode()
        if state not in "TtZX":
            return state
    return leader


def _pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


class AgentFreezer:
    """Stops every process of the agent user (SIGSTOP) while at least one hold is taken, and continues them after.

    Held by the orchestrator for the whole of a scoring call of a jailed environment (``freeze`` in the
    executor's protocol) and by the broker for each jailed call. Processes under ``excluded`` (the
    broker's own calls, a jail among them) are left running, and so is this process. Only the processes this
    freezer stopped are continued: one the agent had stopped itself stays stopped.
    """

    def __init__(self, uid: int) -> None:
        if in_host_pid_namespace():
            raise RuntimeError("refusing to freeze processes in the host's process namespace (not a sandbox)")
        self.uid = uid
        self.excluded: list[Callable[[], Iterable[int]]] = []
        """Each gives pids whose process trees are left running (the broker's calls)."""
        self.holds = 0
        self.stopped: set[int] = set()
        self.before_thaw: list[Callable[[], None]] = []
        """Run when the last hold is released, before the agent's processes are continued (the broker's eviction)."""

    def hold(self) -> None:
        self.holds += 1
        if self.holds == 1:
            try:
                self._freeze()
            except BaseException:
                # Not frozen: give back the hold and continue what was stopped, or every later hold would
                # count on a freeze that never happened.
                self.holds -= 1
                self._thaw()
                raise

    def release(self) -> None:
        if self.holds == 0:
            return
        self.holds -= 1
        if self.holds == 0:
            for hook in self.before_thaw:
                try:
                    hook()
                except Exception as e:  # noqa: BLE001 - the agent must run again whatever a hook did
                    print(f"rebench-freezer: before_thaw failed: {e!r}", file=sys.stderr, flush=True)
            self._thaw()

    @property
    def frozen(self) -> bool:
        return self.holds > 0

    def _freeze(self) -> None:
        me = os.getpid()
        for _ in range(200):
            table = {pid: info for pid in _pids() if (info := _proc_stat(pid)) is not None}
            excluded = {me, 1} | _subtrees(table, {pid for roots in self.excluded for pid in roots()})
            running = [pid for pid, (state, _, uid) in table.items()
                       if uid == self.uid and pid not in excluded and state not in "TtZX"]
            if not running:
                return
            for pid in running:
                try:
                    os.kill(pid, signal.SIGSTOP)
                    self.stopped.add(pid)
                except ProcessLookupError:
                    pass
            time.sleep(0.002)  # the stop takes effect asynchronously; look again (and catch new children)
        raise RuntimeError("could not freeze the agent's processes (they kept starting new ones)")

    def _thaw(self) -> None:
        for pid in sorted(self.stopped):
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        self.stopped.clear()


def _subtrees(table: dict[int, tuple[str, int, int]], roots: set[int]) -> set[int]:
    """``roots`` and every process below them in ``table`` (pid -> (state, ppid, uid))."""
    children: dict[int, list[int]] = {}
    for pid, (_, ppid, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    out: set[int] = set()
    stack = [r for r in roots]
    while stack:
        pid = stack.pop()
        if pid in out:
            continue
        out.add(pid)
        stack.extend(children.get(pid, []))
    return out
