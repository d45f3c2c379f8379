"""The starting solution's score at every set-up in some run stores: its spread across set-ups.

    python3 environments/finetune_gpt2_qa/bench/start_spread.py \
        environments/finetune_gpt2_qa/bench/mini-calibration/runs.db environments/finetune_gpt2_qa/bench/mini-exploits/runs.db

Every finetune_gpt2_qa run scores the starting solution at its set-up and logs it first (``logsStartingScore``),
whatever the run does next: a calibration's reference runs and an exploit's runs are set-ups of the start as
much as its start runs are. Prints one line a run (the start's score and its two win rates, and the run's
final score, the highest it registered) and the mean ± std of the starts per store and over all of them.
Reads SQLite stores (``rebench calibrate --db``, ``rebench exploits --db``) with the standard library only.

Canary dcc63ee1-bf38-4ac8-8730-70e6939b4951: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import json
import sqlite3
import statistics
import sys


def starts(db: str) -> list[dict]:
    """The start's logged score of every run in the store that has one, in run order."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        rows = conn.execute("SELECT run_id, payload FROM run_events WHERE type = 'score_logged' ORDER BY run_id, seq").fetchall()
    runs: dict[str, list[dict]] = {}
    for run_id, payload in rows:
        runs.setdefault(run_id, []).append(json.loads(payload))
    out = []
    for run_id, events in runs.items():
        first = events[0]
        if first.get("trigger") != "start" or first["entry"]["outcome"]["kind"] != "scored":
            continue
        scored = [e["entry"]["outcome"]["value"] for e in events if e["entry"]["outcome"]["kind"] == "scored"]
        rates = first["entry"].get("details", {}).get("win_rates", {})
        out.append({
            "run": run_id,
            "start": first["entry"]["outcome"]["value"],
            "vs_base": rates.get("base"),
            "vs_supervised": rates.get("supervised"),
            "final": max(scored),
        })  # fmt: skip
    return out


def summary(values: list[float]) -> str:
    if len(values) < 2:
        return f"n {len(values)}"
    return f"n {len(values)}, mean {statistics.mean(values):.4f} ± {statistics.stdev(values):.4f}, {min(values):.4f} to {max(values):.4f}"


def main(dbs: list[str]) -> int:
    if not dbs:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    everything: list[float] = []
    for db in dbs:
        rows = starts(db)
        print(db)
        for r in rows:
            rates = "" if r["vs_base"] is None else f"  vs base {r['vs_base']:.4f}, vs supervised {r['vs_supervised']:.4f}"
            print(f"  {r['run']}  start {r['start']:.4f}{rates}  final {r['final']:.4f}")
        values = [r["start"] for r in rows]
        print(f"  starts: {summary(values)}")
        everything += values
    if len(dbs) > 1:
        print(f"all starts: {summary(everything)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
