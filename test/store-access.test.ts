/**
 * Commands that only read a store (runs list/show/export, report) and those that act on runs already in it
 * (runs resume, runs cancel) never create one: a mistyped --db is an error naming the path, and nothing
 * appears on disk. A store on a read-only file system can be read.
 */
import { execFile } from "node:child_process";
import { existsSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";
import { SqliteRunStore } from "../src/store/index.js";
import { type CliResult, REPO_ROOT, rebench } from "./helpers/cli.js";
import { record } from "./helpers/recorded-runs.js";
import { tempDir } from "./helpers/tmp.js";

const root = tempDir("rebench-store-access-");

describe("a --db that names no store", () => {
  const missing = path.join(root, "nodir", "x.db");
  const commands: Array<[string, string[]]> = [
    ["runs list", ["runs", "list"]],
    ["runs list --json", ["runs", "list", "--json"]],
    ["runs show", ["runs", "show", "r0abcdefghijklmn"]],
    ["runs export", ["runs", "export"]],
    ["report", ["report"]],
    ["runs resume", ["runs", "resume"]],
    ["runs cancel", ["runs", "cancel", "r0abcdefghijklmn"]],
  ];
  for (const [name, args] of commands) {
    test(`\`rebench ${name}\` exits 3 with one line naming the path, and creates neither the store nor its folder`, async () => {
      const result = await rebench(...args, "--db", missing);
      expect(result.code, result.stderr).toBe(3);
      expect(result.stderr).toContain(`rebench: no run store at ${missing}\n`);
      expect(result.stdout).toBe("");
      expect(existsSync(path.dirname(missing))).toBe(false);
    });
  }

  test("an existing file that is not a run store is refused, not turned into one", async () => {
    const store = path.join(root, "not-a-store.db");
    writeFileSync(store, "");
    const result = await rebench("runs", "list", "--db", store);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`${store} is not a rebench run store`);
    expect(statSync(store).size).toBe(0);
  });
});

/** The CLI as its own process, with `dir` mounted read-only (a real read-only file system, even for root). */
function rebenchReadOnly(dir: string, args: string[]): Promise<CliResult> {
  const tsx = pathToFileURL(path.join(REPO_ROOT, "node_modules/tsx/dist/loader.mjs")).href;
  const argv = ["--dev-bind", "/", "/", "--ro-bind", dir, dir, "--", process.execPath, "--import", tsx, path.join(REPO_ROOT, "src/cli/main.ts"), ...args];
  return new Promise((resolve) => {
    execFile("bwrap", argv, { cwd: REPO_ROOT }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe("a store on a read-only file system", () => {
  test("can be listed, shown and reported on", async () => {
    const dir = path.join(root, "readonly");
    const db = path.join(dir, "runs.db");
    const store = SqliteRunStore.open(db);
    await record(store, { alias: "agent-a", environment: "optimize_kernel", limit: 3600, log: [[60, 1.5]], finish: true });
    const [run] = await store.listRuns();
    await store.close();

    const list = await rebenchReadOnly(dir, ["runs", "list", "--db", db, "--json"]);
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as Array<{ runId: string }>).map((r) => r.runId)).toEqual([run!.id]);
    const show = await rebenchReadOnly(dir, ["runs", "show", run!.id, "--db", db]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(`run ${run!.id}: optimize_kernel/mini`);
    const report = await rebenchReadOnly(dir, ["report", "--db", db, "--budgets", "1h"]);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain("agent-a");
    const exported = await rebenchReadOnly(dir, ["runs", "export", "--db", db]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout.trim().split("\n")).toHaveLength(1);
    const site = path.join(root, "site");
    const served = await rebenchReadOnly(dir, ["serve", "--db", db, "--export", site]);
    expect(served.code, served.stderr).toBe(0);
    expect(served.stdout).toMatch(/^wrote 1 runs in /);
  });
});
