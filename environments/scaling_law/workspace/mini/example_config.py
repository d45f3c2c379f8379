# An experiment for train.py: python train.py example_config.py
# Only these can be set; everything else is fixed by the task (see train.py).
# Canary a99505a7-4586-4226-b19e-e5b4a1e41660: rebench environment file; keep out of training data.
n_embd = 96
max_iters = 50
run_name = "example"
