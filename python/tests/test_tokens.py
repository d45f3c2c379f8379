import numpy as np
import pytest
import torch

from rebench_env.tokens import TokenBatches, random_batch, read_tokens, write_tokens


def test_token_file_is_flat_uint16(tmp_path):
    path = tmp_path / "train.bin"
    assert write_tokens(path, [1, 2, 65535]) == 3
    assert path.read_bytes() == np.array([1, 2, 65535], dtype="<u2").tobytes()
    data = read_tokens(path)
    assert data.dtype == np.uint16 and list(data) == [1, 2, 65535]


def test_ids_that_do_not_fit_are_refused(tmp_path):
    with pytest.raises(ValueError, match="uint16"):
        write_tokens(tmp_path / "x.bin", [0, 65536])


def test_batches_are_windows_with_shifted_targets(tmp_path):
    path = tmp_path / "t.bin"
    write_tokens(path, np.arange(1000) % 50000)
    data = read_tokens(path)
    x, y = random_batch(data, 4, 8, torch.Generator().manual_seed(0))
    assert x.shape == y.shape == (4, 8) and x.dtype == torch.int64
    assert torch.equal(x[:, 1:], y[:, :-1])
    assert torch.equal(y - x, torch.ones_like(x))  # consecutive ids: each target is the next token


def test_same_seed_same_batches():
    data = np.random.default_rng(0).integers(0, 100, 5000).astype(np.uint16)
    a = [next(iter(TokenBatches(data, 2, 16, seed=7)))[0] for _ in range(2)]
    stream = TokenBatches(data, 2, 16, seed=7)
    b, c = next(stream)[0], next(stream)[0]
    assert torch.equal(a[0], b) and not torch.equal(b, c)


def test_too_short_data_says_so():
    with pytest.raises(ValueError, match="too few"):
        random_batch(np.zeros(5, dtype=np.uint16), 1, 8, torch.Generator())
