"""Stand-ins of the paper variant's tests (a module of its own name, not conftest.py): gpt2-xl and gpt2-alpaca as tiny
random GPT2LMHeadModels saved with ``save_pretrained`` (with a small byte-level BPE) under a temporary
``$REBENCH_HF_MODELS``, Alpaca as rows in its format, the judge as the local stand-in endpoint of
test_finetune_gpt2_qa_openai_judge.py, and ``PaperBox``: a protected directory and workspace as rebench lays them out
for paper, with what paper-inputs.ts stages. The fixtures are imported by the test modules that use them.

Canary dcc63ee1-bf38-4ac8-8730-70e6939b4951: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import threading
import types
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest
import torch
from gpt2_qa_helpers import ENV_DIR, GRADER_DIR
from test_finetune_gpt2_qa_openai_judge import StandIn

import paper

transformers = pytest.importorskip("transformers")

KEY = "sk-paper-standin-5f0c"
TEXTS = [
    "Below is an instruction that describes a task. Write a response that appropriately completes the request.",
    "### Instruction:\nName a primary colour.\n\n### Input:\nThe sky.\n\n### Response:\nBlue is the colour of the sky.",
    "The quick brown fox jumps over the lazy dog. 0123456789 Alpaca llama answer question word.",
]


def standin_tokenizer() -> Any:
    """A byte-level BPE of 300 tokens with GPT-2's end-of-text, as a transformers fast tokenizer."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=300, special_tokens=["<|endoftext|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)  # fmt: skip
    bpe.train_from_iterator(TEXTS * 4, trainer)
    eot = "<|endoftext|>"
    return transformers.PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token=eot, bos_token=eot, unk_token=eot)


def standin_model(tok: Any, seed: int, n_embd: int = 32) -> Any:
    config = transformers.GPT2Config(vocab_size=len(tok), n_positions=128, n_layer=2, n_head=2, n_embd=n_embd,
                                     bos_token_id=tok.eos_token_id, eos_token_id=tok.eos_token_id)  # fmt: skip
    torch.manual_seed(seed)
    return transformers.GPT2LMHeadModel(config).eval()


def save_standin(folder: Path, tok: Any, seed: int, n_embd: int = 32) -> Any:
    model = standin_model(tok, seed, n_embd)
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return model


def alpaca(count: int, duplicate: tuple[int, int] | None = None) -> list[dict[str, str]]:
    """Rows in tatsu-lab/alpaca's format (``text`` filled from the template); row ``duplicate[0]`` repeats ``duplicate[1]``."""
    rows = []
    for i in range(count):
        j = duplicate[1] if duplicate and i == duplicate[0] else i
        instruction, extra, output = f"Name colour number {j}.", ("The sky." if j % 3 == 0 else ""), f"Answer {j}: blue."
        prompt = (paper.TEMPLATE_INPUT if extra else paper.TEMPLATE).format(instruction=instruction, input=extra)
        rows.append({"instruction": instruction, "input": extra, "output": output, "text": prompt + output})
    return rows


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def load_module(name: str, path: Path) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tok() -> Any:
    return standin_tokenizer()


@pytest.fixture(scope="module")
def hf_models(tmp_path_factory: pytest.TempPathFactory, tok: Any) -> Path:
    root = tmp_path_factory.mktemp("hf-models")
    save_standin(root / "gpt2-xl", tok, seed=1)
    save_standin(root / "vicgalle" / "gpt2-alpaca", tok, seed=2)
    return root


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), StandIn)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


class PaperBox:
    """A protected directory and workspace as rebench lays them out for paper, with what paper-inputs.ts stages."""

    def __init__(self, root: Path, hf_models: Path, endpoint: str, rows: list[dict[str, str]]) -> None:
        self.root, self.protected, self.workspace = root, root / "protected", root / "workspace"
        (self.protected / ".rebench").mkdir(parents=True)
        (self.protected / ".rebench" / "secret.json").write_text(json.dumps({"secret": os.urandom(32).hex()}))
        shutil.copytree(GRADER_DIR, self.protected / "grader", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(ENV_DIR / "workspace", self.workspace, ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(ENV_DIR / "workspace_paper", self.workspace, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
        inputs = self.protected / paper.PAPER_INPUTS
        (inputs / "hf-models" / "vicgalle").mkdir(parents=True)
        shutil.copytree(hf_models / "vicgalle" / "gpt2-alpaca", inputs / "hf-models" / "vicgalle" / "gpt2-alpaca")
        write_jsonl(self.protected / paper.ALPACA_STAGED, rows)
        judge = {"base_url": endpoint, "model": "meta-llama/Meta-Llama-3-8B-Instruct", "key_file": "judge_key"}
        (inputs / "judge.json").write_text(json.dumps(judge))
        (inputs / "judge_key").write_text(KEY + "\n")
        models = root / "mounted-models"  # the read-only mount of gpt2-xl only
        shutil.copytree(hf_models / "gpt2-xl", models / "gpt2-xl")
        self.socket = str(root / "judge.sock")
        self.env = {**os.environ, "REBENCH_GPT2_QA_JUDGE": self.socket, "REBENCH_AS_AGENT_UNSANDBOXED": "1",
                    "REBENCH_PROTECTED": str(self.protected), "REBENCH_HF_MODELS": str(models)}  # fmt: skip
        self.env.pop(paper.ALPACA_ENV, None)
        self.calls = 0
        self.log = ""

    def setup(self) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "grader/paper_setup.py", "--profile", "paper-tiny", "--workspace", str(self.workspace)]
        done = subprocess.run(argv, cwd=self.protected, env=self.env, capture_output=True, text=True, timeout=600)
        self.log = done.stderr
        return done

    def score(self, task: str = "main") -> dict[str, Any]:
        result = self.root / f"result-{self.calls}.json"
        self.calls += 1
        env = {**self.env, "REBENCH_WORKSPACE": str(self.workspace), "REBENCH_TASK": task, "REBENCH_RESULT": str(result)}
        run = subprocess.run([sys.executable, "grader/paper_score.py"], cwd=self.protected, env=env, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr
        return json.loads(result.read_text())

    def stop_judge(self) -> None:
        for line in (self.protected / "judge" / "calls.jsonl").read_text().splitlines():
            event = json.loads(line)
            if event.get("event") == "started":
                try:
                    os.kill(int(event["pid"]), 15)
                except ProcessLookupError:
                    pass
