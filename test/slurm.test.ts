import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import {
  calibrationConstants,
  machineClass,
  normalize,
  probeMachine,
  type RunSummary,
  type ScoreLogEntry,
  type StoredEvent,
  scoreStats,
} from "../src/core/index.js";
import { jobStates } from "../src/slurm/index.js";
import { openStore } from "../src/store/index.js";
import { REPO_ROOT } from "./helpers/cli.js";
import { echoCopy } from "./helpers/echo-copy.js";
import { freshDatabase, postgresSkip } from "./helpers/postgres.js";
import { slurmCluster, slurmSkip } from "./helpers/slurm.js";
import { TEST_BACKEND } from "./helpers/test-backend.js";
import { tempDir } from "./helpers/tmp.js";

const root = tempDir("rebench-slurm-test-");
const sandboxes = path.join(root, "sandboxes");
const home = path.join(root, "home");
const tsx = path.join(REPO_ROOT, "node_modules/tsx/dist/loader.mjs");

function cli(args: string[], extraEnv: NodeJS.ProcessEnv = {}): ChildProcess {
  const env = { ...process.env, REBENCH_HOME: home, REBENCH_TEST_SANDBOX_ROOT: sandboxes, ...extraEnv };
  return spawn(process.execPath, ["--import", tsx, path.join(REPO_ROOT, "test/fixtures/rebench-cli.ts"), ...args], {
    cwd: REPO_ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }> {
  let output = "";
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  return new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal, output })));
}

const runCli = (args: string[]) => exited(cli(args));

function actionsFile(name: string, steps: object[]): string {
  const file = path.join(root, name);
  writeFileSync(file, steps.map((s) => JSON.stringify(s)).join("\n"));
  return file;
}

async function withStore<T>(db: string, fn: (store: Awaited<ReturnType<typeof openStore>>) => Promise<T>): Promise<T> {
  const store = await openStore(db);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

async function snapshot(db: string): Promise<Array<{ run: RunSummary; log: ScoreLogEntry[]; events: StoredEvent[] }>> {
  return withStore(db, async (store) =>
    Promise.all((await store.listRuns()).map(async (run) => ({ run, log: await store.scoreLog(run.id), events: await store.events(run.id) }))),
  );
}

/** Poll the store until `done` says so (or fail after `seconds`). */
async function until(db: string, what: string, done: (runs: Awaited<ReturnType<typeof snapshot>>) => boolean, seconds = 180): Promise<void> {
  for (let i = 0; i < seconds * 2; i++) {
    if (done(await snapshot(db))) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`timed out waiting until ${what}`);
}

/** The long command: it runs until the test lets it end (a file `go` in its workspace), however slow the machine. */
const LONG = "until [ -e go ]; do sleep 0.2; done";

/** Whether `event` is the action that runs the long command. */
function isLongAction(event: StoredEvent["event"] | undefined): event is Extract<StoredEvent["event"], { type: "action" }> {
  return event?.type === "action" && (event.input as { command?: unknown } | null)?.command === LONG;
}

/** The run is inside the long command: its action without its observation. */
function inLongCommand(events: readonly StoredEvent[]): boolean {
  return isLongAction(events.filter(({ event }) => event.type === "action" || event.type === "observation").at(-1)?.event);
}

/** Let the long command of every run now inside it end: `go` in its workspace (either test backend's layout). */
async function releaseLongCommands(db: string): Promise<void> {
  for (const { run, events } of await snapshot(db)) {
    if (!inLongCommand(events)) continue;
    const workspace = [path.join(sandboxes, run.id, "home", "workspace"), path.join(sandboxes, run.id, "workspace")].find((d) => existsSync(d));
    if (workspace) writeFileSync(path.join(workspace, "go"), "");
  }
}

const types = (events: readonly StoredEvent[]) => events.map((e) => e.event.type);

/** How many jobs (a job array counts once) the cluster in `dir` was given so far: slurmctld logs each sbatch. */
function sbatchCount(dir: string): number {
  return readFileSync(path.join(dir, "log", "slurmctld.log"), "utf8").match(/_slurm_rpc_submit_batch_job: JobId=/g)?.length ?? 0;
}

/** `1234_5` as its array's job id and index; a job of its own, undefined. */
function element(jobId: string): { array: string; index: number } | undefined {
  const m = /^(\d+)_(\d+)$/.exec(jobId);
  return m ? { array: m[1]!, index: Number(m[2]) } : undefined;
}

describe.skipIf(slurmSkip !== undefined || postgresSkip !== undefined)("the Slurm executor on a one-node cluster, into PostgreSQL", () => {
  test("rebench run --executor slurm: one job array (one sbatch) for the batch, asking for the manifest's CPUs and memory, element i driving the i-th run, each run recording its element and allocation", {
    timeout: 300_000,
  }, async () => {
    const dir = await slurmCluster(["--cpus", "8", "--memory-mb", "40000"]);
    const db = await freshDatabase();
    const sbatchesBefore = sbatchCount(dir);
    const result = await runCli([
      "run",
      "test_echo",
      "--variant",
      "mini",
      "--agent",
      "replay",
      "--runs",
      "2",
      "--executor",
      "slurm",
      "--slurm-option=--time=00:10:00",
      "--backend",
      TEST_BACKEND,
      "--db",
      db,
      "--progress",
      "2",
    ]);
    expect(result.code, result.output).toBe(0);
    expect(sbatchCount(dir) - sbatchesBefore).toBe(1);
    const announced = /Slurm job array (\d+) submitted: 2 run\(s\), element i drives the i-th \(\1_0 (\w+), \1_1 (\w+)\)/.exec(result.output);
    expect(announced, result.output).not.toBeNull();
    const [, arrayId, first, second] = announced!;
    const runs = await snapshot(db);
    expect(runs).toHaveLength(2);
    // Element i drives the i-th run: its job is ARRAY_i, its element's output names it, and the element's job_started is in it.
    expect(new Set(runs.map((r) => r.run.id))).toEqual(new Set([first, second]));
    for (const [i, id] of [first!, second!].entries()) {
      const { run, events } = runs.find((r) => r.run.id === id)!;
      expect(run.job!.id).toBe(`${arrayId}_${i}`);
      expect(events.filter((e) => e.event.type === "job_started").map((e) => e.event.type === "job_started" && e.event.jobId)).toEqual([`${arrayId}_${i}`]);
      const out = readFileSync(path.join(home, "slurm", `${run.spec.batchId}-${arrayId}_${i}.out`), "utf8");
      expect(out).toContain(`rebench: Slurm job ${arrayId}_${i} drives run ${id}`);
    }
    for (const { run, events, log } of runs) {
      expect(run.state).toBe("finished");
      expect(run.spec.config).toMatchObject({ executor: "slurm", slurm: { options: ["--time=00:10:00"] } });
      const submitted = events.find((e) => e.event.type === "job_submitted")!.event;
      expect(submitted).toMatchObject({ executor: "slurm", jobId: run.job!.id });
      expect(submitted.type === "job_submitted" && submitted.request).toEqual(
        expect.arrayContaining(["--array=0-1", "--cpus-per-task=2", "--mem=8192M", "--time=00:10:00"]),
      );
      const started = events.find((e) => e.event.type === "job_started")!.event;
      expect(started).toMatchObject({ jobId: run.job!.id, allocation: { gpus: [], cpus: 2, memoryMb: 8192 } });
      // The job is recorded before it can start, and its driver (on the node) attaches after it started.
      expect(types(events).indexOf("job_submitted")).toBeLessThan(types(events).indexOf("job_started"));
      expect(types(events).indexOf("job_started")).toBeLessThan(types(events).indexOf("driver_attached"));
      expect(log.filter((e) => e.outcome.kind === "scored").length).toBeGreaterThanOrEqual(2);
      expect(run.job).toMatchObject({ executor: "slurm", node: expect.any(String) });
    }
    const states = await jobStates(runs.map((r) => r.run.job!.id));
    expect([...states.values()].map((j) => j.state)).toEqual(["COMPLETED", "COMPLETED"]);
    const list = await runCli(["runs", "list", "--db", db]);
    expect(list.output).toMatch(new RegExp(`${runs[0]!.run.id}\\s+test_echo/mini\\s+reference \\(replay\\)\\s+finished\\s+${runs[0]!.run.job!.id} COMPLETED`));
    const show = await runCli(["runs", "show", runs[0]!.run.id, "--db", db]);
    expect(show.output).toMatch(new RegExp(`job:\\s+Slurm job ${runs[0]!.run.job!.id} COMPLETED, submitted \\S+, started on \\S+`));
  });

  test("a GPU variant is not refused on a login node without GPUs: its job asks Slurm for the GPU and gets one of the node's", {
    timeout: 300_000,
  }, async () => {
    await slurmCluster(["--cpus", "8", "--memory-mb", "40000"]);
    const db = await freshDatabase();
    const result = await runCli([
      "run",
      "test_echo_gpu_job",
      "--variant",
      "mini",
      "--agent",
      "replay",
      "--executor",
      "slurm",
      "--backend",
      TEST_BACKEND,
      "--db",
      db,
      "--progress",
      "2",
    ]);
    const [{ run, events }] = (await snapshot(db)) as [Awaited<ReturnType<typeof snapshot>>[number]];
    const submitted = events.find((e) => e.event.type === "job_submitted")!.event;
    expect(submitted.type === "job_submitted" && submitted.request).toEqual(expect.arrayContaining(["--gres=gpu:1", "--cpus-per-task=1", "--mem=1024M"]));
    expect(events.find((e) => e.event.type === "job_started")!.event).toMatchObject({ allocation: { gpus: [expect.any(Number)], cpus: 1, memoryMb: 1024 } });
    // The node's GPUs are the cluster's placeholders: the sandbox, given the allocated one, finds no NVIDIA device for it.
    expect(run.state).toBe("failed");
    expect(run.error).toMatch(/GPU \d has no device node \/dev\/nvidia\d/);
    expect(result.code).toBe(1);
  });

  test("a run of a variant calibrated per class is normalized by the class of its job's node, which the job records when it starts", {
    timeout: 300_000,
  }, async () => {
    await slurmCluster(["--cpus", "8", "--memory-mb", "40000"]);
    const db = await freshDatabase();
    // Entries for this CPU at every count of cores a job may be given, each with its own reference.
    const here = await probeMachine();
    const entries = Object.fromEntries(
      Array.from({ length: 16 }, (_, i) => {
        const machine = { ...here, cores: i + 1 };
        const entry = {
          machine,
          date: "2026-12-01T00:00:00.000Z",
          runs: 2,
          start: scoreStats([0.05, 0.05]),
          reference: scoreStats([-3 - i / 10, -3 - i / 10]),
        };
        return [machineClass(machine, "cpu")!, { ...entry, gapOverStd: 100 }];
      }),
    );
    const family = echoCopy(root, "test_echo_per_class", (dir) => writeFileSync(path.join(dir, "calibration.json"), JSON.stringify({ mini: entries })));
    const args = ["run", family.name, "--variant", "mini", "--agent", "replay", "--executor", "slurm", "--backend", TEST_BACKEND, "--db", db];
    const result = await exited(cli(args, { REBENCH_TEST_ECHO_COPIES: family.dir }));
    expect(result.code, result.output).toBe(0);
    const [{ run, events }] = (await snapshot(db)) as [Awaited<ReturnType<typeof snapshot>>[number]];
    const created = events[0]!.event;
    expect(created.type === "run_created" && created.spec).toMatchObject({
      normalizationMissing: expect.stringMatching(/known only when the job starts there/),
    });
    expect(created.type === "run_created" && created.spec.normalization).toBeUndefined();
    const started = events.find((e) => e.event.type === "job_started")!.event;
    const nodeClass = started.type === "job_started" ? started.machineClass : undefined;
    expect(nodeClass).toBeDefined();
    expect(Object.keys(entries)).toContain(nodeClass);
    expect(run.spec).toMatchObject({ machineClass: nodeClass, normalization: calibrationConstants(nodeClass!, entries[nodeClass!]!) });
    expect(run.spec.normalizationMissing).toBeUndefined();
    expect(run.state).toBe("finished");
    expect(run.normalized).toBeCloseTo(normalize(run.finalRaw!, run.spec.normalization!), 12);
    const show = await runCli(["runs", "show", run.id, "--db", db]);
    expect(show.output).toContain(`by the calibration of ${nodeClass}, 2026-12-01, N=2`);
  });

  test("the orchestrator killed mid-batch and a job cancelled: runs resume finishes every run, no event lost or duplicated", { timeout: 600_000 }, async () => {
    await slurmCluster(["--cpus", "8", "--memory-mb", "40000"]);
    const db = await freshDatabase();
    const actions = actionsFile("long.jsonl", [
      { tool: "score" },
      { tool: "bash", input: { command: "sleep 0.1" } },
      { tool: "score" },
      // A command the agent ends with a signal: the job, asked, is running, so its observation is the run's own.
      { tool: "bash", input: { command: "kill -TERM $$" } },
      { tool: "bash", input: { command: LONG } },
      { tool: "score" },
      { tool: "submit", input: { submission: "after the crash" } },
    ]);
    // Three runs, one job array of three elements, two running at a time: when the orchestrator dies, two run in Slurm
    // and the third element waits for one of them to end.
    const orchestrator = cli([
      "run",
      "test_echo",
      "--variant",
      "mini",
      "--agent",
      "replay",
      "--actions",
      actions,
      "--runs",
      "3",
      "--concurrency",
      "2",
      "--executor",
      "slurm",
      "--backend",
      TEST_BACKEND,
      "--db",
      db,
      "--progress",
      "2",
    ]);
    const killed = exited(orchestrator);
    await until(db, "two runs are in their long command", (runs) => runs.length === 3 && runs.filter((r) => inLongCommand(r.events)).length === 2);
    orchestrator.kill("SIGKILL");
    expect((await killed).signal).toBe("SIGKILL");

    const before = await snapshot(db);
    const [cancelled, running] = before.filter((r) => inLongCommand(r.events)) as [(typeof before)[number], (typeof before)[number]];
    const queued = before.find((r) => !inLongCommand(r.events))!;
    expect(queued.run.state).toBe("queued");
    // One array: an element per run, each recorded before any ran, the third held back by the array's limit of two.
    const elements = before.map((r) => element(r.run.job!.id));
    expect(new Set(elements.map((e) => e?.array)).size).toBe(1);
    expect(elements.map((e) => e?.index).sort()).toEqual([0, 1, 2]);
    expect((await jobStates([queued.run.job!.id])).get(queued.run.job!.id)).toMatchObject({ state: "PENDING" });
    for (const { log, events } of [cancelled, running]) {
      expect(log).toHaveLength(3); // the starting score and two score actions
      const killed = events.find(
        ({ event }) => event.type === "observation" && event.tool === "bash" && /"signal":"SIGTERM"|"exitCode":143/.test(JSON.stringify(event.output)),
      );
      expect(killed?.event, JSON.stringify(events.map((e) => e.event))).toBeDefined();
    }

    // scancel one element (as an operator or a preemption would): it stops, its run stays where it was; the array's
    // other elements go on, and the third starts in its place.
    const scancel = spawn("scancel", [cancelled.run.job!.id], { stdio: "ignore" });
    await new Promise((resolve) => scancel.on("exit", resolve));
    for (let i = 0; i < 120; i++) {
      const state = (await jobStates([cancelled.run.job!.id])).get(cancelled.run.job!.id)!.state;
      if (state === "CANCELLED") break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect((await jobStates([cancelled.run.job!.id])).get(cancelled.run.job!.id)!.state).toBe("CANCELLED");
    const afterCancel = (await snapshot(db)).find((r) => r.run.id === cancelled.run.id)!;
    expect(afterCancel.run.state).toBe("running");
    expect(existsSync(path.join(sandboxes, cancelled.run.id))).toBe(true);

    // Once resume has taken stock (it has submitted the cancelled run again), every long command may end: the
    // job that lived on is still running when resume looks, however long this machine took to get here.
    const resuming = exited(cli(["runs", "resume", "--db", db]));
    let resumed = false;
    void resuming.then(() => (resumed = true));
    await until(db, "runs resume submitted the cancelled run again", (runs) =>
      runs.some((r) => r.run.id === cancelled.run.id && r.events.filter((e) => e.event.type === "job_submitted").length === 2),
    );
    while (!resumed) {
      await releaseLongCommands(db);
      await new Promise((r) => setTimeout(r, 300));
    }
    const resume = await resuming;
    expect(resume.code, resume.output).toBe(0);
    expect(resume.output).toMatch(/resumed 3 run\(s\), skipped 0/);

    const after = await snapshot(db);
    for (const { run, events, log } of after) {
      expect(run.state, `${run.id}: ${run.error}`).toBe("finished");
      // Numbered 1..n without a gap or a repeat, and everything logged before is still there, unchanged.
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      const old = before.find((b) => b.run.id === run.id)!;
      expect(events.slice(0, old.events.length)).toEqual(old.events);
      expect(log.slice(0, old.log.length)).toEqual(old.log);
      expect(log.at(-1)?.outcome.kind).toBe("scored");
    }
    const get = (id: string) => after.find((r) => r.run.id === id)!;
    // The cancelled run: a second job, on the node that holds its sandbox; its command cut off, its downtime a pause.
    const again = get(cancelled.run.id);
    const submissions = again.events.filter((e) => e.event.type === "job_submitted");
    expect(submissions).toHaveLength(2);
    expect(submissions[1]!.event.type === "job_submitted" && submissions[1]!.event.request).toContain(`--nodelist=${cancelled.run.job!.node}`);
    // Resubmitted alone: a job of its own (no array), the run's other elements left as they were.
    expect(submissions[1]!.event.type === "job_submitted" && element(submissions[1]!.event.jobId)).toBeUndefined();
    expect(submissions[1]!.event.type === "job_submitted" && submissions[1]!.event.request.some((a) => a.startsWith("--array"))).toBe(false);
    // Slurm's SIGTERM reaches the sandbox's long command as well as the job's driver, and the command's end can reach
    // the driver first: it is not written as the command's own (the job is no longer running), but as cut off.
    const long = again.events.map((e) => e.event).find(isLongAction)!;
    const answer = again.events.find((e) => e.event.type === "observation" && e.event.actionId === long.actionId)?.event;
    expect(answer?.type === "observation" && answer.output, JSON.stringify(answer)).toMatchObject({ interrupted: true });
    expect(again.events.some((e) => e.event.type === "pause_started" && e.event.reason === "recovery")).toBe(true);
    expect(again.log.length).toBeGreaterThanOrEqual(5);
    // The run whose element lived on: waited for, never submitted again; the queued one: its element, submitted once.
    expect(get(running.run.id).events.filter((e) => e.event.type === "job_submitted")).toHaveLength(1);
    expect(get(queued.run.id).events.filter((e) => e.event.type === "job_submitted")).toHaveLength(1);
    expect(readdirSync(sandboxes).filter((id) => after.some((r) => r.run.id === id))).toEqual([]);
  });

  test("runs cancel ends a run for good: its job cancelled, its sandbox removed, the run failed with its score log", { timeout: 300_000 }, async () => {
    await slurmCluster(["--cpus", "8", "--memory-mb", "40000"]);
    const db = await freshDatabase();
    const actions = actionsFile("cancel.jsonl", [
      { tool: "score" },
      { tool: "bash", input: { command: LONG } }, // never let end: the run is cancelled inside it
      { tool: "submit", input: { submission: "never" } },
    ]);
    const orchestrator = cli([
      "run",
      "test_echo",
      "--variant",
      "mini",
      "--agent",
      "replay",
      "--actions",
      actions,
      "--executor",
      "slurm",
      "--backend",
      TEST_BACKEND,
      "--db",
      db,
      "--progress",
      "2",
    ]);
    const done = exited(orchestrator);
    await until(db, "the run is in its long command", (runs) => runs.length === 1 && inLongCommand(runs[0]!.events));
    const [{ run }] = (await snapshot(db)) as [Awaited<ReturnType<typeof snapshot>>[number]];
    expect(existsSync(path.join(sandboxes, run.id))).toBe(true);

    const cancel = await runCli(["runs", "cancel", run.id, "--db", db]);
    expect(cancel.code, cancel.output).toBe(0);
    expect(cancel.output).toMatch(
      new RegExp(`run ${run.id} failed: cancelled by \\S+ \\(\`rebench runs cancel\`, Slurm job ${run.job!.id}\\) \\(Slurm job ${run.job!.id}: CANCELLED\\)`),
    );
    const [{ run: ended, log, events }] = (await snapshot(db)) as [Awaited<ReturnType<typeof snapshot>>[number]];
    expect(ended.state).toBe("failed");
    expect(log).toHaveLength(2); // the starting score and the score action
    expect(types(events)).toContain("cancel_requested");
    expect(existsSync(path.join(sandboxes, run.id))).toBe(false);
    // The orchestrator that waited for it sees it end.
    const waited = await done;
    expect(waited.code).toBe(1);
    expect(waited.output).toMatch(/1 of 1 run\(s\) failed: cancelled by/);
    // A run that has ended cannot be cancelled again.
    const twice = await runCli(["runs", "cancel", run.id, "--db", db]);
    expect(twice.code).toBe(5);
    expect(twice.output).toMatch(/has already failed/);
  });
});
