"""Whether a scaling_law experiment computes the same floats whatever kernels the CPU's dispatch would pick.

    python3 environments/scaling_law/bench/cpu_determinism.py      # a table: setting, weights' hash, loss

Trains a small attention-and-MLP model (the operations of the environment's GPT: embedding, linear layers,
layer norm, GELU, causal attention, cross-entropy, AdamW) for 300 steps on one thread, in a fresh process for
each way the CPU's kernels may be chosen: torch's dispatch (``ATEN_CPU_CAPABILITY``: AVX512 where the CPU has
it, AVX2 elsewhere) and MKL's instruction set. Without the launcher's ``REPRODUCIBLE_CPU_ENV`` the weights'
hash follows the path taken, which is what differs between an AMD EPYC and an Intel Xeon; with it, one hash
for every row. Run it on both kinds of machine: the pinned rows must give the same hash on both.

Canary a99505a7-4586-4226-b19e-e5b4a1e41660: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "grader"))
from launcher import REPRODUCIBLE_CPU_ENV  # noqa: E402

TRAIN = r"""
import hashlib, torch, torch.nn as nn, torch.nn.functional as F
torch.set_num_threads(1); torch.manual_seed(0)
V, D, T, B = 512, 48, 32, 8
class M(nn.Module):
    def __init__(s):
        super().__init__(); s.e = nn.Embedding(V, D); s.l1 = nn.Linear(D, 4 * D); s.l2 = nn.Linear(4 * D, D)
        s.n = nn.LayerNorm(D); s.q = nn.Linear(D, 3 * D); s.o = nn.Linear(D, V)
    def forward(s, x):
        h = s.e(x); q, k, v = s.q(s.n(h)).chunk(3, -1)
        h = h + F.scaled_dot_product_attention(q[:, None], k[:, None], v[:, None], is_causal=True)[:, 0]
        h = h + s.l2(F.gelu(s.l1(s.n(h)))); return s.o(s.n(h))
m = M(); opt = torch.optim.AdamW(m.parameters(), 1e-3); g = torch.Generator().manual_seed(1)
for step in range(300):
    x = torch.randint(0, V, (B, T + 1), generator=g)
    loss = F.cross_entropy(m(x[:, :-1]).reshape(-1, V), x[:, 1:].reshape(-1))
    opt.zero_grad(); loss.backward(); opt.step()
digest = hashlib.sha256(b"".join(p.detach().numpy().tobytes() for p in m.parameters())).hexdigest()[:12]
print(digest, repr(loss.item()), torch.backends.cpu.get_cpu_capability())
"""

DISPATCH = {"the CPU's own": {}, "torch AVX2": {"ATEN_CPU_CAPABILITY": "avx2"}, "MKL AVX2": {"MKL_ENABLE_INSTRUCTIONS": "AVX2"},
            "torch and MKL AVX2": {"ATEN_CPU_CAPABILITY": "avx2", "MKL_ENABLE_INSTRUCTIONS": "AVX2"}}


def main() -> None:
    model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    print(f"CPU: {model}")
    print(f"{'kernels':<22} {'pinned':<7} {'weights':<13} {'loss':<20} dispatch")
    for pinned in (False, True):
        for name, extra in DISPATCH.items():
            env = {k: v for k, v in os.environ.items() if k not in REPRODUCIBLE_CPU_ENV}
            env.update(extra)
            if pinned:
                env.update(REPRODUCIBLE_CPU_ENV)
            out = subprocess.run([sys.executable, "-c", TRAIN], env=env, capture_output=True, text=True, check=True).stdout.split()
            print(f"{name:<22} {'yes' if pinned else 'no':<7} {out[0]:<13} {out[1]:<20} {out[2]}")


if __name__ == "__main__":
    main()
