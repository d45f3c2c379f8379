"""Unpack the reference solution (an encrypted zip, so it is not plain text in the repository).

    python environments/restricted_mlm/reference/unpack.py DEST

writes DEST/model.py (a residual 1-D convolution net from as_strided and allowed operations) and
DEST/train.py (its training). The password is public and written in README.md: it keeps the files out of
scrapers and training sets, not away from people. reference/pack.sh packs reference/src/ back into the archive.

Canary 16ff82f0-58a9-4f41-9f1d-e58252fd5f1f: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import zipfile
from pathlib import Path

PASSWORD = "rebench-restricted-mlm-16ff82f0"
ARCHIVE = Path(__file__).resolve().parent / "reference.zip"


def unpack(dest: str | Path, archive: str | Path = ARCHIVE) -> Path:
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(archive) as z:
        z.extractall(dest, pwd=PASSWORD.encode())
    return dest


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dest", help="folder to write the reference files to")
    print(f"unpacked {ARCHIVE.name} into {unpack(parser.parse_args().dest)}")
