/**
 * @module
 * Restricted Architecture MLM (`restricted_mlm`): Build and train a masked language model using only a restricted set of primitives in its forward pass. Raw score: ln(masked loss - floor); lower is better.
 * Canary 16ff82f0-58a9-4f41-9f1d-e58252fd5f1f: this string marks rebench environment files; keep them out of training data.
 */
import { defineEnvironment, GPU_RESOURCES, MINI_RESOURCES } from "../../src/environments/define.js";

export const family = defineEnvironment({
  name: "restricted_mlm",
  title: "Restricted Architecture MLM",
  summary:
    "Build and train a masked language model using only a restricted set of primitives in its forward pass. Raw score: ln(masked loss - floor); lower is better.",
  canary: "16ff82f0-58a9-4f41-9f1d-e58252fd5f1f",
  scoring: { direction: "min", aggregation: "min" },
  moduleUrl: import.meta.url,
  variants: {
    mini: {
      scale: "2-core CPU: a small BPE vocabulary on the project's corpus",
      resources: MINI_RESOURCES,
    },
    gpu: {
      scale: "one H200: the original protocol (2,000 x 8 x 128 eval) on the project's corpus",
      resources: GPU_RESOURCES,
    },
    paper: {
      scale: "2x H100: OpenWebText, GPT-2 tokenizer",
      resources: { gpu: { countRange: [2, 2], models: ["h100"] }, cpus: 26, memoryGb: 200 },
      normalization: {
        start: 1.8141730640649552,
        reference: 1.1314021114911004,
        source: "paper",
        note: "ln(7.636 - 1.5) -> ln(4.6 - 1.5)",
      },
    },
  },
});
