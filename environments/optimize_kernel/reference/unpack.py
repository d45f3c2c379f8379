"""Unpack the reference solutions (an encrypted zip, so they are not plain text in the repository).

    python environments/optimize_kernel/reference/unpack.py DEST

writes DEST/mini/ (C single pass + solution.py), DEST/gpu/ (three-kernel Triton reference),
DEST/gpu_twopass/ (the best-known: reduce, scan summaries, scan tiles) and DEST/gpu_lookback/ (single
pass with decoupled look-back). The password is public and written in README.md:
it keeps the files out of scrapers and training sets, not away from people.

Canary ecca2186-2e7c-42f5-b36a-c361cba02702: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import zipfile
from pathlib import Path

PASSWORD = "rebench-optimize-kernel-ecca2186"
ARCHIVE = Path(__file__).resolve().parent / "reference.zip"


def unpack(dest: str | Path, archive: str | Path = ARCHIVE) -> Path:
    """Extract every file of the archive under ``dest``; returns ``dest``."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(archive) as z:
        z.extractall(dest, pwd=PASSWORD.encode())
    return dest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dest", help="folder to write the solutions to")
    args = parser.parse_args()
    out = unpack(args.dest)
    print(f"unpacked {ARCHIVE.name} into {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
