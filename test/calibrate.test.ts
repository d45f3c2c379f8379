import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { type CalibrationFile, type MachineInfo, machineClass, probeMachine, scoreStats } from "../src/core/index.js";
import { forgetEnvironmentDigests } from "../src/environments/environment-digest.js";
import { readCalibrationFile } from "../src/environments/index.js";
import { newRunSpec } from "../src/runs/run-environment.js";
import { SqliteRunStore } from "../src/store/index.js";
import { rebench, replayRun } from "./helpers/cli.js";
import { defineEchoCopy, echoCopy, FIXTURES_DIR } from "./helpers/echo-copy.js";
import { registerFixtures, TEST_BACKEND } from "./helpers/register-fixtures.js";
import { tempDir } from "./helpers/tmp.js";

const root = tempDir("rebench-calibrate-");
registerFixtures(path.join(root, "sandboxes"));

const grader = (name: string) => (dir: string) => copyFileSync(path.join(FIXTURES_DIR, "calibration-graders", name), path.join(dir, "grader", "score.py"));
const ELSEWHERE: MachineInfo = {
  cpuModel: "Imaginary CPU 9000",
  cpuGeneration: "family 99 model 9",
  cores: 512,
  memoryGb: 4096,
  gpu: null,
  gpuCount: 0,
  os: "Linux 9.9",
  rebenchVersion: "0.1.0",
  rebenchCommit: null,
};
const ELSEWHERE_CLASS = "Imaginary CPU 9000 family 99 model 9, 512 cores";
const calibratedElsewhere: CalibrationFile = {
  canary: "7389377f-e6f3-4b15-8f10-86b4f9b72cc2",
  mini: {
    [ELSEWHERE_CLASS]: {
      machine: ELSEWHERE,
      date: "2026-01-01T00:00:00.000Z",
      runs: 2,
      start: scoreStats([-1.0, -1.1]),
      reference: scoreStats([-3.0, -3.1]),
      gapOverStd: 28.3,
    },
  },
};
const writeElsewhere = (dir: string) => writeFileSync(path.join(dir, "calibration.json"), JSON.stringify(calibratedElsewhere));
/** This machine's class for a CPU variant (the one the tests' runs are scored on). */
const HERE = machineClass(await probeMachine(), "cpu")!;
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const NO_ENTRY = (name: string) =>
  `${name}/mini has no calibration for ${HERE} (only ${ELSEWHERE_CLASS}): run \`rebench calibrate ${name} --variant mini --write\` on a machine of that class`;

async function storedRuns(db: string) {
  const store = SqliteRunStore.open(db);
  try {
    return await store.listRuns();
  } finally {
    await store.close();
  }
}

// Real runs, up to eight a test: under the shared VM's load (16 on 2 cores) one took past the 60 s default.
describe("rebench calibrate", { timeout: 300_000 }, () => {
  test("--max-new-runs splits a calibration over several calls and --resume keeps the finished runs of the same environment files", async () => {
    const family = echoCopy(root, "test_echo_resume", grader("steady.py"));
    const db = path.join(root, "resume.db");
    const args = ["calibrate", family.name, "--variant", "mini", "--runs", "2", "--backend", TEST_BACKEND, "--db", db, "--resume", "--max-new-runs", "3"];
    const first = await rebench(...args);
    expect(first.code, first.stderr).toBe(1);
    expect(first.stderr).toMatch(/incomplete \(start 2 of 2, reference 1 of 2/);
    expect(first.stderr).toMatch(/--resume/);
    expect(await storedRuns(db)).toHaveLength(3);
    const second = await rebench(...args, "--json");
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/2 finished start run\(s\) kept/);
    expect(second.stderr).toMatch(/1 finished reference run\(s\) kept/);
    const result = JSON.parse(second.stdout);
    expect(result.start.n).toBe(2);
    expect(result.reference.n).toBe(2);
    const runs = await storedRuns(db);
    expect(runs).toHaveLength(4);
    expect([...result.runIds.start, ...result.runIds.reference].sort()).toEqual(runs.map((r) => r.id).sort());
    // Another environment's files are another calibration: nothing is kept.
    writeFileSync(path.join(family.dir, "workspace", "changed.txt"), "new file\n");
    forgetEnvironmentDigests();
    const third = await rebench(...args);
    expect(third.stderr).not.toMatch(/run\(s\) kept/);
    expect(third.code).toBe(1);
  });

  test("--only reference runs the reference's runs first; --resume then runs only the start's", async () => {
    const family = echoCopy(root, "test_echo_only", grader("steady.py"));
    const db = path.join(root, "only.db");
    const args = ["calibrate", family.name, "--variant", "mini", "--runs", "2", "--backend", TEST_BACKEND, "--db", db, "--resume"];
    const first = await rebench(...args, "--only", "reference");
    expect(first.code, first.stderr).toBe(1);
    expect(first.stderr).toMatch(/incomplete \(start 0 of 2, reference 2 of 2; --only reference\)/);
    expect(first.stderr).toMatch(/without --only \(or --only start\)/);
    expect((await storedRuns(db)).map((r) => r.spec.participant.alias)).toEqual(["reference (replay)", "reference (replay)"]);
    const second = await rebench(...args, "--json");
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/2 finished reference run\(s\) kept/);
    expect(JSON.parse(second.stdout).start.n).toBe(2);
    expect(await storedRuns(db)).toHaveLength(4);
    expect((await rebench(...args, "--only", "both")).stderr).toMatch(/--only is start or reference, got "both"/);
  });

  test("runs start and reference N times each as real runs, reports mean ± std and the machine, passes the 10× rule, and --write makes the means the constants of this machine's class", async () => {
    const family = echoCopy(root, "test_echo_steady", (dir) => {
      grader("steady.py")(dir);
      writeElsewhere(dir);
    });
    const db = path.join(root, "steady.db");
    const { code, stdout, stderr } = await rebench(
      "calibrate",
      family.name,
      "--variant",
      "mini",
      "--runs",
      "2",
      "--backend",
      TEST_BACKEND,
      "--db",
      db,
      "--write",
      "--json",
    );
    expect(code, stderr).toBe(0);
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({
      environment: family.name,
      variant: "mini",
      task: "main",
      direction: "min",
      runs: 2,
      pass: true,
      referenceBetter: true,
      machineClass: HERE,
    });
    expect(result.machine).toEqual(await probeMachine());
    expect(result.start.values).toHaveLength(2);
    expect(result.start.mean).toBeCloseTo(1, 1);
    expect(result.reference.mean).toBeCloseTo(0, 1);
    expect(result.start.std).toBeGreaterThan(0);
    expect(result.gapOverStd).toBeGreaterThan(10);
    expect(stderr).toMatch(/test_echo_steady\/mini start \(replay\) · /);

    // The runs are in the store, one batch per solution, and the numbers are their final raw scores.
    const runs = await storedRuns(db);
    const byBatch = (batch: string) => runs.filter((r) => r.spec.batchId === batch);
    expect(byBatch(result.batches.start).map((r) => [r.spec.participant.alias, r.state, r.finalRaw])).toEqual(
      result.start.values.map((v: number) => ["start (replay)", "finished", v]),
    );
    expect(byBatch(result.batches.reference).map((r) => r.finalRaw)).toEqual(result.reference.values);

    // calibration.json round-trips into the entry of this machine's class, beside the other class's, and into new runs.
    expect(result.written).toBe(path.join(family.dir, "calibration.json"));
    const file = readCalibrationFile(family.dir)!;
    expect(file.canary).toBe("7389377f-e6f3-4b15-8f10-86b4f9b72cc2");
    expect(file.mini?.[ELSEWHERE_CLASS]).toEqual(calibratedElsewhere.mini![ELSEWHERE_CLASS]);
    expect(file.mini?.[HERE]).toEqual({
      machine: result.machine,
      date: result.date,
      runs: 2,
      start: result.start,
      reference: result.reference,
      gapOverStd: result.gapOverStd,
      minutes: result.minutes,
    });
    // Each solution's mean minutes a run, what `calibrate --all` expects a calibration of it to take.
    expect(result.minutes.start).toBeGreaterThan(0);
    expect(result.minutes.reference).toBeGreaterThan(0);
    // From each run's leaving the queue, not its creation: the batch creates its runs at once, and one at a time
    // the second run waits for the first, so the mean from creation is longer.
    const fromCreation = (batch: string) =>
      byBatch(batch).reduce((sum, r) => sum + (Date.parse(r.finishedAt!) - Date.parse(r.createdAt)) / 60_000, 0) / byBatch(batch).length;
    expect(result.minutes.start).toBeLessThan(fromCreation(result.batches.start));
    expect(result.minutes.reference).toBeLessThan(fromCreation(result.batches.reference));
    const again = defineEchoCopy(family.dir, "test_echo_steady_again");
    expect(Object.keys(again.variants.mini.calibrations).sort()).toEqual([ELSEWHERE_CLASS, HERE].sort());
    const run = await replayRun(again.name, "start", db);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/no normalized score/);
    const entry = { machineClass: HERE, date: result.date, runs: 2 };
    expect(JSON.parse(run.stdout).runs[0]).toMatchObject({
      normalization: { start: result.start.mean, reference: result.reference.mean, source: "calibration", entry },
      normalizationMissing: null,
      machineClass: HERE,
    });
    const [started] = (await storedRuns(db)).filter((r) => r.spec.environment === again.name);
    expect(started!.spec.normalization).toMatchObject({ start: result.start.mean, reference: result.reference.mean, source: "calibration", entry });
    expect(started!.spec.machineClass).toBe(HERE);
    expect(started!.normalized).toBeLessThan(0.1);
    // The progress line and `runs show` say which entry normalized the score.
    const label = escapeRegExp(`${HERE}, ${result.date.slice(0, 10)}, N=2`);
    expect(run.stderr).toMatch(new RegExp(`run ${started!.id} finished \\(submitted\\): raw \\S+, normalized \\S+ \\(by ${label}\\)`));
    const shown = await rebench("runs", "show", started!.id, "--db", db);
    expect(shown.stdout).toMatch(new RegExp(`score: +raw \\S+, normalized \\S+ by the calibration of ${label}\n`));
    expect(shown.stdout).toMatch(new RegExp(`machine: +class ${escapeRegExp(HERE)} `));
    const listed = await rebench("runs", "list", "--db", db);
    expect(listed.stdout).toMatch(/^RUN .* NORMALIZED BY /);
    expect(listed.stdout).toMatch(new RegExp(`^${started!.id} .* ${label} `, "m"));
    // The report says which entry normalized its runs; the calibration's own runs, made before the entry existed, have none.
    const report = await rebench("report", "--db", db, "--budgets", "30m");
    expect(report.code, report.stderr).toBe(0);
    expect(report.stderr).toContain(`${again.name}/mini normalized by ${HERE}, ${result.date.slice(0, 10)}, N=2 (1 run).\n`);
    expect(report.stderr).toContain(`Left out 4 run(s): no normalized score: ${NO_ENTRY(family.name)}.\n`);
  });

  test("several names are calibrated one after another: a plan with what each is expected to take first, a failure does not stop the others, and the exit says what is not done", async () => {
    const steady = echoCopy(root, "test_echo_many_steady", grader("steady.py"));
    const drift = echoCopy(root, "test_echo_many_drift", grader("drift.py"));
    const db = path.join(root, "many.db");
    const args = ["calibrate", drift.name, steady.name, "--variant", "mini", "--runs", "2", "--backend", TEST_BACKEND, "--db", db, "--write"];
    const planned = await rebench(...args, "--dry-run");
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toMatch(new RegExp(`^${drift.name}/mini +no +2 \\+ 2 runs +unknown$`, "m"));
    expect(planned.stdout).toMatch(/expected duration unknown: no calibration of these variants/);
    expect(await storedRuns(db)).toHaveLength(0);
    const first = await rebench(...args);
    expect(first.code).toBe(1);
    expect(first.stdout).toMatch(new RegExp(`\\[1/2\\] ${drift.name}/mini\n[\\s\\S]*\\[2/2\\] ${steady.name}/mini\n`));
    expect(first.stdout).toMatch(new RegExp(`^${drift.name}/mini +not done: ${drift.name}/mini fails the calibration rule`, "m"));
    expect(first.stdout).toMatch(new RegExp(`^${steady.name}/mini +calibrated \\(written\\)$`, "m"));
    expect(first.stderr).toMatch(new RegExp(`1 of 2 calibrations are not done \\(${drift.name}\\)`));
    expect(readCalibrationFile(drift.dir)?.mini).toBeUndefined();
    const written = readCalibrationFile(steady.dir)!.mini![HERE]!;
    // The plan now knows how long the steady one takes (its entry's minutes) and the drifting one (its runs in the store).
    const again = await rebench(...args, "--dry-run", "--json");
    expect(again.code, again.stderr).toBe(0);
    const plan = JSON.parse(again.stdout).plan as { name: string; minutes: number; minutesFrom: string }[];
    expect(plan.find((p) => p.name === steady.name)).toMatchObject({
      minutesFrom: `its runs on ${HERE}`,
      minutes: 2 * (written.minutes!.start + written.minutes!.reference),
    });
    expect(plan.find((p) => p.name === drift.name)).toMatchObject({ minutesFrom: "earlier runs in the store" });
    // --all plans every listed environment (none of these test copies): here, without running anything.
    const all = await rebench("calibrate", "--all", "--variant", "mini", "--dry-run", "--db", db, "--json");
    expect(all.code, all.stderr).toBe(0);
    expect((JSON.parse(all.stdout).plan as { name: string }[]).map((p) => p.name)).toContain("scaling_law");
    expect((await rebench("calibrate", "--all", steady.name, "--variant", "mini")).stderr).toMatch(/names or --all, not both/);
  });

  test("fails the rule with exit 1 when start and reference overlap, writes nothing, and names the machine class it measured", async () => {
    const family = echoCopy(root, "test_echo_drift", (dir) => {
      grader("drift.py")(dir);
      writeElsewhere(dir);
    });
    const file = path.join(family.dir, "calibration.json");
    const before = readFileSync(file, "utf8");
    const db = path.join(root, "drift.db");
    const { code, stdout, stderr } = await rebench(
      "calibrate",
      family.name,
      "--variant",
      "mini",
      "--runs",
      "2",
      "--backend",
      TEST_BACKEND,
      "--db",
      db,
      "--write",
      "--progress",
      "600",
    );
    expect(code).toBe(1);
    expect(stderr).not.toMatch(/warning/);
    expect(stdout).toMatch(
      /^Calibration of test_echo_drift\/mini \(task main; raw score, lower is better\)\nmachine: .+ · \d+ cores · [\d.]+ GB · (no GPU|.+); .+; rebench 0\.1\.0/m,
    );
    expect(stdout).toContain(`\nmachine class: ${HERE} (--write records the entry of this class only)\n`);
    expect(stdout).toMatch(/SOLUTION\s+RUNS\s+MEAN\s+STD\s+RAW SCORES\nstart\s+2\s+\S+\s+\S+\s+\S+, \S+\nreference\s+2\s/);
    expect(stdout).toMatch(/gap \|reference − start\| = [\d.]+ = [\d.]+ × the larger standard deviation [\d.]+ \(needs ≥ 10×\): FAIL/);
    expect(stdout).toMatch(/nothing written to .*calibration\.json: the rule failed/);
    expect(stderr).toMatch(/rebench: test_echo_drift\/mini fails the calibration rule/);
    expect(readFileSync(file, "utf8")).toBe(before);
    expect(await storedRuns(db)).toHaveLength(4);
  });

  test("without a calibration for this machine's class, run, runs show, main and report give no normalized score, but the reason and the command", async () => {
    const family = echoCopy(root, "test_echo_elsewhere", writeElsewhere);
    expect(family.variants.mini.normalization).toMatchObject({ source: "shipped" }); // declared, and not used: the file has entries
    const reason = NO_ENTRY(family.name);
    const db = path.join(root, "elsewhere.db");
    const run = await replayRun(family.name, "start", db);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`rebench: no normalized scores on this machine: ${reason}\n`);
    expect(run.stderr).toMatch(/finished \(submitted\): raw \S+, no normalized score \(/);
    expect(run.stderr).not.toMatch(/normalized \d/);
    const result = JSON.parse(run.stdout).runs[0];
    expect(result).toMatchObject({ normalizedScore: null, normalization: null, normalizationMissing: reason, machineClass: HERE });
    expect(result.rawScore).toEqual(expect.any(Number));
    const [stored] = await storedRuns(db);
    expect(stored!.spec.normalization).toBeUndefined();
    expect(stored!.spec).toMatchObject({ machineClass: HERE, normalizationMissing: reason });
    expect(stored!.normalized).toBeNull();
    const shown = await rebench("runs", "show", stored!.id, "--db", db);
    expect(shown.stdout).toContain(`, no normalized score: ${reason}\n`);
    // A run a Slurm job drives is scored on a node of a class not known when it is created: no constants either.
    const slurm = await newRunSpec({
      environment: family.name,
      variant: "mini",
      task: "main",
      participant: { kind: "agent", alias: "a" },
      limits: {},
      config: { executor: "slurm" },
    });
    expect(slurm.normalization).toBeUndefined();
    expect(slurm.machineClass).toBeUndefined();
    expect(slurm.normalizationMissing).toMatch(
      /^a Slurm job scores test_echo_elsewhere\/mini on a node whose machine class is known only when the job starts there/,
    );
    const report = await rebench("report", "--db", db, "--budgets", "30m");
    expect(report.code).toBe(2);
    expect(report.stderr).toContain(`Left out 1 run(s): no normalized score: ${reason}.`);

    const main = await rebench(
      "main",
      "--environments",
      family.name,
      "--backend",
      TEST_BACKEND,
      "--db",
      path.join(root, "main", "runs.db"),
      "--progress",
      "600",
    );
    expect(main.code, main.stderr).toBe(0);
    expect(main.stderr).toContain(`rebench: no normalized scores on this machine: ${reason}\n`);
    expect(main.stdout).toContain(`\nno normalized score: ${reason}\n`);
    expect(main.stdout).toContain(`so no report\nLeft out 2 run(s): no normalized score: ${reason}.\n`);
    expect(main.stdout).not.toMatch(/warning|do not hold/);
  });

  test("passes deterministic solutions (both standard deviations 0) and says so in plain words", async () => {
    const family = echoCopy(root, "test_echo_exact", (dir) => {
      grader("steady.py")(dir);
      const file = path.join(dir, "grader", "score.py");
      const noisy = readFileSync(file, "utf8");
      const exact = noisy.replace(" + random.gauss(0.0, 0.01)", "");
      expect(exact).not.toBe(noisy);
      writeFileSync(file, exact);
    });
    const twoRunsEach = ["--variant", "mini", "--runs", "2", "--backend", TEST_BACKEND, "--db", path.join(root, "exact.db"), "--progress", "600"];
    const { code, stdout } = await rebench("calibrate", family.name, ...twoRunsEach);
    expect(code).toBe(0);
    expect(stdout).toMatch(/start\s+2\s+1\s+0\s+1, 1\nreference\s+2\s+0\s+0\s+0, 0/);
    expect(stdout).toMatch(/gap \|reference − start\| = 1 and both standard deviations are 0 \(needs a gap above 0\): PASS/);
  });

  test("refuses fewer than 2 runs, an unknown variant and an unavailable one before anything runs", async () => {
    const db = path.join(root, "refused.db");
    const one = await rebench("calibrate", "test_echo", "--variant", "mini", "--runs", "1", "--db", db);
    expect(one.code).toBe(2);
    expect(one.stderr).toMatch(/--runs must be an integer of at least 2/);
    expect((await rebench("calibrate", "test_echo", "--variant", "huge", "--db", db)).code).toBe(3);
    const gpu = await rebench("calibrate", "test_echo", "--variant", "gpu", "--db", db);
    expect(gpu.code).toBe(4);
    expect(gpu.stderr).toMatch(/test_echo\/gpu is not available/);
    // Runs share a GPU only where there is one and the score times nothing.
    const noGpu = await rebench("calibrate", "test_echo", "--variant", "mini", "--runs-per-gpu", "2", "--db", db);
    expect(noGpu.code).toBe(2);
    expect(noGpu.stderr).toMatch(/test_echo\/mini uses no GPU, so --runs-per-gpu has nothing to share/);
    const timed = await rebench("run", "optimize_kernel", "--variant", "mini", "--agent", "replay", "--runs-per-gpu", "2", "--db", db);
    expect(timed.code).toBe(2);
    expect(timed.stderr).toMatch(/optimize_kernel\/mini is timing-sensitive: runs sharing a GPU would slow each other's scored code/);
    const timedReference = await rebench("run", "restricted_mlm", "--variant", "mini", "--agent", "replay", "--runs-per-gpu", "2", "--db", db);
    expect(timedReference.code).toBe(2);
    expect(timedReference.stderr).toMatch(
      /restricted_mlm\/mini needs a quiet machine \(the reference trains for a fixed number of minutes\): runs sharing a GPU would cost/,
    );
    // A Slurm calibration's runs are scored on nodes of a class the command cannot know: it writes nothing.
    const slurm = await rebench("calibrate", "test_echo", "--variant", "mini", "--executor", "slurm", "--write", "--db", db);
    expect(slurm.code).toBe(2);
    expect(slurm.stderr).toMatch(/--write records the entry of the machine class the runs ran on, which a Slurm calibration does not know/);
    expect(await storedRuns(db)).toEqual([]);
  });
});
