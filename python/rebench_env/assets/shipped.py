"""Assets shipped in the repository: built once where they can be built (a GPU), installed everywhere.

Every other asset is built on the machine that uses it. A few cannot be: finetune_gpt2_qa's mini policy
(``mini-chat``) is a 12M-parameter GPT pretrained on 82M tokens, about 3 minutes on an H200 and about 11
hours on the 2-core machines ``mini`` runs on, and no smaller policy answers the environment's instructions
(its README, "Policy probe"). Such an asset has two catalog rows:

- the **recipe**, an ordinary asset (``mini-chat-build``: a ``ModelSpec`` on ``device="cuda"``) that anyone
  with a GPU builds with ``rebench assets build --only mini-chat-build``;
- the **shipped** asset (``ShippedSpec``), a copy of one build of the recipe in
  ``python/rebench_env/assets/shipped/<folder>/``, which ``rebench assets build`` installs on any machine
  in a second: it checks every file against ``manifest.json``'s sha256 and writes the files an asset of
  that kind has (``model.pt``, the tokenizer's ``meta.json`` and ``tokenizer.json``).

The weights travel as int8 with one scale per row (``quantize``): 12 MB instead of 49 MB of fp32. The
shipped policy *is* the dequantized model (``dequantize`` is exact arithmetic on the stored integers), so
every machine installs the same fp32 bytes; the recipe's own build differs from it by the rounding only.

    python -m rebench_env.assets.shipped export mini-chat [--home H] [--out DIR]   # after building the recipe
    python -m rebench_env.assets.shipped verify mini-chat

``export`` writes the shipped folder from the built recipe and its tokenizer (on the GPU machine, then
copied here and committed); the manifest records the recipe's key, inputs and training summary.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import torch

SHIPPED_DIR = Path(__file__).resolve().parent / "shipped"
MODEL_FILE = "model.q8.pt"
TOKENIZER_FILES = ("meta.json", "tokenizer.json")


@dataclass(frozen=True)
class ShippedSpec:
    folder: str
    """The folder under ``python/rebench_env/assets/shipped/``."""
    recipe: str
    """The catalog asset this is a build of (its provenance, not a dependency: it is never built here)."""
    tokenizer: str
    """The catalog asset of the tokenizer shipped beside the weights."""


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def quantize(state: dict[str, Any]) -> dict[str, Any]:
    """int8 weights with one fp32 scale per row for every 2-D float tensor; others as fp32.

    Tensors that share storage (the tied embedding and output head) are stored once, under the first name,
    and listed in ``"tied"``.
    """
    out: dict[str, Any] = {"config": state["config"], "tied": {}, "q": {}, "scale": {}, "plain": {}}
    seen: dict[int, str] = {}
    for name, tensor in state.items():
        if name == "config":
            continue
        pointer = tensor.untyped_storage().data_ptr()
        if pointer in seen and tensor.shape == state[seen[pointer]].shape:
            out["tied"][name] = seen[pointer]
            continue
        seen[pointer] = name
        t = tensor.detach().float().cpu()
        if t.ndim == 2:
            scale = t.abs().amax(dim=1, keepdim=True).clamp_min(1e-12) / 127.0
            out["q"][name] = torch.round(t / scale).clamp(-127, 127).to(torch.int8).contiguous()
            out["scale"][name] = scale.contiguous()
        else:
            out["plain"][name] = t.contiguous()
    return out


def dequantize(packed: dict[str, Any]) -> dict[str, Any]:
    """The fp32 checkpoint (``rebench_env.gpt``'s format, tied tensors sharing one storage again)."""
    state: dict[str, Any] = {}
    for name, q in packed["q"].items():
        state[name] = q.float() * packed["scale"][name]
    state.update(packed["plain"])
    for name, source in packed["tied"].items():
        state[name] = state[source]
    state["config"] = packed["config"]
    return state


def _root(root: Path | None) -> Path:
    return root if root is not None else SHIPPED_DIR


def manifest_of(spec: ShippedSpec, root: Path | None = None) -> dict[str, Any]:
    root = _root(root)
    path = root / spec.folder / "manifest.json"
    if not path.is_file():
        raise FileNotFoundError(
            f"shipped asset folder {root / spec.folder} has no manifest.json: build {spec.recipe} on a GPU and run "
            f"`python -m rebench_env.assets.shipped export {spec.folder}`"
        )
    return json.loads(path.read_text())


def verify(spec: ShippedSpec, root: Path | None = None) -> dict[str, Any]:
    """The manifest, after checking every shipped file's sha256 (ValueError naming the first that differs)."""
    root = _root(root)
    manifest = manifest_of(spec, root)
    for name, expected in manifest["files"].items():
        path = root / spec.folder / name
        if not path.is_file():
            raise ValueError(f"shipped asset {spec.folder}: {name} is missing (a clone without it?)")
        if _sha256(path) != expected["sha256"]:
            raise ValueError(f"shipped asset {spec.folder}: {name} does not match manifest.json's sha256 (a changed or truncated file)")
    return manifest


def install(spec: ShippedSpec, out_dir: Path, progress: Callable[[str], None], root: Path | None = None) -> dict[str, Any]:
    """Write the asset's files into ``out_dir`` (the store's temporary folder); returns its summary."""
    root = _root(root)
    manifest = verify(spec, root)
    folder = root / spec.folder
    packed = torch.load(folder / MODEL_FILE, map_location="cpu", weights_only=True)
    torch.save(dequantize(packed), out_dir / "model.pt")
    for name in TOKENIZER_FILES:
        shutil.copyfile(folder / name, out_dir / name)
    progress(f"installed from {folder} (a build of {spec.recipe}, {manifest['recipe'].get('summary', {}).get('device', '?')})")
    return {"shipped": spec.folder, "recipe": spec.recipe, "recipe_key": manifest["recipe"]["key"], **manifest["recipe"].get("summary", {})}


def export(spec: ShippedSpec, recipe_dir: Path, tokenizer_dir: Path, out: Path) -> dict[str, Any]:
    """Write a shipped folder from a built recipe asset and its tokenizer asset; returns the manifest."""
    recipe = json.loads((recipe_dir / "asset.json").read_text())
    tokenizer = json.loads((tokenizer_dir / "asset.json").read_text())
    out.mkdir(parents=True, exist_ok=True)
    state = torch.load(recipe_dir / "model.pt", map_location="cpu", weights_only=True)
    torch.save(quantize(state), out / MODEL_FILE)
    for name in TOKENIZER_FILES:
        shutil.copyfile(tokenizer_dir / name, out / name)
    names = [MODEL_FILE, *TOKENIZER_FILES]
    manifest = {
        "asset": spec.folder,
        "files": {n: {"bytes": (out / n).stat().st_size, "sha256": _sha256(out / n)} for n in names},
        "weights": "int8 per row with an fp32 scale (rebench_env.assets.shipped.quantize); installed dequantized",
        "recipe": {k: recipe.get(k) for k in ("name", "key", "inputs", "summary", "builtAt", "buildSeconds")},
        "tokenizer": {k: tokenizer.get(k) for k in ("name", "key", "inputs", "builtAt")},
        "source_losses": json.loads((recipe_dir / "losses.json").read_text()) if (recipe_dir / "losses.json").is_file() else None,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return manifest


def main(argv: list[str] | None = None) -> int:
    # Run as ``python -m``, this file is ``__main__``: its classes are not the catalog's, so use the module's.
    from rebench_env.assets import asset_path
    from rebench_env.assets import shipped as this
    from rebench_env.assets.catalog import ASSETS

    parser = argparse.ArgumentParser(prog="python -m rebench_env.assets.shipped", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    e = sub.add_parser("export", help="write the shipped folder from the built recipe")
    e.add_argument("name")
    e.add_argument("--home", help="rebench home holding the built recipe (default $REBENCH_HOME or ~/.rebench)")
    e.add_argument("--out", type=Path, help="folder to write (default: the repository's shipped/<folder>)")
    v = sub.add_parser("verify", help="check the shipped files against the manifest")
    v.add_argument("name")
    args = parser.parse_args(argv)
    asset = ASSETS.get(args.name)
    if asset is None or not isinstance(asset.spec, this.ShippedSpec):
        shipped = [a.name for a in ASSETS.values() if isinstance(a.spec, this.ShippedSpec)]
        parser.error(f"{args.name!r} is not a shipped asset (shipped: {', '.join(shipped)})")
    spec = asset.spec
    if args.command == "export":
        out = args.out or this.SHIPPED_DIR / spec.folder
        manifest = this.export(spec, asset_path(spec.recipe, args.home), asset_path(spec.tokenizer, args.home), out)
        print(json.dumps({"out": str(out), "files": manifest["files"]}, indent=1))
    else:
        manifest = this.verify(spec)
        print(json.dumps({"ok": True, "files": manifest["files"]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
