/**
 * @module
 * What the paper variant's set-up needs from the host, handed to its sandbox before the run (the variant's
 * `prepare`; a host's variables do not reach a sandbox): upstream's `train_data.jsonl` (`$REBENCH_FOUNDRY_ROWS`,
 * a JSON Lines file of `{"prompt", "response"}` rows), a local mirror of LLM Foundry (`$REBENCH_LLM_FOUNDRY`,
 * a clone holding the pinned commit) and the base model's folder (`$REBENCH_HF_MODELS/<hub id>`, a
 * `save_pretrained` folder). The rows are secret (the set-up holds a keyed part of them out as the hidden
 * rows): they go into the protected directory only, as `paper-inputs/train_data.jsonl` (a copy cached
 * under `<rebench home>/cache/optimize_llm_foundry/`, by content; the set-up deletes it once split). The
 * mirror and the model are not secret (the agent gets both): they are mounted read-only and named to the
 * set-up by the same variables, pointing at the mounts.
 * Canary 9beb89d0-85e7-4d0b-96e4-e0cabdaa4553: this string marks rebench environment files; keep them out of training data.
 */
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, statSync } from "node:fs";
import path from "node:path";
import { InvalidInputError, rebenchHome } from "../../src/core/index.js";
import type { VariantPreparation } from "../../src/environments/contract.js";

/** Where the mounts are inside the sandbox. */
export const PAPER_MOUNTS = { models: "/opt/rebench-foundry/hf-models", foundry: "/opt/rebench-foundry/llm-foundry" } as const;
/** The protected directory's folder for the staged rows (grader/paper.py's PAPER_INPUTS). */
export const PAPER_INPUTS = "paper-inputs";

export interface PaperInputs {
  /** The Hugging Face id of the base model (the profile's `model.hf`). */
  model: string;
  /** The variable naming the rows file (the profile's `rows_env`). */
  rowsEnv: string;
}

function need(env: NodeJS.ProcessEnv, name: string, what: string, kind: "file" | "folder", sub = ""): string {
  const value = env[name];
  const hint = `set ${name} to ${what}`;
  if (!value) throw new InvalidInputError(`optimize_llm_foundry/paper: ${name} is not set`, { hint });
  const full = path.resolve(value, sub);
  const stat = existsSync(full) ? statSync(full) : undefined;
  if (!(kind === "file" ? stat?.isFile() : stat?.isDirectory())) {
    throw new InvalidInputError(`optimize_llm_foundry/paper: ${full} (from ${name}) is not a ${kind}`, { hint });
  }
  return full;
}

/** The paper variant's preparation; InvalidInputError (with what to set) where the host lacks an input. */
export function preparePaper(inputs: PaperInputs, env: NodeJS.ProcessEnv = process.env, home: string = rebenchHome()): VariantPreparation {
  const rows = need(env, inputs.rowsEnv, 'a JSON Lines file of {"prompt": ..., "response": ...} rows (upstream\'s train_data.jsonl)', "file");
  const foundry = need(env, "REBENCH_LLM_FOUNDRY", "a local clone of https://github.com/mosaicml/llm-foundry (with the pinned commit)", "folder");
  const model = need(env, "REBENCH_HF_MODELS", `a folder holding ${inputs.model}/ (a save_pretrained folder)`, "folder", inputs.model);
  const data = readFileSync(rows);
  const staged = path.join(home, "cache", "optimize_llm_foundry", `paper-rows-${createHash("sha256").update(data).digest("hex").slice(0, 16)}`);
  const file = path.join(staged, PAPER_INPUTS, "train_data.jsonl");
  if (!existsSync(file)) {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const draft = `${file}.${process.pid}.tmp`;
    copyFileSync(rows, draft);
    renameSync(draft, file);
  }
  return {
    protected: staged,
    mounts: [
      { source: foundry, target: PAPER_MOUNTS.foundry },
      { source: model, target: `${PAPER_MOUNTS.models}/${inputs.model}` },
    ],
    env: { REBENCH_LLM_FOUNDRY: PAPER_MOUNTS.foundry, REBENCH_HF_MODELS: PAPER_MOUNTS.models },
  };
}

/**
 * The paper variant's `reference.files`: there is no reference solution for it in `reference/reference.zip`
 * (upstream's, LLM Foundry tuned on 4 H100s to 94 s, was not published), so a replay of the reference fails
 * here, before its sandbox is made, saying so. `reference/paper.actions.jsonl` is the placeholder whose one
 * upload step calls this.
 */
export function noPaperReference(): never {
  throw new Error(
    "optimize_llm_foundry/paper has no reference solution (reference/reference.zip holds the mini and gpu ones; upstream's LLM Foundry " +
      "solution was not published): its normalization is the paper's (ln 272 s -> ln 94 s); replay the start with --actions start",
  );
}
