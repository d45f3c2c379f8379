import pytest
import torch

from rebench_env.gpt import GPT, GPTConfig, load_gpt, save_gpt

CONFIG = GPTConfig(block_size=16, vocab_size=64, n_layer=2, n_head=2, n_embd=16)


def test_forward_gives_logits_and_loss():
    torch.manual_seed(0)
    model = GPT(CONFIG)
    x = torch.randint(0, 64, (3, 16))
    logits, loss = model(x, x)
    assert logits.shape == (3, 16, 64)
    assert loss is not None and abs(loss.item() - torch.log(torch.tensor(64.0)).item()) < 0.5


def test_embedding_is_tied_to_the_output_head():
    model = GPT(CONFIG)
    assert model.transformer.wte.weight is model.lm_head.weight


def test_checkpoint_round_trips_with_config_and_strict_load(tmp_path):
    torch.manual_seed(0)
    model = GPT(CONFIG).eval()
    path = tmp_path / "model.pt"
    save_gpt(model, path)
    state = torch.load(path, weights_only=True)
    assert state["config"] == CONFIG.to_dict()
    assert "transformer.wte.weight" in state and "lm_head.weight" in state
    loaded = load_gpt(path).eval()
    x = torch.randint(0, 64, (2, 16))
    assert torch.equal(model(x)[0], loaded(x)[0])
    # what a grader does: drop "config" and strict-load into its own copy of the architecture
    state.pop("config")
    GPT(CONFIG).load_state_dict(state, strict=True)


def test_strict_load_refuses_another_architecture(tmp_path):
    path = tmp_path / "model.pt"
    save_gpt(GPT(CONFIG), path)
    state = torch.load(path, weights_only=True)
    state.pop("config")
    other = GPT(GPTConfig(block_size=16, vocab_size=64, n_layer=3, n_head=2, n_embd=16))
    with pytest.raises(RuntimeError):
        other.load_state_dict(state, strict=True)


def test_from_state_dict_needs_a_config():
    state = dict(GPT(CONFIG).state_dict())
    with pytest.raises(ValueError, match="config"):
        GPT.from_state_dict(state)
    with pytest.raises(ValueError, match="unknown GPTConfig fields"):
        GPT.from_state_dict({**state, "config": {**CONFIG.to_dict(), "n_kv_head": 1}})


def test_generate_appends_tokens_and_greedy_is_repeatable():
    torch.manual_seed(0)
    model = GPT(CONFIG).eval()
    start = torch.zeros((2, 1), dtype=torch.long)
    a = model.generate(start, 20, temperature=0)
    b = model.generate(start, 20, temperature=0)
    assert a.shape == (2, 21) and torch.equal(a, b)
    sampled = model.generate(start, 5, temperature=1.0, top_k=5, generator=torch.Generator().manual_seed(1))
    assert sampled.shape == (2, 6)
