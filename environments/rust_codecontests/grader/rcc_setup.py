"""Set-up before the agent starts: place the built data, start the validation model service, tell the agent where
it is.

Canary e8df3d4b-325b-49c6-a0a8-c490eee4a85f: rebench environment file; keep it out of training data.

Run as the grader user (or as root with --user grader), from the protected dir:

    python grader/rcc_setup.py [--variant mini] [--build BUILD_DIR] [--user grader]

 * with --build, copies BUILD_DIR/workspace/* into $REBENCH_WORKSPACE and BUILD_DIR/protected/* into
   $REBENCH_PROTECTED (files already there are kept);
 * starts rcc_model_service.py as a daemon answering for the validation split only (paper: a proxy to the real
   endpoint, see rcc_paper.py), with one API key for the agent and the variant's whole-run credit budget; its tables, keys, ledger and usage log stay in
   $REBENCH_PROTECTED/service (mode 0700), its process id in service.pid. Running it again reuses a live service;
 * writes $REBENCH_WORKSPACE/model_endpoint.json ({"base_url", "api_key", "model"}) and api_key.txt for the agent.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from rcc_variants import VARIANTS  # noqa: E402


def overlay(src: Path, dst: Path) -> None:
    for path in sorted(src.rglob("*")):
        target = dst / path.relative_to(src)
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        elif not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)


def alive(base_url: str) -> bool:
    try:
        with urllib.request.urlopen(base_url.rsplit("/v1", 1)[0] + "/health", timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


def start_service(protected: Path, variant: str, user: str | None, proxy: bool = False) -> dict[str, str]:
    """Start (or find) the validation service; returns {base_url, api_key}."""
    state = protected / "service"
    state.mkdir(parents=True, exist_ok=True)
    os.chmod(state, 0o700)
    keys_path, endpoint_path = state / "keys.json", state / "endpoint"
    if keys_path.exists() and endpoint_path.exists():
        base_url = endpoint_path.read_text().strip()
        api_key = next(iter(json.loads(keys_path.read_text())["keys"]))
        if alive(base_url):
            return {"base_url": base_url, "api_key": api_key}
    config = VARIANTS[variant]
    api_key = next(iter(json.loads(keys_path.read_text())["keys"])) if keys_path.exists() else (
        "sk-rcc-agent-" + secrets.token_hex(16))
    budget = config.agent_budget_usd if config.agent_budget_usd is not None else 1e9
    keys_path.write_text(json.dumps({"keys": {api_key: {"budget_usd": budget, "splits": ["valid"], "label": "agent"}}}))
    os.chmod(keys_path, 0o600)
    endpoint_path.unlink(missing_ok=True)
    prefix = ["setpriv", f"--reuid={user}", f"--regid={user}", "--init-groups"] if user else []
    if user:
        shutil.chown(state, user, user)
        shutil.chown(keys_path, user, user)
    source = ["--proxy"] if proxy else ["--tables", str(protected / "model" / "valid.json.gz")]
    argv = [*prefix, sys.executable, str(HERE / "rcc_model_service.py"), *source, "--keys", str(keys_path),
            "--state-dir", str(state), "--port-file", str(endpoint_path)]
    log = open(state / "service.log", "ab")
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
                            close_fds=True)
    (state / "service.pid").write_text(f"{proc.pid}\n")
    for _ in range(200):
        if endpoint_path.exists():
            return {"base_url": endpoint_path.read_text().strip(), "api_key": api_key}
        time.sleep(0.05)
    raise SystemExit(f"the model service did not start: see {state / 'service.log'}")


def write_endpoint(workspace: Path, info: dict[str, str], model: str) -> None:
    (workspace / "model_endpoint.json").write_text(json.dumps({**info, "model": model}, indent=1) + "\n")
    (workspace / "api_key.txt").write_text(info["api_key"] + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", default=os.environ.get("REBENCH_VARIANT", "mini"), choices=sorted(VARIANTS))
    parser.add_argument("--protected", type=Path, default=Path(os.environ.get("REBENCH_PROTECTED", os.getcwd())))
    parser.add_argument("--workspace", type=Path, default=Path(os.environ.get("REBENCH_WORKSPACE", ".")))
    parser.add_argument("--build", type=Path, default=None)
    parser.add_argument("--user", default=None, help="run the service as this user (when started as root)")
    args = parser.parse_args(argv)
    if args.build:
        overlay(args.build / "workspace", args.workspace)
        overlay(args.build / "protected", args.protected)
    proxy = VARIANTS[args.variant].problems_source != "archive"  # paper: a proxy to the real endpoint
    info = start_service(args.protected, args.variant, args.user, proxy)
    write_endpoint(args.workspace, info, VARIANTS[args.variant].model)
    print(f"model service for the validation split at {info['base_url']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
