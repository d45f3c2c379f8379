"""Unpack the reference solution (an encrypted zip, so it is not plain text in the repository).

    python environments/finetune_gpt2_qa/reference/unpack.py DEST

writes DEST/best_of_k.py: best-of-k selection by the judge plus rounds of SFT on the winners. The password
is public and written in README.md: it keeps the file out of scrapers and training sets, not away from
people. reference/pack.sh packs reference/src/ back into the archive.

Canary dcc63ee1-bf38-4ac8-8730-70e6939b4951: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import zipfile
from pathlib import Path

PASSWORD = "rebench-finetune-gpt2-qa-dcc63ee1"
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
