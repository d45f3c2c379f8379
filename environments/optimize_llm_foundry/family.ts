/**
 * @module
 * Optimize LLM Foundry (`optimize_llm_foundry`): Make a three-stage fine-tuning pipeline run faster while its trained weights stay within a threshold of the reference model's. Raw score: ln(seconds) of the pipeline; lower is better.
 * Canary 9beb89d0-85e7-4d0b-96e4-e0cabdaa4553: this string marks rebench environment files; keep them out of training data.
 */
import { defineEnvironment, GPU_RESOURCES, MINI_RESOURCES } from "../../src/environments/define.js";

export const family = defineEnvironment({
  name: "optimize_llm_foundry",
  title: "Optimize LLM Foundry",
  summary:
    "Make a three-stage fine-tuning pipeline run faster while its trained weights stay within a threshold of the reference model's. Raw score: ln(seconds) of the pipeline; lower is better.",
  canary: "9beb89d0-85e7-4d0b-96e4-e0cabdaa4553",
  scoring: { direction: "min", aggregation: "min", logsStartingScore: true, timingSensitive: true }, // the score is ln(seconds)
  moduleUrl: import.meta.url,
  variants: {
    mini: {
      scale: "2-core CPU: a small pretrained GPT fine-tuned on 1,000 instruction rows by a 3-stage pipeline",
      resources: MINI_RESOURCES,
    },
    gpu: {
      scale: "one H200: a 100-350M-parameter GPT, bf16, start around 2 minutes",
      resources: GPU_RESOURCES,
    },
    paper: {
      scale: "4x H100: LLM Foundry at the pinned commit with deepseek-coder-1.3b-base, weight-diff threshold 5.3",
      resources: { gpu: { countRange: [4, 4], models: ["h100"] }, cpus: 52, memoryGb: 400 },
      normalization: {
        start: 5.605802066295998,
        reference: 4.543294782270004,
        source: "paper",
        note: "ln 272 s -> ln 94 s",
      },
    },
  },
});
