/**
 * @module
 * Restricted Architecture MLM (`restricted_mlm`): Build and train a masked language model using only a restricted set of primitives in its forward pass. Raw score: ln(masked loss - floor); lower is better.
 * The three variants share one set-up (`grader/setup.py`: hand out the training data, train the starting
 * flattened MLP) and one grader (`grader/score.py`: the agent's model exported as the agent in the one-shot
 * jail, the graph read as data, checked against the allow-list and run by the grader on hidden windows);
 * they differ in the profile of `grader/profiles.json` they use. The reference solution stays in the
 * encrypted `reference/reference.zip`.
 * Canary 16ff82f0-58a9-4f41-9f1d-e58252fd5f1f: rebench environment file; keep out of training data.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { TaskId, Variant } from "../../src/core/index.js";
import type { VariantImplementation } from "../../src/environments/contract.js";
import { defineEnvironment, GPU_RESOURCES, MINI_RESOURCES } from "../../src/environments/define.js";
import { referenceUnpacker } from "../../src/environments/reference-archive.js";
import { sourceDir } from "../../src/environments/source-dir.js";
import { instructions, type ProfileText } from "./instructions.js";

const HERE = sourceDir(import.meta.url);

interface Profile extends ProfileText {
  tokens: { asset?: string; openwebtext?: unknown };
}

/** The profiles of `grader/profiles.json` (mini, gpu, paper; tiny for the tests). */
export const PROFILES: Readonly<Record<string, Profile>> = JSON.parse(readFileSync(path.join(HERE, "grader", "profiles.json"), "utf8")).profiles;

/** The assets a profile's set-up reads (each staged into the protected directory by rebench). */
export function profileAssets(profile: Profile): string[] {
  return [profile.tokens.asset ?? "tokenizer-gpt2"];
}

/** Unpack the encrypted reference archive into `dest` (a host folder rebench deletes after reading it). */
export const unpackReference = referenceUnpacker(HERE);

function implementation(variant: Variant, profileName: string): VariantImplementation {
  const profile = PROFILES[profileName];
  if (!profile) throw new Error(`restricted_mlm: no profile "${profileName}" in grader/profiles.json`);
  return {
    instructions: (task: TaskId) => instructions(profile, task),
    workspace: "workspace",
    grader: { command: ["python3", "grader/score.py"] },
    setup: { command: ["python3", "grader/setup.py", "--profile", profileName] },
    reference: { actions: `reference/${variant}.actions.jsonl`, files: unpackReference },
    protected: ["grader"],
    assets: profileAssets(profile),
  };
}

export const family = defineEnvironment({
  name: "restricted_mlm",
  title: "Restricted Architecture MLM",
  summary:
    "Build and train a masked language model using only a restricted set of primitives in its forward pass. Raw score: ln(masked loss - floor); lower is better.",
  canary: "16ff82f0-58a9-4f41-9f1d-e58252fd5f1f",
  // The scoring calls time nothing, but the reference trains for a fixed number of minutes (12 on mini).
  scoring: { direction: "min", aggregation: "min", logsStartingScore: true, timedReference: "the reference trains for a fixed number of minutes" },
  timeouts: { scoreSeconds: 600, startSeconds: 3600 },
  moduleUrl: import.meta.url,
  variants: {
    mini: {
      scale: "2-core CPU: 4k-BPE corpus, 128-token windows, 64 x 8 masked evaluation windows",
      resources: MINI_RESOURCES,
      implementation: implementation("mini", "mini"),
    },
    gpu: {
      scale: "one H200: the original protocol (2,000 x 8 x 128 masked windows) on the project's corpus, GPT-2 BPE",
      resources: GPU_RESOURCES,
      implementation: implementation("gpu", "gpu"),
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
      implementation: implementation("paper", "paper"),
    },
  },
});
