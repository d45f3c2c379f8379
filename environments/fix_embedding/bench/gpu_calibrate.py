"""One calibration run of fix_embedding outside rebench: what `rebench calibrate` does, for machines without Node.

    PYTHONPATH=python python3 environments/fix_embedding/bench/gpu_calibrate.py --profile gpu \
        --assets ASSETS_DIR --work WORK_DIR --out run.json [--deadline-seconds 540]

The lent GPU machine has no Node (rebench cannot run there) and rebench's sandboxes do not pass GPUs
through yet, so this script makes the steps of a calibration run itself, as root, with no sandbox:

1. lays out a protected directory (``grader/``, the profile's assets linked under ``assets/<name>`` from
   ASSETS_DIR, a store such as ``$REBENCH_HOME/assets``, and the environment secret
   ``.rebench/secret.json``, derived from the installation key as rebench derives it for
   ``fix_embedding``/``--variant``) and a workspace (a copy of ``workspace/``), as rebench stages them;
2. runs the set-up (``grader/setup.py``'s ``setup``: for ``gpu`` it pretrains the large model there, then
   permutes its embedding under a seed from ``os.urandom`` that this script never reads);
3. takes the starting score with the grader (``grader/score.py`` as a process with the REBENCH_* variables
   rebench sets; the first call scores the corrupted model);
4. replays the reference (``reference/<profile>.actions.jsonl``: uploads from the unpacked reference
   archive, ``bash`` commands in the workspace, ``score`` calls through the grader, ``submit``).

A run gives both calibration numbers, from one set-up: the start is the starting score (what a start run's
final score is: its only valid call), the reference the minimum over the run's valid calls (the family's
aggregation). ``--out`` is rewritten after every step, so a run stopped by a time limit keeps what it did.
``--wait-assets`` waits for an asset that another process is still building (the small model, built on
another GPU while this run pretrains the large one). ``bench/calibration_entry.py`` turns several runs'
files into calibration.json's entry. ``--profile tiny --actions reference/mini.actions.jsonl`` tries it on
a CPU in seconds (tests/test_fix_embedding_calibrate.py).

Canary 3ee46a69-d686-429f-ab44-10670a28e35b: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ENV_DIR = Path(__file__).resolve().parents[1]
REPO = ENV_DIR.parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from gpu_start import load  # noqa: E402  (imports a script under a unique module name)


def machine_info() -> dict[str, Any]:
    """This machine as rebench's MachineInfo records it (src/core/machine.ts), less the rebench fields."""
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("model name")), platform.processor() or "unknown CPU")
    mem_kb = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal"))
    try:
        listed = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True, timeout=15).stdout
    except (OSError, subprocess.TimeoutExpired):
        listed = ""
    gpus = [g.strip() for g in listed.splitlines() if g.strip()]
    release = Path("/etc/os-release")
    pretty = next((line.split("=", 1)[1].strip('"') for line in release.read_text().splitlines() if line.startswith("PRETTY_NAME=")), "") if release.exists() else ""
    return {"cpuModel": " ".join(cpu.split()), "cores": len(os.sched_getaffinity(0)), "memoryGb": round(mem_kb / 2**20, 1),
            "gpu": gpus[0] if gpus else None, "gpuCount": len(gpus), "os": f"{platform.system()} {platform.release()}" + (f" ({pretty})" if pretty else "")}


class Run:
    """One run's folders, its record (``--out``), and its time budget."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.work = args.work
        self.protected, self.workspace = self.work / "protected", self.work / "workspace"
        self.deadline = time.time() + args.deadline_seconds
        self.record: dict[str, Any] = {"profile": args.profile, "actions": str(args.actions.relative_to(ENV_DIR)), "machine": machine_info(),
                                       "visible_gpus": os.environ.get("CUDA_VISIBLE_DEVICES"), "python": platform.python_version(),
                                       "started": now(), "steps": [], "scores": []}
        self.env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(REPO / "python"), os.environ.get("PYTHONPATH")) if p),
                    "PATH": os.pathsep.join((str(Path(sys.executable).parent), os.environ.get("PATH", "")))}  # python3: this one, as in the sandbox

    def left(self) -> float:
        return self.deadline - time.time()

    def save(self) -> None:
        tmp = self.args.out.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.record, indent=1) + "\n")
        os.replace(tmp, self.args.out)

    def step(self, name: str, seconds: float, **facts: Any) -> None:
        self.record["steps"].append({"step": name, "seconds": round(seconds, 1), **facts})
        print(f"[{name}] {round(seconds, 1)} s {json.dumps(facts)[:300]}", flush=True)
        self.save()

    def lay_out(self, profile: Any) -> None:
        shutil.copytree(ENV_DIR / "grader", self.protected / "grader", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(ENV_DIR / "workspace", self.workspace, ignore=shutil.ignore_patterns("__pycache__"))
        (self.protected / "assets").mkdir()
        from rebench_env.secrets import derived_secret

        variant = self.args.profile if self.args.profile in ("mini", "gpu", "paper") else "mini"  # tiny: the tests' mini
        secret = derived_secret(f"environment/fix_embedding/{variant}")  # what rebench writes (src/runs/materialize.ts)
        (self.protected / ".rebench").mkdir(mode=0o700)
        (self.protected / ".rebench" / "secret.json").write_text(json.dumps({"environment": "fix_embedding", "variant": variant, "secret": secret}) + "\n")
        os.chmod(self.protected / ".rebench" / "secret.json", 0o600)
        for source in (profile.tokens, profile.small, profile.large):
            if "asset" in source:  # a link: the set-up's rmtree of assets/ removes the link, not the store's copy
                (self.protected / "assets" / source["asset"]).symlink_to(self.args.assets.resolve() / source["asset"])

    def set_up(self, setup: Any, profile: Any) -> None:
        original = setup.model_checkpoint

        def waiting(source: dict[str, Any], assets: Path, tokens_dir: Path, scratch: Path) -> dict[str, Any]:
            if "asset" in source:
                wait_for(assets / source["asset"] / "model.pt", min(self.args.wait_assets, self.left()))
            return original(source, assets, tokens_dir, scratch)

        setup.model_checkpoint = waiting
        started = time.perf_counter()
        report = setup.setup(profile, self.protected, self.workspace)  # the seed: os.urandom, kept in state/, not read here
        self.step("setup", time.perf_counter() - started, pretrained=report.get("pretrained"), architecture=report["architecture"])

    def score(self, task: str = "main") -> dict[str, Any]:
        result = self.work / f"score-{len(self.record['scores']) + 1}.json"
        env = {**self.env, "REBENCH_WORKSPACE": str(self.workspace), "REBENCH_PROTECTED": str(self.protected), "REBENCH_TASK": task,
               "REBENCH_RESULT": str(result), "REBENCH_VARIANT": self.args.profile}
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "grader/score.py"], cwd=self.protected, env=env, capture_output=True, text=True,
                              timeout=max(10.0, min(self.args.score_timeout, self.left())))
        entry = json.loads(result.read_text()) if result.exists() else {"outcome": {"kind": "error", "message": f"no result file; exit {done.returncode}: {done.stderr[-2000:]}"}}
        entry["seconds"] = round(time.perf_counter() - started, 2)
        self.record["scores"].append(entry)
        self.step("score", entry["seconds"], outcome=entry["outcome"], message=entry.get("message"))
        return entry

    def replay(self, reference: Path) -> None:
        for line in self.args.actions.read_text().splitlines():
            if not line.strip():
                continue
            action = json.loads(line)
            tool, given = action["tool"], action.get("input", {})
            if tool == "upload":
                target = self.workspace / given["to"]
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(reference / given["from"], target)
                self.step("upload", 0, to=given["to"])
            elif tool == "bash":
                started = time.perf_counter()
                limit = max(1.0, min(float(given.get("timeoutSeconds", 600)), self.left() - self.args.score_reserve))
                try:
                    done = subprocess.run(["bash", "-c", given["command"]], cwd=self.workspace, env=self.env, capture_output=True, text=True, timeout=limit)
                    facts = {"exit": done.returncode, "output_tail": (done.stdout + done.stderr)[-3000:]}
                except subprocess.TimeoutExpired as expired:
                    facts = {"exit": None, "timed_out_after": round(limit), "output_tail": str(expired.stdout or "")[-3000:]}
                self.step("bash", time.perf_counter() - started, command=given["command"], **facts)
                if facts["exit"] != 0:
                    self.record["error"] = f"the reference command failed (exit {facts['exit']}): {given['command']}"
            elif tool == "score":
                self.score()
            elif tool == "submit":
                self.step("submit", 0, submission=given.get("submission", ""))
            else:
                raise ValueError(f"{self.args.actions}: action {tool!r} is not replayed by this script")

    def summarize(self) -> None:
        valid = [s["outcome"]["value"] for s in self.record["scores"] if s["outcome"]["kind"] == "scored"]
        first = self.record["scores"][0]["outcome"] if self.record["scores"] else None
        self.record["start"] = first["value"] if first and first["kind"] == "scored" else None
        self.record["reference"] = min(valid) if len(self.record["scores"]) > 1 and valid else None
        self.record["losses"] = [s.get("details", {}).get("losses") for s in self.record["scores"]]
        self.record["ended"] = now()
        self.save()


def now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")


def wait_for(path: Path, seconds: float) -> None:
    """Until ``path`` exists (an asset another process builds; the store swaps it in whole), or give up."""
    started = time.time()
    while not path.exists():
        if time.time() - started > seconds:
            raise TimeoutError(f"{path} did not appear within {seconds:.0f} s (is its asset being built?)")
        time.sleep(2)
    if time.time() - started > 2:
        print(f"waited {time.time() - started:.0f} s for {path}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profile", default="gpu")
    parser.add_argument("--assets", required=True, type=Path, help="folder holding the profile's assets by name (an asset store)")
    parser.add_argument("--work", required=True, type=Path, help="an empty or missing folder for this run's directories")
    parser.add_argument("--out", required=True, type=Path, help="the run's record (JSON)")
    parser.add_argument("--actions", type=Path, help="reference actions (default reference/<profile>.actions.jsonl)")
    parser.add_argument("--deadline-seconds", type=float, default=3600, help="the whole run's time; the reference's commands get what is left")
    parser.add_argument("--score-timeout", type=float, default=300, help="one grader call (rebench's timeouts.scoreSeconds)")
    parser.add_argument("--score-reserve", type=float, default=45, help="seconds kept for the grader calls after a command")
    parser.add_argument("--wait-assets", type=float, default=600, help="wait this long for an asset still being built")
    args = parser.parse_args()
    args.actions = (args.actions or ENV_DIR / "reference" / f"{args.profile}.actions.jsonl").resolve()
    args.work.mkdir(parents=True, exist_ok=True)
    if any(args.work.iterdir()):
        parser.error(f"--work {args.work} is not empty")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    setup = load("fix_embedding_setup", ENV_DIR / "grader" / "setup.py")
    unpack = load("fix_embedding_unpack", ENV_DIR / "reference" / "unpack.py")
    profile = setup.load_profile(ENV_DIR / "grader" / "profiles.json", args.profile)
    run = Run(args)
    try:
        import torch

        run.record["torch"] = torch.__version__
        run.lay_out(profile)
        run.set_up(setup, profile)
        run.score()  # the starting score: the corrupted model
        with tempfile.TemporaryDirectory() as tmp:
            run.replay(unpack.unpack(tmp))
    except Exception as error:  # keep what was done; say what broke
        run.record["error"] = f"{type(error).__name__}: {error}"
        print(f"run failed: {run.record['error']}", file=sys.stderr, flush=True)
    run.summarize()
    print(json.dumps({k: run.record.get(k) for k in ("start", "reference", "losses", "error")}))
    return 0 if run.record.get("reference") is not None and "error" not in run.record else 1


if __name__ == "__main__":
    raise SystemExit(main())
