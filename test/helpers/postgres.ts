/**
 * @module
 * A real PostgreSQL server for the tests: one throwaway cluster per test file (scripts/throwaway-postgres:
 * a temporary folder, a free port), started on first use and stopped after the file; each call of
 * `freshDatabase()` creates an empty database in it. `REBENCH_TEST_POSTGRES_URL` (a server's URL whose user
 * may create databases) uses that server instead. Where PostgreSQL's server programs are missing, the tests
 * skip, except on a machine that scripts/bootstrap set up as root, where they must work (skipOrFail).
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll } from "vitest";
import { REPO_ROOT } from "./cli.js";
import { skipOrFail } from "./required.js";

const run = promisify(execFile);

function serverPrograms(): string | undefined {
  const base = "/usr/lib/postgresql";
  const versions = existsSync(base) ? readdirSync(base).filter((v) => existsSync(path.join(base, v, "bin", "initdb"))) : [];
  return versions.length > 0 ? undefined : "PostgreSQL's server programs are not installed (apt-get install postgresql; scripts/install-system does it)";
}

/** Why the PostgreSQL tests cannot run here (a failing test where they must), or undefined. */
export const postgresSkip: string | undefined = process.env.REBENCH_TEST_POSTGRES_URL ? undefined : skipOrFail("PostgreSQL", serverPrograms());

let server: Promise<string> | undefined;
let serverDir: string | undefined;
let databases = 0;

afterAll(async () => {
  if (serverDir === undefined) return;
  await run(path.join(REPO_ROOT, "scripts/throwaway-postgres"), ["stop", serverDir]).catch(() => undefined);
  rmSync(serverDir, { recursive: true, force: true });
}, 60_000);

/** The URL of this test file's server (its `rebench` database), starting it on first use. */
export function postgresServer(): Promise<string> {
  if (process.env.REBENCH_TEST_POSTGRES_URL) return Promise.resolve(process.env.REBENCH_TEST_POSTGRES_URL);
  server ??= (async () => {
    // Not under a 0700 temporary folder: the server runs as the postgres user, which must reach it.
    const dir = mkdtempSync(path.join(os.tmpdir(), "rebench-pg-"));
    serverDir = dir;
    const { stdout } = await run(path.join(REPO_ROOT, "scripts/throwaway-postgres"), ["start", dir], { timeout: 120_000 });
    return stdout.trim().split("\n").at(-1)!;
  })();
  return server;
}

/** A new, empty database on the test server: its URL. */
export async function freshDatabase(): Promise<string> {
  const base = await postgresServer();
  const name = `rebench_test_${process.pid}_${databases++}`;
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Run SQL directly against a database (bypassing rebench), for tests of what the server itself refuses. */
export async function sql<T extends pg.QueryResultRow = pg.QueryResultRow>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, params)).rows;
  } finally {
    await client.end();
  }
}
