/**
 * @module
 * One recorded tool call, as the `replay` scaffold plays it: the line format of an environment's reference
 * solution and the steps of an exploit file. Kept in core because both the agents (which play it) and the
 * environment files (which hold it) speak it.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { InvalidInputError, NotFoundError } from "./errors.js";
import { formatIssues } from "./parse.js";

const Timeout = z.number().positive().optional();

export const ReplayStep = z.discriminatedUnion("tool", [
  z.object({ tool: z.literal("bash"), input: z.object({ command: z.string(), timeoutSeconds: Timeout }) }),
  z.object({ tool: z.literal("python"), input: z.object({ code: z.string(), timeoutSeconds: Timeout }) }),
  z.object({ tool: z.literal("score"), input: z.object({}).optional() }),
  z.object({ tool: z.literal("score_log"), input: z.object({}).optional() }),
  z.object({ tool: z.literal("submit"), input: z.object({ submission: z.string() }) }),
  z.object({
    tool: z.literal("generate"),
    input: z.object({
      inputTokens: z.number().int().nonnegative(),
      cacheReadTokens: z.number().int().nonnegative().optional(),
      cacheWriteTokens: z.number().int().nonnegative().optional(),
      cacheWrite1hTokens: z.number().int().nonnegative().optional(),
      outputTokens: z.number().int().nonnegative(),
      reasoningTokens: z.number().int().nonnegative().optional(),
      costUsd: z.number().nonnegative().optional(),
    }),
  }),
]);
export type ReplayStep = z.infer<typeof ReplayStep>;

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
        hint: 'each line is {"tool": "bash"|"python"|"score"|"score_log"|"submit"|"generate", "input": {...}}: docs/agents.md, "Actions files", has each tool\'s fields and an example',
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

export function readActionsText(file: string): string {
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
