import numpy as np
import torch

from rebench_env.gpt import GPT, GPTConfig
from rebench_env.train import TrainConfig, evaluate_loss, learning_rate_at, seed_everything, train

CONFIG = GPTConfig(block_size=16, vocab_size=32, n_layer=1, n_head=2, n_embd=16)
DATA = np.tile(np.arange(32, dtype=np.uint16), 200)  # a pattern a tiny model learns quickly


def run(precision="fp32", steps=60):
    seed_everything(0)
    model = GPT(CONFIG)
    log = train(model, DATA, TrainConfig(steps=steps, batch_size=8, learning_rate=1e-2, precision=precision,
                                         log_interval=10, eval_batches=2), CONFIG.block_size, val_data=DATA)
    return model, log


def test_training_lowers_the_loss_and_logs_it():
    model, log = run()
    assert [e["step"] for e in log.train] == [10, 20, 30, 40, 50, 60]
    assert log.train[-1]["loss"] < log.train[0]["loss"] - 1.0
    assert log.final_val_loss < 2.0


def test_cpu_training_is_bit_for_bit_repeatable():
    a, _ = run(steps=15)
    b, _ = run(steps=15)
    for (name, p), q in zip(a.state_dict().items(), b.state_dict().values()):
        assert torch.equal(p, q), name


def test_bf16_switch_runs_on_cpu():
    _, log = run(precision="bf16", steps=10)
    assert np.isfinite(log.final_train_loss)


def test_learning_rate_warms_up_then_decays_to_the_floor():
    config = TrainConfig(steps=100, batch_size=1, learning_rate=1.0, warmup_steps=10, min_lr_ratio=0.1)
    assert learning_rate_at(0, config) == 0.1
    assert learning_rate_at(9, config) == 1.0
    assert abs(learning_rate_at(100, config) - 0.1) < 1e-9
    assert learning_rate_at(50, config) < learning_rate_at(20, config)


def test_evaluation_uses_the_same_windows_for_the_same_seed():
    seed_everything(0)
    model = GPT(CONFIG)
    a = evaluate_loss(model, DATA, 3, 4, 16, seed=5)
    b = evaluate_loss(model, DATA, 3, 4, 16, seed=5)
    c = evaluate_loss(model, DATA, 3, 4, 16, seed=6)
    assert a == b and a != c
