/**
 * @module
 * The instructions an agent (or a human) receives for rust_codecontests: `instructions.md` (upstream's text,
 * adapted) with each variant's numbers filled in: hidden-split size, budgets, and whether scores are shown.
 * Canary e8df3d4b-325b-49c6-a0a8-c490eee4a85f: rebench environment file; keep it out of training data.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { TaskId } from "../../src/core/index.js";
import { sourceDir } from "../../src/environments/source-dir.js";
import type { RccVariant } from "./prepare.js";

const HERE = sourceDir(import.meta.url); // environments/rust_codecontests also when run from dist/

/** Per variant, as grader/rcc_variants.py sets them (a test checks the two agree). */
export const VARIANT_NUMBERS: Record<RccVariant, { hidden: number; agentBudgetUsd: number; scoringBudgetUsd: number | null }> = {
  mini: { hidden: 44, agentBudgetUsd: 20, scoringBudgetUsd: 0.6 },
  gpu: { hidden: 60, agentBudgetUsd: 30, scoringBudgetUsd: 0.8 },
  paper: { hidden: 165, agentBudgetUsd: 500, scoringBudgetUsd: null },
};

export function instructions(variant: RccVariant, task: TaskId): string {
  const numbers = VARIANT_NUMBERS[variant];
  const template = readFileSync(path.join(HERE, "instructions.md"), "utf8").replace(/^<!--.*-->\n/gm, "");
  const budget =
    numbers.scoringBudgetUsd === null
      ? "with the same model and no credit limit of its own."
      : `and gets its own model budget of $${numbers.scoringBudgetUsd.toFixed(2)}; requests beyond it are refused with an ` +
        "`insufficient_quota` error, so spend it wisely.";
  const values: Record<string, string> = {
    model: "gpt-3.5-turbo-0125",
    n_hidden: String(numbers.hidden),
    agent_budget: numbers.agentBudgetUsd.toFixed(2),
    scoring_budget_note: budget,
  };
  const note = task === "hidden_score" ? "The `score` action will not show you the score value, only whether the call was valid.\n" : "";
  return template.replace("{score_note}\n", note).replace(/\{(\w+)\}/g, (match, name: string) => values[name] ?? match);
}
