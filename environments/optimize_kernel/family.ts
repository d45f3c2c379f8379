/**
 * @module
 * Optimize a Kernel (`optimize_kernel`): Write a fast prefix sum of the values that follow an odd count of positive numbers. Raw score: ln(milliseconds) of one timed call on fresh random input; lower is better.
 * Canary ecca2186-2e7c-42f5-b36a-c361cba02702: this string marks rebench environment files; keep them out of training data.
 */
import { defineEnvironment, GPU_RESOURCES, MINI_RESOURCES } from "../../src/environments/define.js";

export const family = defineEnvironment({
  name: "optimize_kernel",
  title: "Optimize a Kernel",
  summary:
    "Write a fast prefix sum of the values that follow an odd count of positive numbers. Raw score: ln(milliseconds) of one timed call on fresh random input; lower is better.",
  canary: "ecca2186-2e7c-42f5-b36a-c361cba02702",
  scoring: { direction: "min", aggregation: "min" },
  moduleUrl: import.meta.url,
  variants: {
    mini: {
      scale: "2-core CPU: N = 10^7 int32, numpy/torch/C/Rust solutions",
      resources: MINI_RESOURCES,
    },
    gpu: {
      scale: "one H200: Triton and torch on N = 10^8 int32",
      resources: GPU_RESOURCES,
    },
    paper: {
      scale: "1x H100: Triton on N = 10^8 int32, the paper's constants",
      resources: { gpu: { countRange: [1, 1], models: ["h100"] }, cpus: 13, memoryGb: 100 },
      normalization: {
        start: 1.5535302804958044,
        reference: 0.4700036292457356,
        source: "paper",
        note: "ln 4.728 ms -> ln 1.600 ms",
      },
    },
  },
});
