"""Command line of the asset builder, run by ``rebench assets build`` (or directly on a GPU machine).

    python -m rebench_env.assets build [--variant mini|gpu|tiny] [--only NAME ...] [--result PATH]
    python -m rebench_env.assets list [--result PATH]
    python -m rebench_env.assets catalog [--result PATH]

Progress goes to stderr; the outcome is JSON written to ``--result`` (also printed to stdout when no path is
given). ``{"ok": true, "assets": [...]}`` or ``{"ok": false, "error": {"type", "message"}, "assets": [...]}``
with type ``unknown_asset``, ``inputs_missing``, ``device_unavailable`` or ``failed``. Exit code 0 or 1.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from rebench_env.assets import assets_home
from rebench_env.assets.store import AssetStore


def _write(path: str | None, payload: dict[str, Any]) -> None:
    text = json.dumps(payload, indent=2, sort_keys=True) + "\n"
    if path is None:
        sys.stdout.write(text)
        return
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def _catalog() -> list[dict[str, Any]]:
    from rebench_env.assets.catalog import ASSETS, VARIANTS

    return [
        {
            "name": a.name,
            "kind": a.kind,
            "description": a.description,
            "deps": list(a.deps),
            "variants": [v for v, names in VARIANTS.items() if a.name in names],
            "spec": dataclasses.asdict(a.spec),
        }
        for a in ASSETS.values()
    ]


def _build(args: argparse.Namespace) -> dict[str, Any]:
    from rebench_env.assets.build import BuildOptions, InputsMissingError, build
    from rebench_env.assets.catalog import ASSETS, VARIANTS
    from rebench_env.assets.model_builder import DeviceUnavailableError
    from rebench_env.assets.sources import SourceMissingError

    names = [n for item in args.only or [] for n in item.split(",") if n] or list(VARIANTS[args.variant])
    unknown = [n for n in names if n not in ASSETS]
    if unknown:
        return {"ok": False, "assets": [], "error": {"type": "unknown_asset", "message":
                f"unknown asset(s): {', '.join(unknown)}; known: {', '.join(ASSETS)}"}}  # fmt: skip
    options = BuildOptions(
        home=Path(args.home) if args.home else None,
        gpt2_json=Path(args.gpt2_json) if args.gpt2_json else None,
        jobs=args.jobs,
    )
    started = time.time()
    try:
        assets = build(names, options)
    except (SourceMissingError, InputsMissingError) as error:
        return {"ok": False, "assets": [], "error": {"type": "inputs_missing", "message": str(error)}}
    except DeviceUnavailableError as error:
        return {"ok": False, "assets": [], "error": {"type": "device_unavailable", "message": str(error)}}
    except Exception as error:  # a bug or broken machine: keep the traceback for the report
        traceback.print_exc()
        return {"ok": False, "assets": [], "error": {"type": "failed", "message": f"{type(error).__name__}: {error}"}}
    return {"ok": True, "assets": assets, "seconds": round(time.time() - started, 3)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rebench_env.assets", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="build assets (and their dependencies) that are not current")
    b.add_argument("--variant", choices=["mini", "gpu", "tiny"], default="mini")
    b.add_argument("--only", action="append", help="asset name(s), comma-separated or repeated")
    b.add_argument("--jobs", type=int, default=2, help="CPU model builds at once (default 2)")
    b.add_argument("--gpt2-json", help="tiktoken's encoders/gpt2.json (default: this checkout's node_modules)")
    for p in (b, sub.add_parser("list", help="built assets"), sub.add_parser("catalog", help="all asset names")):
        p.add_argument("--home", help="rebench home (default $REBENCH_HOME or ~/.rebench)")
        p.add_argument("--result", help="write the JSON outcome here (default: stdout)")
    args = parser.parse_args(argv)
    if args.command == "build":
        payload = _build(args)
    elif args.command == "list":
        payload = {"ok": True, "assets": AssetStore(assets_home(args.home)).records()}
    else:
        payload = {"ok": True, "assets": _catalog()}
    _write(args.result, payload)
    return 0 if payload["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
