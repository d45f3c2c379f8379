"""How finely jailed code sets its own duration: the broker-measured seconds of N jailed ``sleep S`` calls.

    PYTHONPATH=python python3 environments/optimize_llm_foundry/bench/jail_jitter.py --calls 20 --sleep 2

A finetune.sh that read the hidden rows can stretch its run to encode them in the duration the agent sees
(``execution_time``, the score, the scoring call's length); the jitter of that duration bounds the bits a call
carries (README, "What the agent is told"). Runs the one-shot jail as the current user
(``REBENCH_AS_AGENT_UNSANDBOXED=1``), in an empty temporary workspace; prints min, max, spread and standard
deviation, and the machine's load.

Canary 9beb89d0-85e7-4d0b-96e4-e0cabdaa4553: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile

from rebench_env.agent_call import Jail, run_as_agent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--sleep", type=float, default=2.0)
    args = parser.parse_args()
    os.environ.pop("REBENCH_AS_AGENT", None)
    os.environ["REBENCH_AS_AGENT_UNSANDBOXED"] = "1"
    with tempfile.TemporaryDirectory(prefix="jail-jitter-") as workspace:
        os.environ["REBENCH_WORKSPACE"] = workspace
        seconds = []
        for _ in range(args.calls):
            result = run_as_agent(["sleep", str(args.sleep)], timeout_s=args.sleep + 30, cwd=workspace, jail=Jail())
            if not result.ok:
                raise SystemExit(f"the jailed call failed: {result}")
            seconds.append(result.duration_s)
    print(f"{len(seconds)} jailed `sleep {args.sleep:g}` calls: min {min(seconds):.4f} s, max {max(seconds):.4f} s, "
          f"spread {max(seconds) - min(seconds):.4f} s, std {statistics.stdev(seconds):.4f} s; load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
