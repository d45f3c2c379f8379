import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { generateMetrRuns } from "../bench/generate-metr-runs.js";
import { SqliteRunStore } from "../src/store/index.js";
import { REPO_ROOT, rebench } from "./helpers/cli.js";
import { RUNS, record } from "./helpers/recorded-runs.js";
import { tempDir } from "./helpers/tmp.js";

// `npm run build` bundles the CLI's entry with commander and `rebench report`'s modules (scripts/bundle-cli.mjs),
// and the compiled CLI loads the bundles; REBENCH_NO_BUNDLE=1 makes it load the modules tsc wrote. Both must print the same bytes and
// write the same files, for every source of runs and for errors.
const dir = tempDir();
const hooks = path.join(dir, "hooks.mjs");
const register = path.join(dir, "register.mjs");

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
  loaded: string[];
}

/** `node bin/rebench.js report ...args`, bundled or not, with the modules it loaded (from a resolve hook, on fd 3). */
function report(bundled: boolean, args: string[]): Ran {
  const trace = path.join(dir, `trace-${bundled}.txt`);
  writeFileSync(trace, "");
  const result = spawnSync(process.execPath, ["--import", register, "bin/rebench.js", "report", ...args], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    env: { ...process.env, REBENCH_TRACE: trace, ...(bundled ? { REBENCH_NO_BUNDLE: "" } : { REBENCH_NO_BUNDLE: "1" }) },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, loaded: readFileSync(trace, "utf8").split("\n").filter(Boolean) };
}

function files(root: string): Record<string, Buffer> {
  const out: Record<string, Buffer> = {};
  for (const name of readdirSync(root, { recursive: true, encoding: "utf8" }).sort()) {
    const full = path.join(root, name);
    try {
      out[name] = readFileSync(full);
    } catch {
      // a folder
    }
  }
  return out;
}

describe("the bundled `rebench report`", () => {
  const runsFile = path.join(dir, "runs.jsonl");
  const db = path.join(dir, "store.db");
  // Rows that only zod's schema reads (a nested rebench_* object) or rejects (a score that is a string).
  const zodRows = path.join(dir, "zod-rows.jsonl");
  const badRows = path.join(dir, "bad-rows.jsonl");
  // Inspect logs: the store's runs as rebench exports them, and a log of another origin (its constants come
  // from the environment registry, which stays outside the bundle).
  const inspectLogs = path.join(dir, "inspect-logs");
  const foreignLog = path.join(dir, "foreign.json");

  beforeAll(async () => {
    const built = spawnSync("npm", ["run", "--silent", "build"], { cwd: REPO_ROOT, encoding: "utf8" });
    expect(built.status, built.stderr).toBe(0);
    writeFileSync(
      hooks,
      'import { appendFileSync } from "node:fs";\nexport async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(process.env.REBENCH_TRACE, `${r.url}\\n`); return r; }\n',
    );
    writeFileSync(register, `import { register } from "node:module"; register(${JSON.stringify(`file://${hooks}`)});\n`);
    writeFileSync(runsFile, generateMetrRuns({ rows: 300, seed: 7 }));
    const [first, ...rest] = generateMetrRuns({ rows: 100, seed: 8 }).trim().split("\n");
    const byKind = { input: 10, cacheRead: 0, cacheWrite: 0, output: 5, reasoning: 1, dollars: null, dropped: 1 };
    writeFileSync(zodRows, `${[JSON.stringify({ ...JSON.parse(first!), rebench_usage_by_kind: byKind }), ...rest].join("\n")}\n`);
    writeFileSync(badRows, `${[first, JSON.stringify({ ...JSON.parse(first!), score: "high" }), "{"].join("\n")}\n`);
    const store = SqliteRunStore.open(db);
    for (const r of RUNS) await record(store, r);
    await store.close();
    const exported = await rebench("runs", "export", "--db", db, "--format", "inspect", "--out", inspectLogs);
    expect(exported.code, exported.stderr).toBe(0);
    const sample = (epoch: number, value: number) => ({ id: "main", epoch, uuid: `s${epoch}`, scores: { score: { value } }, working_time: 3600, events: [] });
    writeFileSync(
      foreignLog,
      JSON.stringify({
        version: 2,
        status: "success",
        eval: { task: "ai_rd_fix_embedding", model: "openai/gpt-x", config: { working_limit: 28800 } },
        samples: [sample(1, 3.2), sample(2, 2.5)],
      }),
    );
  }, 180_000);

  const cases: [string, () => string[]][] = [
    ["a METR runs file, --json", () => ["--runs-file", runsFile, "--budgets", "2h,8h,32h", "--bootstrap", "300", "--json"]],
    ["a METR runs file, tables", () => ["--runs-file", runsFile, "--budgets", "1h,8h", "--bootstrap", "200", "--seed", "3"]],
    ["the run store (score logs), --json", () => ["--db", db, "--budgets", "1h,2h", "--bootstrap", "300", "--json"]],
    ["the run store, --out", () => ["--db", db, "--budgets", "1h,2h", "--bootstrap", "100", "--out", path.join(dir, `out-${Math.random()}`)]],
    ["rows read by zod's schema, --json", () => ["--runs-file", zodRows, "--budgets", "8h", "--bootstrap", "50", "--json"]],
    ["rows zod rejects (exit 2)", () => ["--runs-file", badRows]],
    ["a malformed runs file (exit 2)", () => ["--runs-file", path.join(REPO_ROOT, "package.json")]],
    ["a missing runs file (exit 3)", () => ["--runs-file", path.join(dir, "nope.jsonl")]],
    ["exported Inspect logs, --json", () => ["--runs-file", inspectLogs, "--format", "inspect", "--budgets", "1h,2h", "--bootstrap", "300", "--json"]],
    ["an Inspect log of another origin, tables", () => ["--runs-file", foreignLog, "--format", "inspect", "--budgets", "8h", "--bootstrap", "50"]],
  ];

  test.each(cases)("prints the same bytes as the unbundled modules: %s", { timeout: 60_000 }, (_name, argsOf) => {
    const args = argsOf();
    const out = args.indexOf("--out");
    const bundledArgs = out >= 0 ? args.map((a, i) => (i === out + 1 ? `${a}-bundled` : a)) : args;
    const bundled = report(true, bundledArgs);
    const plain = report(false, args);
    // Each ran the code it should: the bundle, or tsc's modules and no bundle.
    expect(bundled.loaded.some((url) => url.endsWith("/dist/src/cli/report-bundle/report.js"))).toBe(true);
    expect(bundled.loaded.filter((url) => /\/dist\/src\/(analysis|cli\/commands)\//.test(url))).toEqual([]);
    expect(plain.loaded.some((url) => url.endsWith("/dist/src/cli/commands/report.js"))).toBe(true);
    expect(plain.loaded.filter((url) => url.includes("/report-bundle/"))).toEqual([]);
    // The CLI itself: main.bundle.js with commander inside, or tsc's main.js and commander's CommonJS files.
    expect(bundled.loaded.some((url) => url.endsWith("/dist/src/cli/main.bundle.js"))).toBe(true);
    expect(bundled.loaded.filter((url) => url.includes("/node_modules/commander/") || url.endsWith("/dist/src/cli/main.js"))).toEqual([]);
    expect(plain.loaded.some((url) => url.endsWith("/dist/src/cli/main.js"))).toBe(true);
    expect(plain.loaded.some((url) => url.includes("/node_modules/commander/"))).toBe(true);
    expect(plain.loaded.filter((url) => url.endsWith("/main.bundle.js"))).toEqual([]);

    expect(bundled.status).toBe(plain.status);
    if (out >= 0) {
      expect(bundled.stdout).toBe(plain.stdout.replaceAll(args[out + 1]!, bundledArgs[out + 1]!));
      const a = files(bundledArgs[out + 1]!);
      const b = files(args[out + 1]!);
      expect(Object.keys(a)).toEqual(Object.keys(b));
      expect(Object.keys(a).length).toBeGreaterThan(5);
      for (const name of Object.keys(a)) expect(a[name]!.equals(b[name]!), name).toBe(true);
    } else {
      expect(bundled.stdout).toBe(plain.stdout);
    }
    expect(bundled.stderr).toBe(plain.stderr);
    expect(bundled.stdout.length + bundled.stderr.length).toBeGreaterThan(0);
  });

  test("a report on a METR file loads neither zod nor the store", { timeout: 60_000 }, () => {
    const plain = report(false, ["--runs-file", runsFile, "--json"]);
    expect(plain.status).toBe(0);
    expect(plain.loaded.filter((url) => /\/node_modules\/(zod|better-sqlite3)\/|\/dist\/src\/store\//.test(url))).toEqual([]);
    expect(plain.loaded.some((url) => url.endsWith("/dist/src/analysis/metr/parse-metr-runs.js"))).toBe(true);
  });

  test("the bundled CLI starts without loading node:child_process (commander's is required on first use)", { timeout: 60_000 }, () => {
    const probe = path.join(dir, "probe.cjs");
    writeFileSync(
      probe,
      'process.on("exit", () => require("node:fs").writeSync(2, `child_process loaded: ${process.moduleLoadList.includes("NativeModule child_process")}\\n`));\n',
    );
    const loaded = (env: Record<string, string>, args: string[]) =>
      spawnSync(process.execPath, ["--require", probe, "bin/rebench.js", ...args], { cwd: REPO_ROOT, encoding: "utf8", env: { ...process.env, ...env } })
        .stderr;
    expect(loaded({ REBENCH_NO_BUNDLE: "" }, ["--version"])).toContain("child_process loaded: false");
    expect(loaded({ REBENCH_NO_BUNDLE: "" }, ["report", "--runs-file", runsFile, "--bootstrap", "10", "--json"])).toContain("child_process loaded: false");
    // Unbundled, commander loads it: the probe sees the difference.
    expect(loaded({ REBENCH_NO_BUNDLE: "1" }, ["--version"])).toContain("child_process loaded: true");
  });

  test("errors thrown inside the bundle keep their exit codes (not 70, an internal error)", { timeout: 60_000 }, () => {
    expect(report(true, ["--runs-file", path.join(REPO_ROOT, "package.json")]).status).toBe(2);
    expect(report(true, ["--runs-file", path.join(dir, "nope.jsonl")]).status).toBe(3);
  });
});
