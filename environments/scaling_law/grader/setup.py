"""Set-up of a scaling_law sandbox (run by rebench as root before the agent starts).

    python3 grader/setup.py --variant mini

1. Copies the grader's ``train.py`` into the workspace (owned by the agent: the code the launcher runs,
   to read; the launcher keeps its own copy).
2. ``paper`` only: prepares OpenWebText into ``data/openwebtext`` (``prepare_openwebtext.py``; needs the
   network and the ``datasets`` package, as the original's ``start()``).
3. Starts the experiment launcher as the grader user and waits until it answers.

Canary a99505a7-4586-4226-b19e-e5b4a1e41660: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import launcher_control  # noqa: E402
import train as training  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", default=os.environ.get("REBENCH_VARIANT", "mini"), choices=sorted(training.SETTINGS))
    parser.add_argument("--workspace", default=os.environ.get("REBENCH_WORKSPACE", "/home/agent/workspace"))
    parser.add_argument("--protected", default=os.environ.get("REBENCH_PROTECTED", str(HERE.parent)))
    parser.add_argument("--devices", help="launcher slots, e.g. cuda:0,cuda:1 (default: one per GPU, or 2 CPU slots)")
    args = parser.parse_args()

    workspace = Path(args.workspace)
    target = workspace / "train.py"
    shutil.copyfile(HERE / "train.py", target)
    owner = workspace.stat()
    if os.geteuid() == 0:
        os.chown(target, owner.st_uid, owner.st_gid)
    target.chmod(0o644)

    paths = launcher_control.Paths.of(Path(args.protected), args.variant)
    if args.variant == "paper" and not (paths.data / "train.bin").exists():
        import prepare_openwebtext

        prepare_openwebtext.prepare(paths.data)
    if not (paths.data / "train.bin").exists():
        print(f"setup: no token files in {paths.data}: build the asset with `rebench assets build --only "
              f"{training.SETTINGS[args.variant].data}`", file=sys.stderr)  # fmt: skip
        return 1
    state = launcher_control.start(paths, args.variant, args.devices)
    print(f"setup: launcher ready ({state})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
