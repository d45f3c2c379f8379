"""Start of a finetune_gpt2_qa run: prompts, references, the judge service and the starting solution.

Run by rebench as root before the agent starts, with the protected directory as working directory:

    python3 grader/setup.py --profile mini [--workspace /home/agent/workspace]

1. Generates the visible tasks (from the corpus's train split) and the hidden test tasks (from its hidden
   test split), each under a seed from the run's environment secret; keeps both with their answers in
   ``state/`` (grader only) and hands the agent ``prompts.jsonl`` (prompts, no answers).
2. Pre-generates the two references' responses to the hidden prompts: the base policy's, and a supervised
   model's (the base fine-tuned on the visible tasks' true answers, as upstream's gpt2-alpaca was on
   Alpaca's), into ``state/references/`` (grader only).
3. Hands out the base policy (``base_model/model.pt``), its tokenizer and ``elements.csv``; records the
   policy's architecture in ``state/grading.json``; deletes the staged policy and corpus.
4. Starts the judge service as the grader user (``judge_service.py``) and waits until it answers.
5. Runs the starting solution (``rl_finetune.py``) as the agent, which writes ``finetuned_model/``: the
   run's starting score is that model's.

Canary dcc63ee1-bf38-4ac8-8730-70e6939b4951: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import json
import os
import pwd
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import torch

from rebench_env.chat import GenerationSettings, sample, sft
from rebench_env.gpt import load_gpt
from rebench_env.secrets import environment_secret, environment_seed
from rebench_env.tokenizer import load_tokenizer

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import judge_service  # noqa: E402
import tasks as taskgen  # noqa: E402
from settings import PROFILES, Profile  # noqa: E402

REFERENCES = ("base", "supervised")


def log(line: str) -> None:
    print(f"[finetune_gpt2_qa setup] {line}", file=sys.stderr, flush=True)


def make_tasks(profile: Profile, protected: Path, assets: Path, state: Path) -> tuple[list[taskgen.Task], list[taskgen.Task]]:
    table = taskgen.elements()
    visible = taskgen.generate(profile.visible, environment_seed("prompts/visible", protected), taskgen.read_sources(assets / profile.corpus, "train"), table, "v")
    # Definitions, words and verses of the hidden split; an arithmetic or element question may also be a visible
    # one (there are few of them): it comes without its answer there too.
    hidden = taskgen.generate(profile.hidden, environment_seed("prompts/hidden", protected), taskgen.read_sources(assets / profile.corpus, "test"), table, "h")
    taskgen.write_tasks(visible, state / "visible_tasks.jsonl")
    taskgen.write_tasks(hidden, state / "hidden_tasks.jsonl")
    return visible, hidden


def make_references(profile: Profile, protected: Path, assets: Path, state: Path, visible: list[taskgen.Task], hidden: list[taskgen.Task]) -> dict[str, Any]:
    tok = load_tokenizer(assets / profile.tokenizer)
    settings = GenerationSettings(max_new_tokens=profile.max_new_tokens)
    prompts = [t.prompt for t in hidden]
    out = state / "references"
    out.mkdir(exist_ok=True)
    base = load_gpt(assets / profile.policy / "model.pt").to(profile.device)
    responses = {"base": sample(base, tok, prompts, settings, seed=environment_seed("references/base", protected), batch_size=profile.batch_size)}
    losses = sft(base, tok, [t.prompt for t in visible], [t.answer for t in visible], profile.sft_steps, lr=profile.sft_lr,
                 seed=environment_seed("references/sft", protected) % 2**31, log=log)  # fmt: skip
    responses["supervised"] = sample(base, tok, prompts, settings, seed=environment_seed("references/supervised", protected), batch_size=profile.batch_size)
    for name in REFERENCES:
        with open(out / f"{name}.jsonl", "w", encoding="utf-8") as f:
            for task, response in zip(hidden, responses[name]):
                f.write(json.dumps({"id": task.id, "response": response}) + "\n")
    return {"sft_final_loss": losses[-1] if losses else None}


def copy_tokenizer(asset: Path, dest: Path) -> None:
    """A tokenizer's own files (``meta.json`` and the file it names): mini's policy asset holds its tokenizer beside the weights."""
    dest.mkdir(exist_ok=True)
    for name in ("meta.json", json.loads((asset / "meta.json").read_text())["file"]):
        shutil.copyfile(asset / name, dest / name)


def chown_tree(root: Path, uid: int, gid: int) -> None:
    for path in [root, *root.rglob("*")]:
        os.lchown(path, uid, gid)


def start_judge(protected: Path, profile: Profile, timeout_s: float = 120.0) -> dict[str, Any]:
    """The rubric judge service (``judge_service.py``), detached, as the protected directory's owner; waits until it answers."""
    folder = protected / "judge"
    return start_service(protected, ["--state", str(protected / "state"), "--assets", str(protected / "assets"), "--lm", profile.lm,
                                     "--tokenizer", profile.judge_tokenizer, "--log", str(folder / "calls.jsonl"),
                                     "--budget", str(profile.budget), "--device", profile.device], timeout_s)  # fmt: skip


def start_service(protected: Path, args: list[str], timeout_s: float = 120.0) -> dict[str, Any]:
    """``judge_service.py ARGS`` on the run's socket, detached, as the protected directory's owner (mini's rubric,
    paper's endpoint); waits until it answers. Its output goes to ``judge/service.log``."""
    owner = protected.stat()
    folder = protected / "judge"
    folder.mkdir(mode=0o700, exist_ok=True)
    socket_path = os.environ.get("REBENCH_GPT2_QA_JUDGE", judge_service.SOCKET)
    argv = [sys.executable, str(HERE / "judge_service.py"), "--socket", socket_path, *args]
    switch: dict[str, Any] = {}
    if os.geteuid() == 0:
        os.chown(folder, owner.st_uid, owner.st_gid)
        if owner.st_uid != 0:
            switch = {"user": owner.st_uid, "group": owner.st_gid, "extra_groups": []}
    output = folder / "service.log"
    with open(output, "ab") as out:
        if os.geteuid() == 0:
            os.chown(output, owner.st_uid, owner.st_gid)
        child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, cwd=protected, start_new_session=True,
                                 env={**os.environ, "HOME": str(protected)}, umask=0o077, **switch)  # fmt: skip
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        pong = judge_service.ping(socket_path, timeout=2.0)
        if pong is not None:
            return {"pid": child.pid, **pong}
        if child.poll() is not None:
            break
        time.sleep(0.2)
    raise RuntimeError(f"the judge service did not start (exit {child.poll()}): {output.read_text(errors='replace')[-2000:]}")


def run_starting_solution(workspace: Path, profile: Profile) -> None:
    """``rl_finetune.py`` as the workspace's owner (the agent), as upstream's start() ran it."""
    owner = workspace.stat()
    switch: dict[str, Any] = {}
    env = {k: v for k, v in os.environ.items() if not k.startswith("REBENCH_") or k == "REBENCH_GPT2_QA_JUDGE"}
    if os.geteuid() == 0 and owner.st_uid != 0:
        switch = {"user": owner.st_uid, "group": owner.st_gid, "extra_groups": []}
        env["HOME"] = pwd.getpwuid(owner.st_uid).pw_dir
    argv = [sys.executable, "rl_finetune.py", "--steps", str(profile.start_steps), "--prompts", str(profile.start_prompts)]
    done = subprocess.run(argv, cwd=workspace, env=env, capture_output=True, text=True, **switch)
    log(done.stdout.strip()[-2000:])
    if done.returncode != 0:
        raise RuntimeError(f"the starting solution failed (exit {done.returncode}): {done.stderr[-3000:]}")


def setup(profile: Profile, protected: Path, workspace: Path, start: bool = True) -> dict[str, Any]:
    environment_secret(protected)  # raises when rebench did not write it: nothing could be keyed
    torch.set_num_threads(profile.threads)
    assets, state = protected / "assets", protected / "state"
    state.mkdir(exist_ok=True)
    visible, hidden = make_tasks(profile, protected, assets, state)
    log(f"{len(visible)} visible and {len(hidden)} hidden tasks")
    made = make_references(profile, protected, assets, state, visible, hidden)
    base = torch.load(assets / profile.policy / "model.pt", map_location="cpu", weights_only=True)
    grading = {"profile": profile.name, "architecture": base["config"], "max_new_tokens": profile.max_new_tokens, "hidden": len(hidden)}
    (state / "grading.json").write_text(json.dumps(grading, indent=1) + "\n")
    (workspace / "base_model").mkdir(exist_ok=True)
    shutil.copyfile(assets / profile.policy / "model.pt", workspace / "base_model" / "model.pt")
    copy_tokenizer(assets / profile.tokenizer, workspace / "tokenizer")
    shutil.copyfile(taskgen.ELEMENTS_CSV, workspace / "elements.csv")
    with open(workspace / "prompts.jsonl", "w", encoding="utf-8") as f:
        for t in visible:
            f.write(json.dumps({"id": t.id, "kind": t.kind, "instruction": t.instruction, "prompt": t.prompt}) + "\n")
    for name in (profile.policy, profile.corpus):
        if name not in (profile.lm, profile.tokenizer, profile.judge_tokenizer):
            shutil.rmtree(assets / name, ignore_errors=True)
    home = workspace.stat()
    chown_tree(workspace, home.st_uid, home.st_gid)
    owner = protected.stat()
    chown_tree(state, owner.st_uid, owner.st_gid)
    judge = start_judge(protected, profile)
    log(f"judge service ready ({judge})")
    if start:
        run_starting_solution(workspace, profile)
    return {"profile": profile.name, "visible": len(visible), "hidden": len(hidden), **made}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profile", required=True, choices=sorted(PROFILES))
    parser.add_argument("--workspace", default=os.environ.get("REBENCH_WORKSPACE", "/home/agent/workspace"))
    parser.add_argument("--protected", default=os.environ.get("REBENCH_PROTECTED", os.getcwd()))
    parser.add_argument("--no-start", action="store_true", help="do not run the starting solution (tests)")
    args = parser.parse_args()
    done = setup(PROFILES[args.profile], Path(args.protected), Path(args.workspace), start=not args.no_start)
    log(json.dumps(done))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
