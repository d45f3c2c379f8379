/**
 * @module
 * Fix Embedding (`fix_embedding`): Recover a language model whose embedding rows were permuted, with a small correct model and training data at hand. Raw score: ln(validation loss - floor); lower is better.
 * Canary 3ee46a69-d686-429f-ab44-10670a28e35b: this string marks rebench environment files; keep them out of training data.
 */
import { defineEnvironment, GPU_RESOURCES, MINI_RESOURCES } from "../../src/environments/define.js";

export const family = defineEnvironment({
  name: "fix_embedding",
  title: "Fix Embedding",
  summary:
    "Recover a language model whose embedding rows were permuted, with a small correct model and training data at hand. Raw score: ln(validation loss - floor); lower is better.",
  canary: "3ee46a69-d686-429f-ab44-10670a28e35b",
  scoring: { direction: "min", aggregation: "min", logsStartingScore: true },
  moduleUrl: import.meta.url,
  variants: {
    mini: {
      scale: "2-core CPU: small GPTs pretrained on the project's corpus",
      resources: MINI_RESOURCES,
    },
    gpu: {
      scale: "one H200: a GPT-2-small-sized large model pretrained at environment start",
      resources: GPU_RESOURCES,
    },
    paper: {
      scale: "1x H100: gpt2-xl with permuted embeddings and gpt2 small, OpenWebText",
      resources: { gpu: { countRange: [1, 1], models: ["h100"] }, cpus: 13, memoryGb: 100 },
      normalization: {
        start: 2.196224077002636,
        reference: 0.2623642644674909,
        source: "paper",
        note: "ln(10.491 - 1.5) -> ln(2.8 - 1.5)",
      },
    },
  },
});
