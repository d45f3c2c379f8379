"""A small LLM Foundry: the pieces finetune.sh's three stages share (config, data, model).

Canary 9beb89d0-85e7-4d0b-96e4-e0cabdaa4553: rebench environment file; keep out of training data.
"""
