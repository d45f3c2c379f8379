/**
 * @module
 * Scaffolding for Rust CodeContests (`rust_codecontests`): Write a scaffold that makes a fixed model solve competitive-programming problems in Rust. Raw score: fraction of hidden problems solved; higher is better.
 * The three variants share the grader (`grader/rcc_grade.py`, which reads REBENCH_VARIANT) and differ in
 * their build (the hidden split, the model's tables or the paper's dataset), budgets and constants. Before a
 * run's sandbox is made, `prepare` builds the variant on the host (cached) and mounts the host's Rust
 * toolchain; the set-up starts the validation split's model service as the grader user. Every variant is
 * jailed (`isolation.jail`): the grader runs the agent's module and its programs in the one-shot jail. The reference
 * scaffold stays in the encrypted `sources.enc`: the replay agent uploads it from the build.
 * Canary e8df3d4b-325b-49c6-a0a8-c490eee4a85f: this string marks rebench environment files; keep them out of training data.
 */
import type { NormalizationConstants, TaskId } from "../../src/core/index.js";
import type { VariantImplementation } from "../../src/environments/contract.js";
import { defineEnvironment, MINI_RESOURCES } from "../../src/environments/define.js";
import { instructions } from "./instructions.js";
import { prepare, type RccVariant, referenceFiles } from "./prepare.js";

function implementation(variant: RccVariant, subset?: number): VariantImplementation {
  return {
    instructions: (task: TaskId) => instructions(variant, task),
    workspace: "workspace",
    grader: { command: ["python3", "grader/rcc_grade.py"] },
    reference: { actions: "reference/actions.jsonl", files: referenceFiles(variant) },
    protected: ["grader"],
    setup: { command: ["python3", "grader/rcc_setup.py", "--variant", variant, "--user", "rebench-grader"] },
    prepare: () => prepare(variant, subset),
    // The module sees the hidden statements: it, rustc and every test run in the one-shot jail, and the agent's
    // own processes are frozen for the whole scoring call (README, "Confinement").
    isolation: { jail: true },
  };
}

/**
 * The family; tests define copies of it under other names from other folders (a folder holding copies of
 * `grader/`, `workspace/`, `reference/`, optionally `calibration.json`, and a subset of `exploits/`) with
 * `name` and `moduleUrl`, `subset` to keep only that many hidden problems (quicker scoring calls), and
 * `miniNormalization`, the mini variant's constants where the folder has no calibration.json.
 */
export function defineRustEnvironment(options: { name?: string; moduleUrl?: string; subset?: number; miniNormalization?: NormalizationConstants } = {}) {
  return defineEnvironment({
    name: options.name ?? "rust_codecontests",
    title: "Scaffolding for Rust CodeContests",
    summary:
      "Write a scaffold that makes a fixed model solve competitive-programming problems in Rust. Raw score: fraction of hidden problems solved; higher is better.",
    canary: "e8df3d4b-325b-49c6-a0a8-c490eee4a85f",
    // Timing-sensitive: every test has a time limit, and each scaffold batch a wall-clock budget.
    scoring: { direction: "max", aggregation: "max", timingSensitive: true },
    moduleUrl: options.moduleUrl ?? import.meta.url,
    variants: {
      mini: {
        scale: "2-core CPU: 44 hidden problems authored by the project, a local model service answering from candidate pools",
        resources: MINI_RESOURCES,
        implementation: implementation("mini", options.subset),
        ...(options.miniNormalization ? { normalization: options.miniNormalization } : {}),
      },
      gpu: {
        scale: "no GPU needed: 60 hidden problems on 16 cores, the same local model service",
        resources: { cpus: 16, memoryGb: 64 },
        implementation: implementation("gpu", options.subset),
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
        implementation: implementation("paper", options.subset),
      },
    },
  });
}

export const family = defineRustEnvironment();
