/**
 * @module
 * Scaffolding for Rust CodeContests (`rust_codecontests`): Write a scaffold that makes a fixed model solve competitive-programming problems in Rust. Raw score: fraction of hidden problems solved; higher is better.
 * Canary e8df3d4b-325b-49c6-a0a8-c490eee4a85f: this string marks rebench environment files; keep them out of training data.
 */
import { defineEnvironment, MINI_RESOURCES } from "../../src/environments/define.js";

export const family = defineEnvironment({
  name: "rust_codecontests",
  title: "Scaffolding for Rust CodeContests",
  summary:
    "Write a scaffold that makes a fixed model solve competitive-programming problems in Rust. Raw score: fraction of hidden problems solved; higher is better.",
  canary: "e8df3d4b-325b-49c6-a0a8-c490eee4a85f",
  scoring: { direction: "max", aggregation: "max" },
  moduleUrl: import.meta.url,
  variants: {
    mini: {
      scale: "2-core CPU: problems authored by the project, a local model service answering from candidate pools",
      resources: MINI_RESOURCES,
    },
    gpu: {
      scale: "no GPU needed: a larger hidden set on more cores",
      resources: { cpus: 16, memoryGb: 64 },
    },
    paper: {
      scale: "no GPU, 20 CPUs: the CodeContests test split (165), gpt-3.5-turbo or any OpenAI-compatible model",
      resources: { cpus: 20, memoryGb: 100 },
      normalization: {
        start: 0.0,
        reference: 0.12727272727272726,
        source: "paper",
        note: "0/165 -> 21/165 problems solved",
      },
    },
  },
});
