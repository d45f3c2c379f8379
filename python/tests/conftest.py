"""One torch thread per test process: on the 2-core machines more threads made small ops many times slower."""

import torch

torch.set_num_threads(1)
