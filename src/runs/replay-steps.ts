/**
 * @module
 * The steps a `replay` run plays. Recorded actions use the JSON Lines format of an environment's reference solution
 * (`VariantImplementation.reference` in src/environments/contract.ts), one tool call a line:
 *
 *     {"tool": "bash", "input": {"command": "...", "timeoutSeconds": 60}}
 *     {"tool": "python", "input": {"code": "..."}}
 *     {"tool": "score"}            {"tool": "score_log"}
 *     {"tool": "submit", "input": {"submission": "what was done"}}
 *
 * plus `{"tool": "generate", "input": {"inputTokens": N, "outputTokens": N, "costUsd": X}}`, a recorded
 * model call (tokens and cost only; `cacheReadTokens`, `cacheWriteTokens`, `cacheWrite1hTokens` and
 * `reasoningTokens` may be given too), so tests can replay an agent's usage. Which actions a run replays is
 * `spec.config.actions`: `"reference"` (the variant's reference solution, the default), `"start"` (score the
 * starting solution and submit it unchanged) or the steps themselves (`rebench run --actions FILE` stores
 * the file's steps in the run, so the run says exactly what it replayed). A reference's actions file may
 * also hold `upload` steps (src/environments/reference-actions.ts).
 */
import path from "node:path";
import { z } from "zod";
import { formatIssues, InvalidInputError, parseActions, ReferenceStep, ReplayStep, type RunSpec, readActionsText, START_ACTIONS } from "../core/index.js";
import { resolveReferenceSteps } from "../environments/reference-actions.js";
import { runEnvironment } from "./run-environment.js";

/** The steps a replay run plays, from `spec.config.actions`. */
export function replayActionsFor(spec: RunSpec): ReplayStep[] {
  const actions = spec.config.actions ?? "reference";
  if (actions === "start") return [...START_ACTIONS];
  if (actions === "reference") {
    const { family, implementation } = runEnvironment(spec);
    const file = path.join(family.dir, implementation.reference.actions);
    return resolveReferenceSteps(family.dir, implementation.reference, parseActions(readActionsText(file), file, ReferenceStep));
  }
  const parsed = z.array(ReplayStep).min(1).safeParse(actions);
  if (!parsed.success) {
    throw new InvalidInputError(`the run's config.actions is neither "reference", "start" nor a list of actions:\n${formatIssues(parsed.error)}`);
  }
  return parsed.data;
}
