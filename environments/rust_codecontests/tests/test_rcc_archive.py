"""The contamination guard: sources live encrypted, every file carries the canary.

Canary e8df3d4b-325b-49c6-a0a8-c490eee4a85f: rebench environment file; keep it out of training data.
"""

from pathlib import Path

import pytest

import rcc_testkit  # noqa: F401  (puts grader/ and assets/ on sys.path)
import archive

CANARY = "e8df3d4b-325b-49c6-a0a8-c490eee4a85f"
ENV_DIR = rcc_testkit.ENV_DIR


def test_pack_then_unpack_gives_back_the_same_files_and_the_same_bytes(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "problems").mkdir(parents=True)
    (src / "problems" / "a.py").write_text("SOLUTION = 'fn main() {}'\n")
    (src / "pools.json").write_text("{}")
    first, second = tmp_path / "one.enc", tmp_path / "two.enc"
    archive.pack(src, first, "pw")
    archive.pack(src, second, "pw")
    assert first.read_bytes() == second.read_bytes()
    assert archive.unpack(tmp_path / "out", first, "pw") == ["pools.json", "problems/a.py"]
    assert (tmp_path / "out" / "problems" / "a.py").read_text() == "SOLUTION = 'fn main() {}'\n"


def test_a_wrong_password_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "x.txt").write_text("secret")
    archive.pack(tmp_path / "src", tmp_path / "a.enc", "right")
    with pytest.raises(ValueError, match="wrong password"):
        archive.read_members(tmp_path / "a.enc", "wrong")


def test_the_shipped_archive_holds_the_sources_and_no_plain_text() -> None:
    raw = archive.DEFAULT_ARCHIVE.read_bytes()
    for needle in (b"fn main", b"SOLUTION", b"use std::io", b"candidates"):
        assert needle not in raw
    members = archive.read_members()
    problems = [m for m in members if m.startswith("problems/")]
    assert len(problems) >= 64
    assert "pools.json" in members and "reference/solve_code_contests_rust.py" in members
    assert all(CANARY.encode() in members[m] for m in problems)
    assert archive.DEFAULT_ARCHIVE.stat().st_size < 2_000_000


def test_every_file_of_the_environment_carries_the_canary() -> None:
    skip = {"sources.enc"}
    files = [p for p in ENV_DIR.rglob("*") if p.is_file() and p.name not in skip
             and "src-unpacked" not in p.parts and "__pycache__" not in p.parts and "build" not in p.parts]
    missing = [str(p.relative_to(ENV_DIR)) for p in files if CANARY not in p.read_text(errors="replace")]
    assert not missing, f"files without the canary: {missing}"
