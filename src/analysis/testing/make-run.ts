/**
 * @module
 * Build analysis runs for tests in one line: `makeRun("agent-a", "fix_embedding", 1800, 0.4)`.
 */
import type { AnalysisRun } from "../analysis-run.js";

let counter = 0;

export function makeRun(
  participant: string,
  environment: string,
  timeLimitSeconds: number,
  score: number,
  usage: Partial<AnalysisRun["usage"]> = {},
): AnalysisRun {
  counter += 1;
  return {
    id: `run${counter}`,
    participant,
    kind: participant === "human" ? "human" : "agent",
    environment,
    variant: "paper",
    task: "main",
    timeLimitSeconds,
    score,
    curve: undefined,
    usage: { tokens: null, dollars: null, workingSeconds: null, scoreCalls: null, ...usage },
  };
}
