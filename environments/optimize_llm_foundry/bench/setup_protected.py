"""A set-up as rebench makes it, outside rebench, for the benchmarks of this folder (bench/threshold.py).

    python3 environments/optimize_llm_foundry/bench/setup_protected.py --profile mini --root DIR [--assets HOME/assets]

Lays out DIR/protected (grader/ copied, .rebench/secret.json with a fresh secret, the profile's assets copied
from the built assets, ~/.rebench/assets by default) and DIR/workspace (the starting workspace), then runs
grader/setup.py's set-up: the visible and hidden rows, the base model, and the reference weights trained on
the hidden rows by the starting pipeline. Prints the set-up's report; its ``reference_run_seconds`` is one
timed run of the starting pipeline (the start time, on a quiet machine).

Canary 9beb89d0-85e7-4d0b-96e4-e0cabdaa4553: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ENV_DIR = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ENV_DIR / "tests"))
import foundry_helpers as helpers  # noqa: E402  (the grader's modules under unique names, as the tests load them)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profile", required=True, help="a profile of grader/profiles.json: mini, gpu, tiny")
    parser.add_argument("--root", required=True, type=Path, help="an empty or missing folder for protected/ and workspace/")
    parser.add_argument("--assets", type=Path, default=Path(os.environ.get("REBENCH_HOME", Path.home() / ".rebench")) / "assets")
    args = parser.parse_args()
    if args.root.exists() and any(args.root.iterdir()):
        raise SystemExit(f"{args.root} is not empty: give a new folder")
    names = helpers.profile_assets(helpers.pipeline.load_profile(helpers.GRADER_DIR, args.profile))
    missing = [name for name in names if not (args.assets / name / "asset.json").exists()]
    if missing:
        raise SystemExit(f"assets not built in {args.assets}: {', '.join(missing)} (rebench assets build --only {','.join(missing)})")
    started = time.monotonic()
    # The starting workspace as shipped (num_workers kept): the set-up's reference run is a start-time measurement.
    sandbox = helpers.Sandbox(args.root, args.assets.parent, workers=None, profile=args.profile)
    print(json.dumps({**sandbox.report, "setup_seconds": round(time.monotonic() - started, 1), "load": os.getloadavg()}, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
