/**
 * @module
 * Start a run of a test environment in-process, for tests of the tool API and budgets: a real SQLite store,
 * the sandbox backend of TEST_BACKEND (optionally with a clock that jumps while commands and graders run).
 */
import path from "node:path";
import type { Participant, TaskId, UsageLimits } from "../../src/core/index.js";
import type { ManualClock } from "../../src/runs/clock.js";
import { type Clock, systemClock } from "../../src/runs/clock.js";
import { newRunSpec, runEnvironment } from "../../src/runs/run-environment.js";
import { RunLog } from "../../src/runs/run-log.js";
import { RunSession } from "../../src/runs/run-session.js";
import { startRun } from "../../src/runs/start-run.js";
import type { ExecOptions, Sandbox, SandboxBackend, SandboxSpec } from "../../src/sandbox/sandbox.js";
import { SqliteRunStore } from "../../src/store/index.js";
import { registerFixtures } from "./register-fixtures.js";
import { TEST_BACKEND, testBackend } from "./test-backend.js";

export interface HarnessOptions {
  environment?: string;
  task?: TaskId;
  limits?: UsageLimits;
  clock?: Clock;
  backend?: SandboxBackend;
  watchdogMs?: number;
  participant?: Participant;
}

export function runHarness(root: string) {
  registerFixtures(path.join(root, "sandboxes"));
  const store = SqliteRunStore.open(path.join(root, "runs.db"));
  const backend = testBackend(path.join(root, "sandboxes"));
  return {
    store,
    backend,
    async start(options: HarnessOptions = {}) {
      const spec = await newRunSpec({
        environment: options.environment ?? "test_echo",
        variant: "mini",
        task: options.task ?? "main",
        participant: options.participant ?? { kind: "agent", alias: "harness" },
        limits: options.limits ?? {},
        config: { sandbox: TEST_BACKEND, driver: "orchestrator" },
      });
      const run = await store.createRun(spec);
      const log = await RunLog.open(store, run.id, options.clock ?? systemClock);
      const env = runEnvironment(log.summary.spec);
      const sandbox = await startRun(log, env, options.backend ?? backend);
      const session = new RunSession(log, { sandbox, env }, { watchdogMs: options.watchdogMs ?? 0 });
      return { log, env, sandbox, session, tools: session.tools };
    },
  };
}

/**
 * A backend whose sandboxes move a ManualClock forward while commands run: `agentSeconds` per agent
 * command, `graderSeconds` per grader run (the grader's own process, not its bookkeeping commands).
 */
export class ClockedBackend implements SandboxBackend {
  constructor(
    readonly inner: SandboxBackend,
    readonly clock: ManualClock,
    readonly costs: { agentSeconds: number; graderSeconds: number },
  ) {}
  get name(): string {
    return this.inner.name;
  }
  check() {
    return this.inner.check();
  }
  async create(spec: SandboxSpec): Promise<Sandbox> {
    return this.#wrap(await this.inner.create(spec));
  }
  async reattach(id: string): Promise<Sandbox | undefined> {
    const found = await this.inner.reattach(id);
    return found && this.#wrap(found);
  }
  #wrap(s: Sandbox): Sandbox {
    return {
      id: s.id,
      backend: s.backend,
      paths: s.paths,
      exec: async (command: string, options: ExecOptions = {}) => {
        const result = await s.exec(command, options);
        if (options.user === "grader" && command.includes("grader/")) this.clock.advance(this.costs.graderSeconds);
        if ((options.user ?? "agent") === "agent" && options.cwd === undefined) this.clock.advance(this.costs.agentSeconds);
        return result;
      },
      readFile: (file, o) => s.readFile(file, o),
      writeFile: (file, data, o) => s.writeFile(file, data, o),
      pauseAgent: () => s.pauseAgent(),
      cpuSeconds: () => s.cpuSeconds(),
      hostPaths: () => s.hostPaths(),
      destroy: () => s.destroy(),
    };
  }
}
