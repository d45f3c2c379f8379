"""Pack the sweeps into ``grader/sweep.zip`` (encrypted with the documented password), or unpack them.

    python environments/scaling_law/sweep/pack_sweep.py --mini /root/sl-sweep/mini/sweep.json   # add or replace
    python environments/scaling_law/sweep/pack_sweep.py --unpack DEST                          # DEST/<variant>.json

The archive holds ``mini.json``, ``gpu.json`` (once the GPU sweep is built) and ``paper.json`` (the
original's table, packed once; it is kept when other sweeps are added). The password (``ground_truth.SWEEP_PASSWORD``) is public: it keeps the ground truth out
of scrapers and training sets, not away from people; the sandbox keeps it from the agent.

Canary a99505a7-4586-4226-b19e-e5b4a1e41660: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "grader"))
import ground_truth  # noqa: E402



def existing(archive: Path) -> dict[str, bytes]:
    if not archive.exists():
        return {}
    with zipfile.ZipFile(archive) as z:
        return {name: z.read(name, pwd=ground_truth.SWEEP_PASSWORD.encode()) for name in z.namelist()}


def pack(archive: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        ground_truth.sweep_from_json(json.loads(data))  # refuse what the grader could not read
    with tempfile.TemporaryDirectory() as tmp:
        for name, data in files.items():
            (Path(tmp) / name).write_bytes(data)
        partial = archive.with_suffix(".zip.partial")
        partial.unlink(missing_ok=True)
        subprocess.run(["zip", "-q", "-X", "-P", ground_truth.SWEEP_PASSWORD, str(partial.resolve()), *sorted(files)], cwd=tmp, check=True)
        partial.replace(archive)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--archive", default=str(ground_truth.SWEEP_ARCHIVE))
    parser.add_argument("--mini", help="sweep.json written by build_sweep.py --variant mini")
    parser.add_argument("--gpu", help="sweep.json written by build_sweep.py --variant gpu")
    parser.add_argument("--paper", help="the original's table as {variant, target_flops, by_iters: [[max_iters, loss], ...]}")
    parser.add_argument("--unpack", metavar="DEST", help="write every sweep in the archive to DEST/<variant>.json")
    args = parser.parse_args()
    archive = Path(args.archive)
    files = existing(archive)
    if args.unpack:
        Path(args.unpack).mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            (Path(args.unpack) / name).write_bytes(data)
        print(f"unpacked {', '.join(sorted(files))} into {args.unpack}")
        return 0
    for variant in ("mini", "gpu", "paper"):
        source = getattr(args, variant)
        if source:
            files[f"{variant}.json"] = Path(source).read_bytes()
    pack(archive, files)
    print(f"packed {', '.join(sorted(files))} into {archive}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
