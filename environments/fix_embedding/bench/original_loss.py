"""The original (unpermuted) models' losses on the grader's windows of this installation.

    PYTHONPATH=python .venv/bin/python environments/fix_embedding/bench/original_loss.py [--profile mini]

Reads the profile's built assets from ``$REBENCH_HOME/assets`` (the keyed ones of that home's installation
key), derives the environment secret the way rebench does for ``fix_embedding/<variant>`` and evaluates the
large and the small model as the grader would (the same windows, seeds ``environment_seed("eval")`` and
``"eval/train"``). Prints one line per model and the raw score ``ln(val - floor)``. Numbers in README.md
("The floor", "Calibration") come from it; ``REBENCH_HOME=... REBENCH_INSTALLATION_KEY=...`` measures
another installation.

Canary 3ee46a69-d686-429f-ab44-10670a28e35b: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

GRADER = Path(__file__).resolve().parents[1] / "grader"
sys.path.insert(0, str(GRADER))


def main() -> int:
    from profiles import load_profile

    from rebench_env.assets import require_asset
    from rebench_env.gpt import load_gpt
    from rebench_env.secrets import derived_secret, seed_from
    from rebench_env.tokens import read_tokens
    from rebench_env.train import configure_cpu_threads, evaluate_loss

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profile", default="mini")
    parser.add_argument("--variant", help="the variant whose environment secret to use (default: the profile's name)")
    args = parser.parse_args()
    profile = load_profile(GRADER / "profiles.json", args.profile)
    secret = derived_secret(f"environment/fix_embedding/{args.variant or args.profile}")
    configure_cpu_threads(profile.eval.get("threads", 1))
    tokens = require_asset(profile.tokens["asset"])
    ev = profile.eval
    result = {}
    for role in ("large", "small"):
        name = getattr(profile, role).get("asset")
        if name is None:
            continue
        model = load_gpt(require_asset(name) / "model.pt").to(ev["device"])
        losses = {split: evaluate_loss(model, read_tokens(tokens / f"{split}.bin"), ev["batches"], ev["batch_size"], model.config.block_size,
                                       seed_from(secret, "eval" if split == "val" else "eval/train"), device=ev["device"])
                  for split in ("val", "train")}  # fmt: skip
        result[name] = {**{k: round(v, 4) for k, v in losses.items()}, "raw": round(math.log(losses["val"] - profile.floor), 4)}
        print(f"{name:<12} val {losses['val']:.4f} train {losses['train']:.4f} raw ln(val - {profile.floor}) {result[name]['raw']:.4f}")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
