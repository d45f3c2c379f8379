/**
 * @module
 * What AIDE asks the model at each step, adapted from AIDE's draft / improve / debug prompts to rebench's
 * tasks: the solution is a set of files in the workspace (not one script), the metric is the task's own
 * scorer, and the answer comes as one call of the `write_solution` tool (plan, files, a quick check).
 */
import type { Direction } from "../../core/index.js";
import type { Message, ToolDefinition } from "../models/model-client.js";
import type { AideNode, Journal, Stage } from "./journal.js";

export const WRITE_SOLUTION: ToolDefinition = {
  name: "write_solution",
  description: "Propose a solution: a short plan, the complete new content of every file you change, and a quick check to run.",
  parameters: {
    type: "object",
    properties: {
      plan: { type: "string", description: "Three to five sentences: what this solution does and why it should score well." },
      files: {
        type: "array",
        description: "Every file you create or change, with its complete content (paths relative to the workspace).",
        items: {
          type: "object",
          properties: { path: { type: "string" }, content: { type: "string" } },
          required: ["path", "content"],
        },
      },
      command: {
        type: "string",
        description: "Optional: a quick shell command run in the workspace before scoring (a smoke test); its output is shown to you later.",
      },
    },
    required: ["plan", "files"],
  },
};

const SYSTEM = [
  "You are an expert machine-learning research engineer solving a task by tree search: you propose complete solutions,",
  "each is put in the task's workspace and measured with the task's own protected scorer, and the best one wins.",
  "You cannot run commands yourself; answer every request with exactly one call of write_solution.",
].join(" ");

export interface PromptInput {
  instructions: string;
  overview: string;
  direction: Direction;
  visible: boolean;
}

function filesText(files: Record<string, string>): string {
  const entries = Object.entries(files);
  if (entries.length === 0) return "(no files changed from the starting workspace)";
  return entries.map(([p, c]) => `--- ${p} ---\n${c}`).join("\n\n");
}

function scoreLine(node: AideNode, input: PromptInput): string {
  if (node.buggy) return `It did not work: ${node.bug ?? "no reason given"}`;
  if (node.metric === null) return "It is valid (the score is not shown for this task).";
  return `Its score is ${node.metric} (${input.direction === "min" ? "lower" : "higher"} is better).`;
}

const GUIDE: Record<Stage, string> = {
  draft:
    "Propose a new solution. Take a different approach from the earlier designs listed under Memory, if any. " +
    "Keep it simple enough to work on the first try; later steps will improve it.",
  improve:
    "Improve the solution below with one specific, atomic change that should raise its score, so that the effect of the " +
    "change can be measured. Give the complete content of every file you change.",
  debug:
    "The solution below does not work. Find the bug from the check's output and the scorer's verdict, and fix it. " +
    "Give the complete content of every file you change.",
};

export function stepMessages(stage: Stage, parent: AideNode | undefined, journal: Journal, input: PromptInput): Message[] {
  // The task and the starting workspace begin every step's prompt alike: a prefix worth caching.
  const head = [`# Task\n\n${input.instructions.trim()}`, `# Starting workspace\n\n${input.overview}`];
  const sections = [...(stage !== "debug" && journal.memory() ? [`# Memory (earlier working designs)\n\n${journal.memory()}`] : [])];
  if (parent) {
    const label = stage === "debug" ? "The solution to fix" : "The solution to improve";
    sections.push(`# ${label} (design ${parent.id})\n\nPlan: ${parent.plan.trim()}\n\n${filesText(journal.filesOf(parent))}`);
    sections.push(`# Its result\n\n${scoreLine(parent, input)}${parent.execution ? `\n\nOutput of its check:\n${parent.execution}` : ""}`);
  }
  sections.push(`# Instructions\n\n${GUIDE[stage]}`);
  if (!input.visible) sections.push("Scores are not shown for this task: a solution is only reported as valid or not.");
  return [
    { role: "system", content: SYSTEM },
    { role: "user", content: head.join("\n\n"), cacheBreakpoint: true },
    { role: "user", content: sections.join("\n\n") },
  ];
}
