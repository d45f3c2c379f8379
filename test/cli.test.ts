import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { PAPER_ENVIRONMENTS } from "../src/core/index.js";
import { SqliteRunStore } from "../src/store/index.js";
import { sampleSpec } from "../src/store/store.contract.js";
import { REPO_ROOT, rebench, rebenchProcess } from "./helpers/cli.js";
import { tempDir } from "./helpers/tmp.js";

const dir = tempDir();

describe("rebench environments", () => {
  test("list --json lists the seven environments first, with three variants and the paper constants", async () => {
    const { code, stdout } = await rebench("environments", "list", "--json");
    expect(code).toBe(0);
    const list = JSON.parse(stdout) as Array<{
      name: string;
      variants: Record<string, { available: boolean; normalization: { start: number; reference: number } | null }>;
    }>;
    // The paper's seven in its order; an environment added beside them (docs/adding-an-environment.md) follows.
    expect(PAPER_ENVIRONMENTS).toHaveLength(7);
    expect(list.map((e) => e.name).slice(0, 7)).toEqual([...PAPER_ENVIRONMENTS]);
    for (const [i, env] of list.entries()) {
      expect(Object.keys(env.variants)).toEqual(["mini", "gpu", "paper"]);
      if (i < 7) expect(env.variants.paper!.normalization).not.toBeNull();
    }
    expect(list[1]!.variants.paper!.normalization).toMatchObject({ start: 1.5535302804958044, reference: 0.4700036292457356 });
  });

  test("list prints a table with one row per variant", async () => {
    const { code, stdout } = await rebench("environments", "list");
    expect(code).toBe(0);
    expect(stdout.split("\n")[0]).toMatch(/^ENVIRONMENT\s+VARIANT\s+AVAILABLE/);
    const listed = (JSON.parse((await rebench("environments", "list", "--json")).stdout) as unknown[]).length;
    expect(stdout.trim().split("\n")).toHaveLength(1 + 3 * listed);
  });

  test("show prints the manifest and says when a variant is not available", async () => {
    const { code, stdout } = await rebench("environments", "show", "scaling_law", "--variant", "paper");
    expect(code).toBe(0);
    expect(stdout).toMatch(/Scaling Law Experiment \(scaling_law\), variant paper, task main/);
    expect(stdout).toMatch(/higher is better, aggregate last, score hidden from the agent/);
    expect(stdout).toMatch(/start 0\.2356, reference 0\.84 \(paper\)/);
  });

  test("show --task hidden_score hides the score from the agent", async () => {
    const { stdout } = await rebench("environments", "show", "optimize_kernel", "--task", "hidden_score", "--json");
    expect(JSON.parse(stdout).manifest.scoring.visibleToAgent).toBe(false);
  });

  test("an unknown environment exits 3 with the known names as a hint", async () => {
    const { code, stderr } = await rebench("environments", "show", "nope");
    expect(code).toBe(3);
    expect(stderr).toMatch(/rebench: unknown environment "nope"/);
    expect(stderr).toMatch(/hint: known environments: optimize_llm_foundry/);
  });

  test("scaling_law has no hidden_score task", async () => {
    const { code, stderr } = await rebench("environments", "show", "scaling_law", "--task", "hidden_score");
    expect(code).toBe(3);
    expect(stderr).toMatch(/scaling_law has no task "hidden_score"/);
  });
});

describe("rebench runs", () => {
  test("list and show read runs from the store given by --db", async () => {
    const db = path.join(dir, "runs.db");
    const store = SqliteRunStore.open(db);
    const run = await store.createRun(sampleSpec);
    await store.append(run.id, { type: "state_changed", to: "running" });
    await store.append(run.id, {
      type: "score_logged",
      trigger: "action",
      entry: { timestamp: new Date().toISOString(), elapsedSeconds: 61, outcome: { kind: "scored", value: 1.25 }, message: { time_ms: 3.49 }, details: {} },
    });
    await store.close();

    const list = await rebench("runs", "list", "--db", db);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${run.id}\\s+optimize_kernel/mini\\s+test-model\\s+running\\s+0s\\s+1/1\\s+1\\.25`));

    const json = JSON.parse((await rebench("runs", "list", "--db", db, "--json")).stdout);
    expect(json).toHaveLength(1);
    expect(json[0].rawScoreSoFar).toBe(1.25);
    expect(json[0].rawScore).toBeNull();

    const show = await rebench("runs", "show", run.id, "--db", db, "--events");
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/score log:/);
    expect(show.stdout).toMatch(/1m1s\s+1\.25\s+-\s+\{"time_ms":3\.49\}/); // no contention numbers recorded: "-"
    expect(show.stdout).toMatch(/\s+3\s+\S+\s+score_logged/);
  });

  test("a Slurm run's job on a host where Slurm does not answer: `unknown` and why, not `?`; --json job.state null", async () => {
    const db = path.join(dir, "slurm-runs.db");
    const store = SqliteRunStore.open(db);
    const run = await store.createRun({ ...sampleSpec, config: { executor: "slurm" } });
    await store.append(run.id, { type: "job_submitted", executor: "slurm", jobId: "1", request: [] });
    await store.close();
    // No cluster here: without SLURM_CONF (and no /etc/slurm/slurm.conf) squeue fails, as on a host outside the cluster.
    const noCluster = { SLURM_CONF: undefined };
    const list = await rebenchProcess(["runs", "list", "--db", db], noCluster);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${run.id}\\s+\\S+\\s+\\S+\\s+queued\\s+1 unknown\\s`));
    expect(list.stdout).not.toMatch(/ 1 \?/);
    expect(list.stdout).toMatch(/^JOB: the Slurm jobs' states are unknown: Slurm's commands do not answer here \(squeue failed/m);
    expect(list.stdout).toContain("SLURM_CONF");
    const json = JSON.parse((await rebenchProcess(["runs", "list", "--db", db, "--json"], noCluster)).stdout);
    expect(json[0].job).toMatchObject({ executor: "slurm", id: "1", state: null });
  });

  test("show of an unknown run exits 3", async () => {
    await SqliteRunStore.open(path.join(dir, "empty.db")).close();
    const { code, stderr } = await rebench("runs", "show", "r0000000000000", "--db", path.join(dir, "empty.db"));
    expect(code).toBe(3);
    expect(stderr).toMatch(/no run r0000000000000/);
  });

  test("a bad --state value exits 2 and names the allowed values", async () => {
    const { code, stderr } = await rebench("runs", "list", "--db", path.join(dir, "empty.db"), "--state", "sleeping");
    expect(code).toBe(2);
    expect(stderr).toMatch(/--state is invalid/);
  });

  test("the default store lives under $REBENCH_HOME", async () => {
    const home = path.join(dir, "home");
    // Reading commands never create it: they name where they looked.
    const missing = await rebenchProcess(["runs", "list"], { REBENCH_HOME: home });
    expect(missing).toMatchObject({ code: 3, stdout: "" });
    expect(missing.stderr).toContain(`no run store at ${path.join(home, "rebench.db")}`);
    expect(existsSync(home)).toBe(false);
    await SqliteRunStore.open(path.join(home, "rebench.db")).close();
    const result = await rebenchProcess(["runs", "list"], { REBENCH_HOME: home });
    expect(result).toMatchObject({ code: 0, stdout: "no runs\n" });
  });
  test("--db with a URL of another kind exits 2, one of an unreachable server 6; neither creates a file", async () => {
    const cwd = path.join(dir, "cwd-db-url");
    mkdirSync(cwd);
    const home = path.join(dir, "home-db-url");
    const refused = [
      ["runs", "list", "--db", "mysql://rebench@db.example/runs"],
      ["start", "optimize_kernel", "--variant", "mini", "--dir", "work", "--db", "mysql://db.example/runs"],
    ];
    for (const args of refused) {
      const result = await rebenchProcess(args, { REBENCH_HOME: home }, { cwd });
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr, args.join(" ")).toMatch(
        /"mysql:\/\/" is not a store rebench knows; the supported stores are a SQLite file path .* or a PostgreSQL URL/,
      );
    }
    const unreachable = [
      ["runs", "list", "--db", "postgres://rebench:secret@127.0.0.1:1/runs"],
      ["report", "--db", "postgresql://127.0.0.1:1/runs"],
      ["main", "--db", "postgres://127.0.0.1:1/runs"],
    ];
    for (const args of unreachable) {
      const result = await rebenchProcess(args, { REBENCH_HOME: home }, { cwd });
      expect(result.code, args.join(" ")).toBe(6);
      expect(result.stderr, args.join(" ")).toMatch(/cannot open the run store at postgres(ql)?:\/\/(rebench@)?127\.0\.0\.1:1\/runs: .*ECONNREFUSED/);
      expect(result.stderr).not.toMatch(/secret/);
      expect(result.stderr).toMatch(/hint: check that the server is up/);
    }
    expect(readdirSync(cwd)).toEqual([]);
    expect(existsSync(home)).toBe(false);
  });

  test("runs cancel ends a local run no process drives, once; runs drive belongs in a Slurm job", async () => {
    const db = path.join(dir, "cancel.db");
    const store = SqliteRunStore.open(db);
    const run = await store.createRun(sampleSpec);
    await store.close();
    const cancel = await rebench("runs", "cancel", run.id, "--db", db);
    expect(cancel).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(new RegExp(`run ${run.id} failed: cancelled by \\S+ \\(\`rebench runs cancel\`\\)`)),
    });
    expect((await rebench("runs", "cancel", run.id, "--db", db)).code).toBe(5);
    const drive = await rebench("runs", "drive", run.id, "--db", db);
    expect(drive.code).toBe(2);
    expect(drive.stderr).toMatch(/runs inside a run's Slurm job \(SLURM_JOB_ID is not set\)/);
  });

  test("--partition and --slurm-option without --executor slurm exit 2", async () => {
    const result = await rebench("run", "optimize_kernel", "--variant", "mini", "--agent", "replay", "--partition", "gpu", "--db", path.join(dir, "none.db"));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--partition and --slurm-option are for --executor slurm/);
  });

  test("--db sqlite:PATH and sqlite:///PATH name a SQLite file", async () => {
    for (const [i, prefix] of ["sqlite:", "sqlite://"].entries()) {
      const file = path.join(dir, `prefixed-${i}.db`);
      await SqliteRunStore.open(file).close();
      expect(await rebench("runs", "list", "--db", `${prefix}${file}`)).toMatchObject({ code: 0, stdout: "no runs\n" });
    }
  });
});

describe("rebench (the program)", () => {
  test("--help lists the commands and exits 0", async () => {
    const { code, stdout } = await rebench("--help");
    expect(code).toBe(0);
    expect(stdout).toMatch(/environments/);
    expect(stdout).toMatch(/runs/);
  });

  test("every subcommand has --help", async () => {
    for (const args of [
      ["environments", "list"],
      ["environments", "show"],
      ["runs", "list"],
      ["runs", "show"],
    ]) {
      const { code, stdout } = await rebench(...args, "--help");
      expect(code, args.join(" ")).toBe(0);
      expect(stdout, args.join(" ")).toMatch(/Example:/);
    }
  });

  test("an unknown command exits 2 with commander's message", async () => {
    const { code, stderr } = await rebench("frobnicate");
    expect(code).toBe(2);
    expect(stderr).toMatch(/unknown command 'frobnicate'/);
  });

  test("the process exit code follows the error class", async () => {
    const result = await rebenchProcess(["environments", "show", "nope"]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/unknown environment/);
  });

  test("an unknown variant or task is not found (exit 3) in every command that takes one, as the README's exit codes say", async () => {
    const readme = readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");
    expect(readme).toContain("3 not found (an unknown environment, variant, task or run)");
    const db = path.join(dir, "unknown-names.db");
    const work = path.join(dir, "unknown-names-work");
    for (const args of [
      ["run", "optimize_kernel", "--variant", "huge", "--agent", "replay", "--db", db],
      ["run", "optimize_kernel", "--variant", "mini", "--task", "secret", "--agent", "replay", "--db", db],
      ["start", "optimize_kernel", "--variant", "huge", "--dir", work, "--db", db],
      ["start", "optimize_kernel", "--variant", "mini", "--task", "secret", "--dir", work, "--db", db],
      ["human", "optimize_kernel", "--variant", "huge", "--db", db],
      ["calibrate", "optimize_kernel", "--variant", "huge", "--db", db],
      ["exploits", "optimize_kernel", "--variant", "huge", "--db", db],
      ["environments", "show", "optimize_kernel", "--variant", "huge"],
      ["runs", "list", "--variant", "huge", "--db", db],
    ]) {
      const result = await rebench(...args);
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(3);
      expect(result.stderr).toMatch(/unknown (variant "huge"|task "secret")/);
    }
    // As a process too: the exit status itself.
    expect((await rebenchProcess(["run", "optimize_kernel", "--variant", "huge", "--agent", "replay", "--db", db])).code).toBe(3);
  });
});
