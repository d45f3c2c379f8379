"""Unpack (or pack) the scaling_law reference solution, kept as an encrypted zip so it is not plain text here.

    python environments/scaling_law/reference/unpack.py DEST      # writes DEST/fit_scaling.py
    python environments/scaling_law/reference/unpack.py --pack    # reference/src/ -> reference/reference.zip

The password is public and written in README.md: it keeps the solution out of scrapers and training sets,
not away from people. The replay agent's actions (``<variant>.actions.jsonl``) upload the unpacked file
into the sandbox through the tool API.

Canary a99505a7-4586-4226-b19e-e5b4a1e41660: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import subprocess
import zipfile
from pathlib import Path

PASSWORD = "rebench-scaling-law-reference-a99505a7"
HERE = Path(__file__).resolve().parent
ARCHIVE = HERE / "reference.zip"


def unpack(dest: str | Path, archive: str | Path = ARCHIVE) -> Path:
    """Extract every file of the archive under ``dest``; returns ``dest``."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(archive) as z:
        z.extractall(dest, pwd=PASSWORD.encode())
    return dest


def pack(src: Path = HERE / "src", archive: Path = ARCHIVE) -> None:
    files = sorted(p.name for p in src.iterdir() if p.is_file() and p.suffix == ".py")
    archive.unlink(missing_ok=True)
    subprocess.run(["zip", "-q", "-X", "-P", PASSWORD, str(archive), *files], cwd=src, check=True)
    print(f"packed {', '.join(files)} into {archive}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dest", nargs="?", help="folder to write the solution to")
    parser.add_argument("--pack", action="store_true", help="pack reference/src/ into reference.zip instead")
    args = parser.parse_args()
    if args.pack:
        pack()
    elif args.dest:
        print(f"unpacked {ARCHIVE.name} into {unpack(args.dest)}")
    else:
        parser.error("give DEST or --pack")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
