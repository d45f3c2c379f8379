/**
 * @module
 * Register what the tests run on: the `test_echo` environment, the sandbox backend of TEST_BACKEND and the
 * test-only `process` backend (their folders under `$REBENCH_TEST_SANDBOX_ROOT`, or the given root), and the
 * `script` scaffold: the replay agent with its steps from `participant.model`, a path to a JSON Lines file
 * of tool calls.
 */
import os from "node:os";
import path from "node:path";
import { registerAgent } from "../../src/runs/agents.js";
import { registerSandboxBackend } from "../../src/runs/sandbox-backends.js";
import { registerEchoEnvironment } from "./echo-env.js";
import { ProcessSandboxBackend } from "./process-sandbox.js";
import { TEST_BACKEND, testBackend } from "./test-backend.js";
import { readActionsFile } from "../../src/agents/replay/replay-actions.js";
import { ReplayAgent } from "../../src/agents/replay/replay-agent.js";

export { TEST_BACKEND };

export function registerFixtures(sandboxRoot?: string): void {
  registerEchoEnvironment();
  const root = sandboxRoot ?? process.env.REBENCH_TEST_SANDBOX_ROOT ?? path.join(os.tmpdir(), "rebench-test-sandboxes");
  registerSandboxBackend("process", () => new ProcessSandboxBackend(root));
  if (TEST_BACKEND !== "process") registerSandboxBackend(TEST_BACKEND, () => testBackend(root));
  registerAgent("script", (spec) => {
    if (!spec.participant.model) throw new Error("the script scaffold needs participant.model: a path to an actions file");
    return new ReplayAgent(readActionsFile(spec.participant.model));
  });
}
