import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { registerExtraEnvironment } from "../../src/environments/registry.js";
import { systemClock } from "../../src/runs/clock.js";
import { driveRun } from "../../src/runs/drive-run.js";
import { newRunSpec } from "../../src/runs/run-environment.js";
import { readoptRunGpus } from "../../src/runs/run-gpus.js";
import { RunLog } from "../../src/runs/run-log.js";
import { backends } from "../../src/runs/sandbox-backends.js";
import { acquireGpus } from "../../src/sandbox/gpu-leases.js";
import type { Sandbox, SandboxBackend, SandboxSpec } from "../../src/sandbox/sandbox.js";
import { defineEchoEnvironment } from "../fixtures/env-echo/family.js";
import { ECHO_DIR } from "../helpers/echo-env.js";
import { runHarness } from "../helpers/run-harness.js";
import { TEST_BACKEND, testBackend } from "../helpers/test-backend.js";
import { tempDir } from "../helpers/tmp.js";

// Leases live under $REBENCH_HOME/gpu-leases: give this file a home of its own.
const root = tempDir("rebench-run-gpus-");
const previousHome = process.env.REBENCH_HOME;
process.env.REBENCH_HOME = path.join(root, "home");
afterAll(() => {
  if (previousHome === undefined) delete process.env.REBENCH_HOME;
  else process.env.REBENCH_HOME = previousHome;
});
const leaseDir = path.join(root, "home", "gpu-leases");
const leaseFiles = () =>
  existsSync(leaseDir)
    ? readdirSync(leaseDir)
        .filter((f) => f.endsWith(".json"))
        .sort()
    : [];

const harness = runHarness(root);
const reference = path.join(ECHO_DIR, "reference", "actions.jsonl");

// test_echo_gpu: test_echo whose mini variant needs one GPU (this machine has none: the spec is built from
// test_echo's, so newRunSpec's resource check passes, and the host's GPU list is injected).
const echo = defineEchoEnvironment({ name: "test_echo_gpu" });
const mini = echo.variants.mini;
registerExtraEnvironment({
  ...echo,
  variants: {
    ...echo.variants,
    mini: { ...mini, manifest: { ...mini.manifest, resources: { ...mini.manifest.resources, gpu: { countRange: [1, 1], models: ["h200"] } } } },
  },
});

/** The tests' backend, recording the GPUs each sandbox is given (and what the lease folder held then), binding none. */
class GpuSpyBackend implements SandboxBackend {
  readonly name = "gpu-spy";
  readonly created: Array<{ id: string; gpus: readonly number[]; leases: Record<string, unknown> }> = [];
  readonly #inner = testBackend(path.join(root, "sandboxes"));
  check() {
    return this.#inner.check();
  }
  /** Make the next create() fail, as a broken engine would. */
  failNext = false;
  async create(spec: SandboxSpec): Promise<Sandbox> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error("engine down");
    }
    const leases = Object.fromEntries(leaseFiles().map((f) => [f, JSON.parse(readFileSync(path.join(leaseDir, f), "utf8"))]));
    this.created.push({ id: spec.id, gpus: spec.gpus ?? [], leases });
    return this.#inner.create({ ...spec, gpus: [] });
  }
  reattach(id: string) {
    return this.#inner.reattach(id);
  }
}
const spy = new GpuSpyBackend();
backends.register({ name: spy.name, terminals: false, create: () => spy }, { replace: true });

async function createRun(environment: string, actions = reference, sandbox = spy.name) {
  const spec = await newRunSpec({
    environment: "test_echo",
    variant: "mini",
    task: "main",
    participant: { kind: "agent", alias: "reference", scaffold: "script", model: actions },
    limits: { actions: 20 },
    config: { sandbox, driver: "orchestrator" },
  });
  return harness.store.createRun({ ...spec, environment });
}

describe("GPU leases in the run lifecycle", () => {
  test("a run of a variant without a GPU touches no lease", async () => {
    const run = await createRun("test_echo", reference, TEST_BACKEND);
    expect((await driveRun(run.id, { store: harness.store, gpus: { hostGpus: [0] } })).state).toBe("finished");
    expect(spy.created).toEqual([]);
    expect(existsSync(leaseDir)).toBe(false);
  });

  test("two concurrent runs of a 1-GPU variant on a 2-GPU host get different GPUs, a third waits; no lease is left", async () => {
    const runs = await Promise.all([1, 2, 3].map(() => createRun("test_echo_gpu")));
    const waits: string[] = [];
    const options = { store: harness.store, gpus: { hostGpus: [0, 1], pollMs: 50, onWait: (line: string) => waits.push(line) } };
    const ended = await Promise.all(runs.map((run) => driveRun(run.id, options)));
    expect(ended.map((r) => r.state)).toEqual(["finished", "finished", "finished"]);
    expect(spy.created.map((c) => c.gpus.length)).toEqual([1, 1, 1]);
    const [first, second, third] = spy.created;
    expect(new Set([first!.gpus[0], second!.gpus[0]])).toEqual(new Set([0, 1]));
    // Each sandbox was created while its lease was held, naming its run.
    for (const c of spy.created) expect(c.leases[`${c.gpus[0]}.json`]).toMatchObject({ runId: c.id, pid: process.pid });
    expect(waits).toHaveLength(1);
    expect(waits[0]).toMatch(new RegExp(`^run ${third!.id} is waiting for a free GPU \\(2 of 2 held by runs (${first!.id}|${second!.id}), `));
    // The run logs which host GPU it got.
    for (const c of spy.created) {
      const notes = await harness.store.events(c.id, { types: ["note"] });
      expect(notes.map(({ event }) => (event.type === "note" ? event.data : undefined))).toContainEqual({ gpus: c.gpus });
    }
    expect(leaseFiles()).toEqual([]);
  });

  test("with runsPerGpu 2, two runs share a 1-GPU host's GPU and each logs that it shares; a third waits", async () => {
    spy.created.length = 0;
    const runs = await Promise.all([1, 2, 3].map(() => createRun("test_echo_gpu")));
    const waits: string[] = [];
    const options = { store: harness.store, gpus: { hostGpus: [0], runsPerGpu: 2, pollMs: 50, onWait: (line: string) => waits.push(line) } };
    const ended = await Promise.all(runs.map((run) => driveRun(run.id, options)));
    expect(ended.map((r) => r.state)).toEqual(["finished", "finished", "finished"]);
    expect(spy.created.map((c) => c.gpus)).toEqual([[0], [0], [0]]);
    // The first two held a slot each while their sandboxes were made; the third waited for one of them.
    expect(Object.keys(spy.created[1]!.leases).sort()).toEqual(["0.1.json", "0.json"]);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toMatch(/is waiting for a free GPU \(1 of 1 held by runs /);
    for (const c of spy.created) {
      const notes = await harness.store.events(c.id, { types: ["note"] });
      expect(notes.map(({ event }) => (event.type === "note" ? event.message : ""))).toContain("host GPU 0 leased to this run (shared: up to 2 runs a GPU)");
    }
    expect(leaseFiles()).toEqual([]);
  });

  test("a run whose sandbox cannot be created, or whose agent fails, gives its GPU back", async () => {
    spy.failNext = true;
    const noSandbox = await createRun("test_echo_gpu");
    expect(await driveRun(noSandbox.id, { store: harness.store, gpus: { hostGpus: [0] } })).toMatchObject({
      state: "failed",
      error: expect.stringMatching(/engine down/),
    });
    expect(leaseFiles()).toEqual([]);
    const noAgent = await createRun("test_echo_gpu");
    const makeAgent = () => {
      throw new Error("no agent today");
    };
    expect(await driveRun(noAgent.id, { store: harness.store, gpus: { hostGpus: [0] }, makeAgent })).toMatchObject({
      state: "failed",
      error: expect.stringMatching(/no agent today/),
    });
    expect(spy.created.at(-1)).toMatchObject({ id: noAgent.id, gpus: [0] });
    expect(leaseFiles()).toEqual([]);
  });

  test("a run resumed after its orchestrator died leases its sandbox's GPUs again, noting one another run took", async () => {
    const run = await createRun("test_echo_gpu");
    const log = await RunLog.open(harness.store, run.id, systemClock);
    await log.append({ type: "note", message: "host GPUs 0, 1 leased to this run", data: { gpus: [0, 1] } });
    const dead = spawn(process.execPath, ["-e", "setInterval(() => undefined, 1000)"], { stdio: "ignore" });
    await new Promise((resolve) => dead.once("exit", resolve).kill("SIGKILL"));
    mkdirSync(leaseDir, { recursive: true });
    writeFileSync(path.join(leaseDir, "0.json"), JSON.stringify({ pid: dead.pid, runId: run.id, since: new Date().toISOString() }));
    const other = await acquireGpus(1, { hostGpus: [1], runId: "other-run" });
    await readoptRunGpus(log);
    expect(JSON.parse(readFileSync(path.join(leaseDir, "0.json"), "utf8"))).toMatchObject({ pid: process.pid, runId: run.id });
    const notes = await harness.store.events(run.id, { types: ["note"] });
    expect(notes.at(-1)?.event).toMatchObject({
      message: "host GPU 1 of this run's sandbox was leased to run other-run while the run was down: the two share it",
    });
    await other.release();
  });
});
