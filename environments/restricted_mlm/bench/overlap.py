"""How much of an evaluation window another window of the same call (or of the same batch) also holds.

    PYTHONPATH=python python3 environments/restricted_mlm/bench/overlap.py --profile mini --seeds 200 \
        --tokens ~/.rebench/assets/tokens-bpe4k/val.bin [--out overlap-mini.json]

Draws the windows of a scoring call exactly as ``grader/score.py`` does (``eval_windows``: the profile's
``batches x batch_size`` windows of ``seq_len`` tokens at random starts of the hidden split), for ``--seeds``
window seeds (a run's seed comes from its environment secret, so each seed stands for one run), and counts:

- ``pairs_per_call``: pairs of windows of one batch whose spans of the hidden split overlap (``|s - t| < seq_len``);
- ``batches_with_overlap``: the share of batches with at least one such pair;
- ``extra_passes_per_call``: the passes the grader runs beyond one a batch (``overlap_passes``) to keep such
  windows apart, what the separation costs;
- ``positions_in_batch``: the share of window positions whose token another window of the same batch also
  holds at the same place of the split: a masked position there can be read off the other window where that
  copy is unmasked (85% of the time), the channel a model that looks across its batch can use;
- ``positions_in_call``: the same over all windows of the call: what a graph that reads the whole evaluation
  tensor (not only its batch) could copy, the channel the grader closed by giving each batch its own storage;
- ``content_in_batch``: the share of positions (with ``--context`` tokens on each side inside the window) whose
  token and context occur in another window of the same batch at another place of the split: repeated
  text (licences, boilerplate, runs of spaces), which any model may also learn from the training split;
  ``content_in_batch_varied``: those whose tokens there are more than a run of one or two ids.

Each is given as the mean over seeds and the largest seen. Measured for README.md ("Windows that overlap").

Canary 16ff82f0-58a9-4f41-9f1d-e58252fd5f1f: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
from pathlib import Path
from typing import Any

import numpy as np

GRADER = Path(__file__).resolve().parents[1] / "grader"


def grader_score() -> Any:
    spec = importlib.util.spec_from_file_location("restricted_mlm_score", GRADER / "score.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def covered(starts: list[int], seq_len: int) -> np.ndarray:
    """[len(starts), seq_len]: True where another window of ``starts`` holds the same position of the split."""
    out = np.zeros((len(starts), seq_len), dtype=bool)
    order = sorted(range(len(starts)), key=lambda i: starts[i])
    for a_pos, a in enumerate(order):
        for b in order[a_pos + 1 :]:
            d = starts[b] - starts[a]
            if d >= seq_len:
                break
            out[a, d:] = True
            out[b, : seq_len - d] = True
    return out


def overlapping_pairs(starts: list[int], seq_len: int) -> int:
    s = sorted(starts)
    return sum(1 for i in range(len(s)) for j in range(i + 1, len(s)) if s[j] - s[i] < seq_len)


def repeated_content(windows: np.ndarray, starts: list[int], context: int) -> tuple[int, int, int]:
    """(positions whose token and ±context tokens occur in another window at another place, those of them whose
    tokens there are not a run of one or two ids (spaces, indentation), positions counted)."""
    seen: dict[bytes, set[int]] = {}
    keys: list[list[tuple[bytes, int]]] = []
    for w, row in enumerate(windows):
        mine = []
        for p in range(context, len(row) - context):
            key = row[p - context : p + context + 1].tobytes()
            mine.append((key, starts[w] + p))
            seen.setdefault(key, set()).add(starts[w] + p)
        keys.append(mine)
    hits = [key for mine in keys for key, where in mine if len(seen[key] - {where}) > 0]
    varied = sum(1 for key in hits if len(set(np.frombuffer(key, dtype=windows.dtype).tolist())) > 2)
    return len(hits), varied, sum(len(mine) for mine in keys)


def measure(tokens: np.ndarray, profile: dict[str, Any], seeds: int, context: int, score: Any) -> dict[str, Any]:
    ev, seq_len = profile["eval"], profile["seq_len"]
    batch, count = ev["batch_size"], ev["batches"] * ev["batch_size"]
    rows: list[dict[str, float]] = []
    for seed in range(seeds):
        windows_t, starts = score.eval_windows(tokens, count, seq_len, seed)  # the grader's own draw
        windows = windows_t.numpy()
        pairs = batches_hit = extra = in_batch = content_hits = content_varied = content_all = 0
        for i in range(0, count, batch):
            group = starts[i : i + batch]
            n = overlapping_pairs(group, seq_len)
            pairs += n
            batches_hit += n > 0
            extra += len(score.overlap_passes(group, seq_len)) - 1
            in_batch += int(covered(group, seq_len).sum())
            hits, varied, total = repeated_content(windows[i : i + batch], group, context)
            content_hits += hits
            content_varied += varied
            content_all += total
        rows.append(
            {
                "pairs_per_call": pairs,
                "batches_with_overlap": batches_hit / ev["batches"],
                "extra_passes_per_call": extra,
                "positions_in_batch": in_batch / (count * seq_len),
                "positions_in_call": float(covered(starts, seq_len).mean()),
                "content_in_batch": content_hits / content_all,
                "content_in_batch_varied": content_varied / content_all,
            }
        )
    summary = {key: {"mean": statistics.fmean(r[key] for r in rows), "max": max(r[key] for r in rows)} for key in rows[0]}
    return {"split_tokens": int(len(tokens)), "windows": count, "batch_size": batch, "seq_len": seq_len, "seeds": seeds, "context": context, **summary}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profile", required=True, help="a profile of grader/profiles.json (mini, gpu)")
    parser.add_argument("--tokens", required=True, help="the hidden split: the profile's token asset's val.bin")
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--context", type=int, default=4, help="tokens on each side that must match for repeated content")
    parser.add_argument("--out", help="also write the result as JSON here")
    args = parser.parse_args()
    score = grader_score()
    profile = json.loads((GRADER / "profiles.json").read_text())["profiles"][args.profile]
    tokens = score.read_tokens(args.tokens)
    result = {"profile": args.profile, **measure(tokens, profile, args.seeds, args.context, score)}
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    sys.exit(main())
