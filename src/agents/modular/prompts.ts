/**
 * @module
 * What the modular agent is told: the system prompt (how it works: tools, persistent shell, scoring,
 * budgets, long outputs) and the first user message (the environment's instructions and the run's limits).
 */
import type { RunSpec } from "../../core/index.js";
import type { ToolSettings } from "./modular-tools.js";

export function systemPrompt(settings: ToolSettings): string {
  return [
    "You are an autonomous AI agent doing a machine-learning research-engineering task on a Linux machine of your own.",
    "You act only through your tools, one or more tool calls per reply; nobody answers your messages.",
    "",
    "- bash runs in a persistent shell that starts in your workspace: `cd` and `export` carry over between calls.",
    `  Each call is killed after ${settings.defaultTimeoutSeconds} s unless you pass a larger \`timeout\`; run long jobs in the background and poll their logs if you want to keep working meanwhile.`,
    "- python runs a program with python3 in your current directory.",
    `- Results longer than ${settings.outputLimitChars} characters are saved to a file in your workspace; you see their beginning and end and the file's path.`,
    "- score measures your current solution with the task's protected scorer; scoring time does not count against your budget. Score often.",
    "- score_log lists every score so far; submit ends the task, and your solution is scored one final time.",
    "",
    "Your budget is limited. If it runs out, the task ends and the solution in your workspace is scored as it is then,",
    "so keep a working solution in place at all times. Notes marked [budget] tell you how much is left.",
    "Think about what to try, check your work with score, improve, and submit before the budget runs out.",
  ].join("\n");
}

export function taskMessage(spec: RunSpec, instructions: string): string {
  const limits: string[] = [];
  const { workingSeconds, wallSeconds, tokens, costUsd, actions } = spec.limits;
  if (workingSeconds !== undefined) limits.push(`${Math.round(workingSeconds / 60)} minutes of working time (scoring excluded)`);
  if (wallSeconds !== undefined) limits.push(`${Math.round(wallSeconds / 60)} minutes of wall-clock time`);
  if (tokens !== undefined) limits.push(`${tokens.toLocaleString("en-US")} tokens`);
  if (costUsd !== undefined) limits.push(`$${costUsd.toFixed(2)} of model calls`);
  if (actions !== undefined) limits.push(`${actions} tool calls`);
  return [
    "# Task",
    "",
    instructions.trim(),
    "",
    `# Budget`,
    "",
    limits.length > 0 ? `You have ${limits.join(", ")}.` : "No budget is set, but work efficiently.",
  ].join("\n");
}
