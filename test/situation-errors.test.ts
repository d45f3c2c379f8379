import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SqliteRunStore } from "../src/store/index.js";
import { sampleSpec } from "../src/store/store.contract.js";
import { type CliResult, REPO_ROOT } from "./helpers/cli.js";
import { tempDir } from "./helpers/tmp.js";

const root = tempDir("rebench-situation-");
const db = path.join(root, "runs.db");
const readOnly = path.join(root, "read-only");

/** The CLI as a process; `readOnlyDirs`: mounted read-only for it (bubblewrap, as the local sandbox uses). */
function cli(args: string[], readOnlyDirs: string[] = []): Promise<CliResult> {
  const tsx = pathToFileURL(path.join(REPO_ROOT, "node_modules/tsx/dist/loader.mjs")).href;
  const node = [process.execPath, "--import", tsx, path.join(REPO_ROOT, "test/fixtures/rebench-cli.ts"), ...args];
  const [file, ...argv] = readOnlyDirs.length === 0 ? node : ["bwrap", "--dev-bind", "/", "/", ...readOnlyDirs.flatMap((d) => ["--ro-bind", d, d]), ...node];
  return new Promise((resolve) => {
    execFile(file!, argv, { cwd: REPO_ROOT }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** Not a bug: a message and what to do, exit 4 (not available here), no stack trace. */
function expectSituation(result: CliResult, message: RegExp, hint: RegExp): void {
  expect(result.code, result.stderr).toBe(4);
  expect(result.stderr).toMatch(message);
  expect(result.stderr).toMatch(new RegExp(`\\n  hint: .*${hint.source}`));
  expect(result.stderr).not.toMatch(/internal error|a bug/);
  expect(result.stderr).not.toMatch(/^\s+at /m);
}

beforeAll(async () => {
  const store = SqliteRunStore.open(db);
  await store.createRun(sampleSpec);
  await store.close();
  mkdirSync(readOnly);
  writeFileSync(path.join(readOnly, "README"), "mounted read-only for the command under test\n");
});

describe("errors of the machine's situation say what to do and exit 4, never 'a bug'", () => {
  const holder = createServer();
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    port = (holder.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));

  test("rebench serve on a port another process holds", async () => {
    const result = await cli(["serve", "--db", db, "--port", String(port)]);
    expectSituation(result, new RegExp(`127\\.0\\.0\\.1:${port} is in use by another process`), /--port/);
  });

  test("writing --out on a read-only file system", async () => {
    const result = await cli(["runs", "export", "--db", db, "--out", path.join(readOnly, "runs.jsonl")], [readOnly]);
    expectSituation(result, new RegExp(`${path.join(readOnly, "runs.jsonl")} is on a read-only file system`), /writable/);
  });

  test("a run store on read-only media", async () => {
    const copy = path.join(readOnly, "runs.db");
    const store = SqliteRunStore.open(copy);
    await store.close();
    const result = await cli(["run", "test_echo", "--variant", "mini", "--agent", "replay", "--db", copy], [readOnly]);
    expectSituation(result, new RegExp(`cannot open the run store at ${copy}: ${readOnly} is on a read-only file system`), /cp STORE COPY/);
  });
});
