"""The one-shot jail's search for special files (sandbox_jail.special_files) and the masks jail_argv gives
bubblewrap, on real directories, sockets and FIFOs. The jail itself runs in src/sandbox/jail.case.ts."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from rebench_env import sandbox_jail
from rebench_env.sandbox_jail import Bind, JailConfig, JailRefused, JailRequest, jail_argv, special_files

LONG_CHAIN = ["%02d" % i + "x" * 238 for i in range(18)]
"""Eighteen 240-character names: a path through them is longer than PATH_MAX (4096)."""


def _listen(directory: Path, parts: list[str], name: str = "s.sock") -> socket.socket:
    """A listening unix socket at directory/parts/name, made a level at a time (the path may pass PATH_MAX)."""
    home = os.open(".", os.O_RDONLY)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        os.chdir(directory)
        for part in parts:
            os.makedirs(part, exist_ok=True)
            os.chdir(part)
        server = socket.socket(socket.AF_UNIX)
        server.bind(name)
        server.listen()
        return server
    finally:
        os.fchdir(home)
        os.close(home)


def test_special_files_finds_every_socket_and_fifo_at_any_depth_as_the_jail_shows_them(tmp_path):
    ws = tmp_path / "ws"
    servers = [_listen(ws, []), _listen(ws, ["a", "b", "c", "d", "e", "f"])]
    os.mkfifo(ws / "a" / "pipe")
    (ws / "a" / "plain.txt").write_text("x")
    elsewhere = tmp_path / "elsewhere"
    servers.append(_listen(elsewhere, []))
    (ws / "link").symlink_to(elsewhere)  # not followed: what it points to is the jail's business (private or walked)
    try:
        found = special_files(str(ws), "/home/agent/workspace")
    finally:
        for s in servers:
            s.close()
    ws_in_jail = "/home/agent/workspace"
    assert sorted(found) == [f"{ws_in_jail}/a/b/c/d/e/f/s.sock", f"{ws_in_jail}/a/pipe", f"{ws_in_jail}/s.sock"]


def test_special_files_refuses_a_socket_whose_path_bubblewrap_cannot_take_and_says_where_it_is(tmp_path):
    server = _listen(tmp_path, [".deep", *LONG_CHAIN])
    try:
        with pytest.raises(JailRefused) as refused:
            special_files(str(tmp_path), "/home/agent/workspace")
    finally:
        server.close()
    message = str(refused.value)
    where = "'/home/agent/workspace/.deep'/.../'s.sock' (19 directories below '/home/agent/workspace')"
    assert f"cannot mask the socket {where}" in message
    assert "delete it" in message and len(message) < 600


def test_special_files_refuses_a_directory_it_cannot_list(tmp_path):
    """As an unprivileged user (root lists anything): a directory made mode 0100 after a FIFO was put in it."""
    top = Path(tempfile.mkdtemp(prefix="rebench-test-jail-"))
    try:
        os.chmod(top, 0o755)
        code = ("import os, sys; from rebench_env.sandbox_jail import special_files, JailRefused\n"
                "os.makedirs(sys.argv[1] + '/locked'); os.mkfifo(sys.argv[1] + '/locked/f'); os.chmod(sys.argv[1] + '/locked', 0o100)\n"
                "try:\n    print(special_files(sys.argv[1], '/ws'))\nexcept JailRefused as e:\n    print('refused:', e)\n")
        user = {"user": 65534, "group": 65534, "extra_groups": []} if os.geteuid() == 0 else {}
        if user:
            os.chown(top, 65534, 65534)
        run = subprocess.run([sys.executable, "-c", code, str(top / "ws")], capture_output=True, text=True, timeout=60,
                             env={**os.environ, "PYTHONPATH": str(Path(sandbox_jail.__file__).parents[1])}, **user)
        assert run.stderr == ""
        assert run.stdout.startswith("refused: a jailed call masks every socket and FIFO of the agent's files and cannot look "
                                     "for them in '/ws/locked': it cannot be entered (Permission denied)")
    finally:
        subprocess.run(["chmod", "-R", "u+rwx", str(top)], check=False)
        subprocess.run(["rm", "-rf", str(top)], check=False)


def test_special_files_refuses_more_than_its_limit_and_chains_deeper_than_its_depth(tmp_path, monkeypatch):
    for name in "abc":
        os.mkfifo(tmp_path / name)
    assert len(special_files(str(tmp_path), limit=3)) == 3
    with pytest.raises(JailRefused, match=r"holds more than 2 sockets, FIFOs or device nodes"):
        special_files(str(tmp_path), limit=2)
    (tmp_path / "d1" / "d2" / "d3").mkdir(parents=True)
    monkeypatch.setattr(sandbox_jail, "MAX_WALK_DEPTH", 2)
    with pytest.raises(JailRefused, match=r"'.*/d1/d2/d3': it lies more than 2 directories deep"):
        special_files(str(tmp_path))


def _pairs(argv: list[str]) -> list[tuple[str, ...]]:
    """bubblewrap's options as tuples (option, its arguments), in order."""
    arity = {"--ro-bind": 2, "--bind": 2, "--dev-bind": 2, "--tmpfs": 1, "--perms": 1, "--proc": 1, "--dev": 1, "--chdir": 1, "--hostname": 1}
    out, i = [], 1
    while argv[i] != "--":
        n = arity.get(argv[i], 0)
        out.append(tuple(argv[i : i + 1 + n]))
        i += 1 + n
    return out


def test_jail_argv_masks_the_special_files_of_the_workspace_and_of_each_directory_the_grader_binds(tmp_path):
    ws, out = tmp_path / "ws", tmp_path / "out"
    servers = [_listen(ws, ["deep", "er"]), _listen(out, [])]
    os.mkfifo(out / "f")
    try:
        request = JailRequest((Bind(str(out), "/run/out", writable=True),))
        pairs = _pairs(jail_argv(request, JailConfig(workspace=str(ws)), str(ws), ["true"]))
    finally:
        for s in servers:
            s.close()
    workspace = pairs.index(("--ro-bind", str(ws), str(ws)))
    bind = pairs.index(("--bind", str(out), "/run/out"))
    assert pairs[workspace + 1] == ("--ro-bind", "/dev/null", f"{ws}/deep/er/s.sock")
    assert sorted(pairs[bind + 1 : bind + 3]) == [("--ro-bind", "/dev/null", "/run/out/f"), ("--ro-bind", "/dev/null", "/run/out/s.sock")]


def test_jail_argv_refuses_the_call_when_the_workspace_holds_a_socket_it_cannot_mask(tmp_path):
    server = _listen(tmp_path, LONG_CHAIN)
    try:
        with pytest.raises(JailRefused, match="before the next scoring call"):
            jail_argv(JailRequest(), JailConfig(workspace=str(tmp_path)), str(tmp_path), ["true"])
    finally:
        server.close()


def test_jail_argv_refuses_a_bound_directory_it_cannot_mask_without_naming_what_is_in_it(tmp_path):
    """What a directory the grader binds holds may have been named by an earlier jailed call: it stays out of the message."""
    out = tmp_path / "out"
    server = _listen(out, ["hidden-row-1234", *LONG_CHAIN])
    try:
        with pytest.raises(JailRefused) as refused:
            jail_argv(JailRequest((Bind(str(out), "/run/out", writable=True),)), JailConfig(workspace=str(tmp_path / "ws")), "/", ["true"])
    finally:
        server.close()
    assert "directory bound at '/run/out'" in str(refused.value)
    assert "hidden" not in str(refused.value) and "xxx" not in str(refused.value) and str(out) not in str(refused.value)


def test_jail_argv_makes_private_what_a_kept_path_would_bring_back_and_binds_a_kept_path_over_a_private_one(tmp_path):
    """Outermost first: /tmp private, then a kept path below it; a writable mount inside the kept path private again."""
    keep, cache = tmp_path / "keep", tmp_path / "keep" / "cache"
    cache.mkdir(parents=True)
    server = _listen(keep, [])  # a kept path that is not read-only is walked like the workspace
    try:
        config = JailConfig(workspace=str(tmp_path / "no-workspace"), keep=[str(keep)], writable_mounts=[str(cache)])
        pairs = _pairs(jail_argv(JailRequest(), config, "/", ["true"]))
    finally:
        server.close()
    tmp = pairs.index(("--tmpfs", "/tmp"))
    kept = pairs.index(("--ro-bind", str(keep), str(keep)))
    assert tmp < kept < pairs.index(("--tmpfs", str(cache)))
    assert pairs[kept + 1] == ("--ro-bind", "/dev/null", f"{keep}/s.sock")



def _resident_pages(path: Path) -> int:
    """Pages of ``path`` in the page cache."""
    return sum(sandbox_jail.resident_pages(path))


def _read_pages(path: Path, pages: range) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
        for page in pages:
            os.pread(fd, 1, page * 4096)
    finally:
        os.close(fd)


def test_the_page_cache_of_every_file_below_a_tree_is_evicted_at_any_depth(tmp_path):
    """What a jailed call read stays cached for the agent to see (mincore on its own sparse file): the eviction's
    walk drops it, in a file at the top and at the bottom of a chain past PATH_MAX, and follows no link."""
    top = tmp_path / "top.bin"
    with open(top, "wb") as f:
        f.truncate(8 << 20)
    home = os.open(".", os.O_RDONLY)
    try:
        os.chdir(tmp_path)
        for part in LONG_CHAIN:
            os.mkdir(part)
            os.chdir(part)
        with open("deep.bin", "wb") as f:
            f.truncate(8 << 20)
        deep_dir = os.open(".", os.O_RDONLY)
    finally:
        os.fchdir(home)
        os.close(home)
    outside = tmp_path.parent / f"{tmp_path.name}-outside.bin"
    with open(outside, "wb") as f:
        f.truncate(1 << 20)
    (tmp_path / "link.bin").symlink_to(outside)
    deep = Path(f"/proc/self/fd/{deep_dir}/deep.bin")
    try:
        for path in (top, deep, outside):
            _read_pages(path, range(0, 256, 16))
        assert [_resident_pages(p) for p in (top, deep, outside)] == [16, 16, 16]
        done = sandbox_jail.Eviction()
        fd = sandbox_jail._open_directory(str(tmp_path))
        try:
            sandbox_jail._evict_below(fd, str(tmp_path), set(), 0, done)
        finally:
            os.close(fd)
        assert (done.files, done.skipped) == (2, 0)
        assert [_resident_pages(p) for p in (top, deep, outside)] == [0, 0, 16]
    finally:
        os.close(deep_dir)
        outside.unlink()


def test_the_shared_trees_are_the_root_without_the_jails_private_places_and_pseudo_file_systems_plus_what_it_binds_back():
    config = JailConfig(workspace="/home/agent/workspace", keep=["/home/agent/venv"], writable_mounts=["/scratch"])
    roots, skipped = sandbox_jail.shared_trees(config)
    assert roots == ["/", "/home/agent/workspace", "/home/agent/venv"]
    assert {"/proc", "/sys", "/dev", "/tmp", "/home", "/run", "/scratch"} <= skipped
