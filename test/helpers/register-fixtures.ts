/**
 * @module
 * Register what the tests run on: the `test_echo` environment, the test-only `process` sandbox backend
 * (its folders under `$REBENCH_TEST_SANDBOX_ROOT`, or the given root) and the `script` scaffold: the replay
 * agent with its steps from `participant.model`, a path to a JSON Lines file of tool calls.
 */
import os from "node:os";
import path from "node:path";
import { registerAgent } from "../../src/runs/agents.js";
import { registerSandboxBackend } from "../../src/runs/sandbox-backends.js";
import { registerEchoEnvironment } from "./echo-env.js";
import { ProcessSandboxBackend } from "./process-sandbox.js";
import { readActionsFile } from "../../src/agents/replay/replay-actions.js";
import { ReplayAgent } from "../../src/agents/replay/replay-agent.js";

/** The sandbox backend tests run on: the test-only `process` backend until `local` lands (then change this line). */
export const TEST_BACKEND = "process";

export function registerFixtures(sandboxRoot?: string): void {
  registerEchoEnvironment();
  const root = sandboxRoot ?? process.env.REBENCH_TEST_SANDBOX_ROOT ?? path.join(os.tmpdir(), "rebench-test-sandboxes");
  registerSandboxBackend("process", () => new ProcessSandboxBackend(root));
  registerAgent("script", (spec) => {
    if (!spec.participant.model) throw new Error("the script scaffold needs participant.model: a path to an actions file");
    return new ReplayAgent(readActionsFile(spec.participant.model));
  });
}
