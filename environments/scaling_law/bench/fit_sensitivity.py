"""How much the reference's score moves when its experiments' losses move by a little (noise the size of what
a different CPU's kernels make of a short training run).

    python3 environments/scaling_law/bench/fit_sensitivity.py TABLE [N] [EPS,...]

TABLE: the reference's printout (``rebench runs show RUN --events`` of a reference run, its ``fit_scaling.py``
step); keep it out of the repository, since with the scores it gives the optimum away. Reads the table the reference prints (``fit_scaling.py``: one ``n_embd W max_iters I val_loss L`` line per
experiment), refits it as the reference does (its ``fit``, its choice of width on the target's iso-FLOP line)
after multiplying each loss by ``1 + eps * z`` (z standard normal, N draws, seed 0), and grades each answer on
the hidden mini sweep: mean, std and range of the score, and the widths answered. Needs the reference unpacked
(``reference/unpack.py``) and the grader's files; it reads the hidden sweep, so it is for maintainers.

Canary a99505a7-4586-4226-b19e-e5b4a1e41660: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "grader"))
sys.path.insert(0, str(HERE.parents[2] / "python"))
import ground_truth  # noqa: E402
import train as training  # noqa: E402

sys.path.insert(0, str(HERE.parent / "reference"))
import unpack  # noqa: E402

sys.modules["train"] = training
sys.path.insert(0, str(unpack.unpack(tempfile.mkdtemp(prefix="scaling-law-reference-"))))
import fit_scaling as reference  # noqa: E402

SETTING = training.SETTINGS["mini"]
TOKENS_PER_ITER = SETTING.batch_size * SETTING.block_size


def answer(rows: list[tuple[int, int, float]], losses: list[float], sweep: ground_truth.Sweep) -> tuple[int, float]:
    """(width answered, score) of the reference's fit of ``losses``."""
    n = np.array([reference.params(SETTING, w) for w, _, _ in rows], float)
    d = np.array([i * TOKENS_PER_ITER for _, i, _ in rows], float)
    e, a, alpha, b, beta = reference.fit(n, d, np.array(losses))
    explored = [w for w, _, _ in rows]
    widths = np.arange(max(SETTING.n_head, min(explored) // 2), int(max(explored) * 8) + 1, SETTING.n_head)
    iters = np.floor(SETTING.target_flops / np.array([training.flops(SETTING, int(w), 1) for w in widths]))
    widths, iters = widths[iters >= 1], iters[iters >= 1]
    predicted = e + a * np.array([reference.params(SETTING, int(w)) for w in widths]) ** -alpha + b * (iters * TOKENS_PER_ITER) ** -beta
    i = int(np.argmin(predicted))
    width, steps = int(widths[i]), int(iters[i])
    graded = ground_truth.grade(sweep, training.flops(SETTING, width, steps), width, steps, float(predicted[i]))
    return width, float(graded.score)


def main() -> None:
    text = Path(sys.argv[1]).read_text()
    draws = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    epsilons = [float(x) for x in (sys.argv[3] if len(sys.argv) > 3 else "1e-4,1e-3,5e-3,1e-2").split(",")]
    rows = [(int(w), int(i), float(v)) for w, i, v in re.findall(r"n_embd\s+(\d+) max_iters\s+(\d+)\s+val_loss (\S+)", text)]
    sweep = ground_truth.load_sweep("mini")
    base = [v for _, _, v in rows]
    width, score = answer(rows, base, sweep)
    print(f"{len(rows)} experiments; as printed: n_embd {width}, score {score:.4f}")
    rng = np.random.default_rng(0)
    for eps in epsilons:
        out = [answer(rows, [v * (1 + eps * rng.standard_normal()) for v in base], sweep) for _ in range(draws)]
        scores = np.array([s for _, s in out])
        print(f"eps {eps:g}: score {scores.mean():.4f} +- {scores.std():.4f} ({scores.min():.4f} to {scores.max():.4f}); "
              f"widths {sorted({w for w, _ in out})}")


if __name__ == "__main__":
    main()
