/**
 * @module
 * Recorded actions for the `replay` scaffold: the JSON Lines format of an environment's reference solution
 * (`VariantImplementation.reference` in src/environments/contract.ts), one tool call a line:
 *
 *     {"tool": "bash", "input": {"command": "...", "timeoutSeconds": 60}}
 *     {"tool": "python", "input": {"code": "..."}}
 *     {"tool": "score"}            {"tool": "score_log"}
 *     {"tool": "submit", "input": {"submission": "what was done"}}
 *
 * plus `{"tool": "generate", "input": {"inputTokens": N, "outputTokens": N, "costUsd": X}}`, a recorded
 * model call (tokens and cost only), so tests can replay an agent's usage. Which actions a run replays is
 * `spec.config.actions`: `"reference"` (the variant's reference solution, the default), `"start"` (score the
 * starting solution and submit it unchanged) or the steps themselves (`rebench run --actions FILE` stores
 * the file's steps in the run, so the run says exactly what it replayed). A reference's actions file may
 * also hold `upload` steps (src/environments/reference-actions.ts).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { formatIssues, InvalidInputError, NotFoundError, ReferenceStep, ReplayStep, type RunSpec } from "../../core/index.js";
import { resolveReferenceSteps } from "../../environments/reference-actions.js";
import { runEnvironment } from "../../runs/run-environment.js";

export { ReplayStep };

/** `--actions start`: the starting solution as it is, scored and submitted. */
export const START_ACTIONS: readonly ReplayStep[] = Object.freeze([
  { tool: "score" },
  { tool: "submit", input: { submission: "the starting solution, unchanged" } },
]);

/** Parse a JSON Lines actions text (lines of `schema`, default ReplayStep); errors name the source and the line. */
export function parseActions<S extends z.ZodTypeAny = typeof ReplayStep>(text: string, source: string, schema?: S): z.infer<S>[] {
  const steps: z.infer<S>[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new InvalidInputError(`${source}, line ${i + 1}: not JSON (${(error as Error).message})`);
    }
    const parsed = (schema ?? ReplayStep).safeParse(value);
    if (!parsed.success) {
      throw new InvalidInputError(`${source}, line ${i + 1}: not a recorded action:\n${formatIssues(parsed.error)}`, {
        hint: 'each line is {"tool": "bash"|"python"|"score"|"score_log"|"submit"|"generate", "input": {...}}',
      });
    }
    steps.push(parsed.data as z.infer<S>);
  });
  if (steps.length === 0) throw new InvalidInputError(`${source} holds no actions`);
  return steps;
}

export function readActionsFile(file: string): ReplayStep[] {
  return parseActions(readActionsText(file), file);
}

function readActionsText(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new NotFoundError(`cannot read the actions file ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, {
      hint: "pass a JSON Lines file of tool calls, `start` or `reference` to --actions",
    });
  }
  return text;
}

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
