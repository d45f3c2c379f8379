/**
 * @module
 * A test scaffold that plays a fixed list of tool calls (the format of an environment's reference
 * `actions.jsonl`, plus `generate` for a fake model call). After an orchestrator restart it continues
 * after the last action its run's history shows, as a real scaffold rebuilds its state from the log.
 */
import { readFileSync } from "node:fs";
import type { Agent, AgentSession } from "../../src/runs/tool-api.js";

export type ScriptStep =
  | { tool: "bash"; input: { command: string; timeoutSeconds?: number } }
  | { tool: "python"; input: { code: string; timeoutSeconds?: number } }
  | { tool: "score" | "score_log"; input?: Record<string, never> }
  | { tool: "submit"; input: { submission: string } }
  | { tool: "generate"; input: { inputTokens: number; outputTokens: number; costUsd?: number } };

export function readActions(file: string): ScriptStep[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as ScriptStep);
}

export class ScriptAgent implements Agent {
  constructor(readonly steps: readonly ScriptStep[]) {}

  async run(session: AgentSession): Promise<void> {
    const history = await session.history();
    const done = history.filter(({ event }) => event.type === "action" || event.type === "generation").length;
    for (const step of this.steps.slice(done)) {
      if (session.signal.aborted) return;
      switch (step.tool) {
        case "bash":
          await session.tools.bash(step.input);
          break;
        case "python":
          await session.tools.python(step.input);
          break;
        case "score":
          await session.tools.score();
          break;
        case "score_log":
          await session.tools.scoreLog();
          break;
        case "submit":
          await session.tools.submit(step.input);
          return;
        case "generate":
          await session.recordGeneration({ model: "script", costUsd: 0, ...step.input });
          break;
      }
    }
  }
}
