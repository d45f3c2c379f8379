/**
 * @module
 * Register what the tests run on: the `test_echo` environment (and `test_echo_gpu_job`, asking for a GPU), the sandbox backend of TEST_BACKEND and the
 * test-only `process` backend (their folders under `$REBENCH_TEST_SANDBOX_ROOT`, or the given root), and the
 * `script` scaffold: the replay agent with its steps from `participant.model`, a path to a JSON Lines file
 * of tool calls.
 */
import os from "node:os";
import path from "node:path";
import { ReplayAgent } from "../../src/agents/replay/replay-agent.js";
import type { Scaffold } from "../../src/core/index.js";
import { readActionsFile } from "../../src/core/index.js";
import { backends } from "../../src/runs/sandbox-backends.js";
import { scaffolds } from "../../src/runs/scaffolds.js";
import { registerEchoEnvironment, registerEchoGpuEnvironment } from "./echo-env.js";
import { ProcessSandboxBackend } from "./process-sandbox.js";
import { TEST_BACKEND, testBackend } from "./test-backend.js";

export { TEST_BACKEND };

/** The replay agent with its steps from `participant.model`, a path to a JSON Lines file of tool calls. */
const SCRIPT_SCAFFOLD: Scaffold = {
  name: "script",
  needsModel: false,
  create: (spec) => {
    if (!spec.participant.model) throw new Error("the script scaffold needs participant.model: a path to an actions file");
    return new ReplayAgent(readActionsFile(spec.participant.model));
  },
};

export function registerFixtures(sandboxRoot?: string): void {
  registerEchoEnvironment();
  registerEchoGpuEnvironment();
  const root = sandboxRoot ?? process.env.REBENCH_TEST_SANDBOX_ROOT ?? path.join(os.tmpdir(), "rebench-test-sandboxes");
  // A fixture replaces a built-in of the same name (the test backend has its own sandbox root).
  backends.register({ name: "process", terminals: true, create: () => new ProcessSandboxBackend(root) }, { replace: true });
  if (TEST_BACKEND !== "process") backends.register({ name: TEST_BACKEND, terminals: true, create: () => testBackend(root) }, { replace: true });
  scaffolds.register(SCRIPT_SCAFFOLD);
}
