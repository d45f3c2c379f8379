"""Contamination guard: the canary is in every file, and the reference solutions are not plain text.

Canary ecca2186-2e7c-42f5-b36a-c361cba02702: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import ENV_DIR

CANARY = "ecca2186-2e7c-42f5-b36a-c361cba02702"
ARCHIVE = ENV_DIR / "reference" / "reference.zip"


def shipped_text_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "."], cwd=ENV_DIR,
                            capture_output=True, text=True, check=True).stdout.split()
    # Archives and run stores (SQLite, kept beside a calibration's printout) are not text.
    return [ENV_DIR / p for p in listed if not p.endswith((".zip", ".db")) and (ENV_DIR / p).is_file()]


def test_every_file_of_the_environment_carries_the_canary():
    files = shipped_text_files()
    assert len(files) > 20
    missing = [str(p.relative_to(ENV_DIR)) for p in files if CANARY not in p.read_text()]
    assert missing == []
    assert json.loads((ENV_DIR / "bench" / "calibration-bench.json").read_text())["canary"] == CANARY


def test_the_reference_archive_needs_the_password():
    with zipfile.ZipFile(ARCHIVE) as z:
        names = [n for n in z.namelist() if not n.endswith("/")]
        assert sorted(names) == ["gpu/solution.py", "gpu_lookback/solution.py", "gpu_twopass/solution.py",
                                "mini/prefix_sum.c", "mini/solution.py"]
        with pytest.raises(RuntimeError, match="password"):
            z.read("mini/solution.py")


def test_no_reference_code_is_stored_as_plain_text(reference_dir):
    code_lines = set()
    for path in reference_dir.rglob("*"):
        if path.suffix in (".py", ".c"):
            code_lines |= {line.strip() for line in path.read_text().splitlines()
                           if len(line.strip()) >= 40 and not line.strip().startswith(("#", "*", "/*", "def prefix_sum("))
                           and "Canary" not in line}
    assert len(code_lines) > 20
    for path in shipped_text_files():
        text = path.read_text()
        leaked = [line for line in code_lines if line in text]
        assert leaked == [], f"{path.relative_to(ENV_DIR)} holds reference code: {leaked[:3]}"


def test_unpack_writes_every_solution(tmp_path):
    proc = subprocess.run([sys.executable, str(ENV_DIR / "reference" / "unpack.py"), str(tmp_path / "out")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    for folder in ("mini", "gpu", "gpu_twopass", "gpu_lookback"):
        assert CANARY in (tmp_path / "out" / folder / "solution.py").read_text()
