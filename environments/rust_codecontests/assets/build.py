"""Build a variant's data from the encrypted sources: what the agent's workspace and the protected dir receive.

Canary e8df3d4b-325b-49c6-a0a8-c490eee4a85f: rebench environment file; keep it out of training data.

    python assets/build.py --variant mini --out BUILD_DIR [--archive sources.enc]

writes
    BUILD_DIR/workspace/data/valid.jsonl             visible validation split, every test included
    BUILD_DIR/workspace/rust_codecontests_utils.py   the grader's evaluation code (identical copy)
    BUILD_DIR/workspace/rcc_module_runner.py         the grader's way of calling a module (identical copy)
    BUILD_DIR/protected/test.jsonl                   hidden split; its generated tests are drawn by the grader
                                                     on every scoring call (field `generator`)
    BUILD_DIR/protected/problems/<id>.py             hidden problems' generators and references (tests are
                                                     re-drawn on every scoring call)
    BUILD_DIR/protected/bin/<id>                     compiled references (the oracle for fresh tests)
    BUILD_DIR/protected/model/valid.json.gz          the model's tables for the validation split
    BUILD_DIR/protected/model/hidden.json.gz         the model's tables for the hidden split
    BUILD_DIR/protected/build.json                   what was built from what
    BUILD_DIR/reference/solve_code_contests_rust.py  the reference scaffold (for the replay agent)
The harness copies `workspace/` into the agent's workspace and `protected/` into the protected dir.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ENV_DIR = HERE.parent
sys.path.insert(0, str(ENV_DIR / "grader"))
sys.path.insert(0, str(HERE))

import archive  # noqa: E402
import rcc_problems as rp  # noqa: E402
import rcc_variants  # noqa: E402

BUILD_SEED = "rebench-rust-codecontests-build-v1"


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rebench" / "rust_codecontests" / "bin"


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")


def model_tables(problems: list[dict[str, Any]], sources: dict[str, rp.ProblemSource],
                 pools: dict[str, Any], ids: dict[str, str]) -> dict[str, Any]:
    out = {}
    for p in problems:
        sid = ids[p["name"]]
        out[p["name"]] = {"name": p["name"], "split": sources[sid].split, "rating": sources[sid].rating,
                          "tags": sources[sid].tags, "description": p["description"],
                          "public_tests": p["public_tests"], "candidates": pools[sid]["candidates"]}
    return {"problems": out}


def _gz_json(path: Path, payload: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", compresslevel=6) as f:
        json.dump(payload, f)


def build(variant: str, out: Path, archive_path: Path = archive.DEFAULT_ARCHIVE, cache: Path | None = None,
          workers: int | None = None) -> dict[str, Any]:
    config = rcc_variants.VARIANTS[variant]
    if config.problems_source != "archive":
        return build_paper(variant, out, archive_path)
    started = time.time()
    cache = cache or default_cache()
    with tempfile.TemporaryDirectory(prefix="rcc-src-") as tmp:
        src_dir = Path(tmp)
        archive.unpack(src_dir, archive_path)
        sources = {s.id: s for s in rp.load_sources(src_dir)}
        pools = json.loads((src_dir / "pools.json").read_text())
        hidden_ids = [i for i, s in sources.items() if s.split in config.hidden_splits]
        valid_ids = [i for i, s in sources.items() if s.split == "valid"]
        missing = [i for i in hidden_ids + valid_ids if i not in pools]
        if missing:
            raise SystemExit(f"no candidate pool for {missing}: run assets/build_pools.py")
        wanted = [sources[i] for i in valid_ids + hidden_ids]
        exes = rp.compile_references(wanted, cache, workers)
        hidden = set(hidden_ids)
        with ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
            built = dict(zip([s.id for s in wanted], pool.map(
                lambda s: rp.build_problem(s, exes[s.id], None if s.id in hidden else BUILD_SEED), wanted)))
        for i in hidden_ids:  # the grader draws these problems' generated tests on every scoring call
            built[i]["generator"] = {"source": f"problems/{i}.py", "oracle": f"bin/{i}"}
        ids = {built[i]["name"]: i for i in built}
        _fresh(out)
        ws, prot = out / "workspace", out / "protected"
        _jsonl(ws / "data" / "valid.jsonl", [built[i] for i in valid_ids])
        _shared_files(ws)
        _jsonl(prot / "test.jsonl", [built[i] for i in hidden_ids])
        (prot / "problems").mkdir(parents=True)
        (prot / "bin").mkdir()
        for i in hidden_ids:
            shutil.copy2(src_dir / "problems" / f"{i}.py", prot / "problems" / f"{i}.py")
            shutil.copy2(exes[i], prot / "bin" / i)
        _gz_json(prot / "model" / "valid.json.gz", model_tables([built[i] for i in valid_ids], sources, pools, ids))
        _gz_json(prot / "model" / "hidden.json.gz", model_tables([built[i] for i in hidden_ids], sources, pools, ids))
        (out / "reference").mkdir()
        shutil.copy2(src_dir / "reference" / "solve_code_contests_rust.py", out / "reference")
        info = {"variant": variant, "archive_sha256": archive.archive_digest(archive_path), "build_seed": BUILD_SEED,
                "rustc": rp.rustc_version(), "valid": len(valid_ids), "hidden": len(hidden_ids),
                "hidden_ids": hidden_ids, "seconds": round(time.time() - started, 1)}
        (prot / "build.json").write_text(json.dumps(info, indent=1))
    return info


def _fresh(out: Path) -> None:
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    os.chmod(out, 0o700)  # hidden data: readable by the builder only until the harness places it


def _shared_files(ws: Path) -> None:
    ws.mkdir(parents=True, exist_ok=True)
    for shared in ("rust_codecontests_utils.py", "rcc_module_runner.py"):  # one source, two copies
        shutil.copy2(ENV_DIR / "grader" / shared, ws / shared)


def build_paper(variant: str, out: Path, archive_path: Path) -> dict[str, Any]:
    """The paper variant: CodeContests' splits downloaded by rcc_paper.build_paper (cached), our reference scaffold."""
    import rcc_paper

    started = time.time()
    _fresh(out)
    counts = rcc_paper.build_paper(out)
    _shared_files(out / "workspace")
    with tempfile.TemporaryDirectory(prefix="rcc-src-") as tmp:
        archive.unpack(Path(tmp), archive_path)
        (out / "reference").mkdir()
        shutil.copy2(Path(tmp) / "reference" / "solve_code_contests_rust.py", out / "reference")
    info = {"variant": variant, "source": rcc_paper.DATASET_URL, "valid": counts["valid"], "hidden": counts["test"],
            "seconds": round(time.time() - started, 1)}
    (out / "protected" / "build.json").write_text(json.dumps(info, indent=1))
    return info


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", choices=sorted(rcc_variants.VARIANTS), default="mini")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--archive", type=Path, default=archive.DEFAULT_ARCHIVE)
    parser.add_argument("--cache", type=Path, default=None, help="compiled references, by hash")
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args(argv)
    info = build(args.variant, args.out, args.archive, args.cache, args.workers)
    print(f"built {args.variant}: {info['valid']} validation and {info['hidden']} hidden problems in "
          f"{info['seconds']}s into {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
