/**
 * @module
 * Benchmark: the whole `rebench report` process (best-of-k over 2h, 8h and 32h budgets for every
 * participant, 1,000 bootstrap replicates) on a generated METR-format file of about 2,000 runs, beside
 * the same analysis as a plain numpy pipeline (bench/report_numpy.py) run by .venv/bin/python. Prints
 * a table of whole-process wall times (median and best of N) and CPU times and checks that both give the same point
 * estimates. Run: `npm run bench:report` (builds first; `-- --runs N` for more repetitions).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { generateMetrRuns } from "./generate-metr-runs.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const REPEATS = Number(process.argv[process.argv.indexOf("--runs") + 1]) || 7;
const PYTHON = path.join(ROOT, ".venv/bin/python");

const GNU_TIME = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;

/** Run a command; wall seconds, and CPU seconds (user + system) where GNU time is installed. */
function run(command: string, args: readonly string[], stdout: "ignore" | "pipe" = "ignore"): { seconds: number; cpu: number; output: string } {
  const [file, argv] = GNU_TIME ? [GNU_TIME, ["-f", "cpu %U %S", command, ...args]] : [command, args];
  const start = process.hrtime.bigint();
  const result = spawnSync(file, argv, { cwd: ROOT, stdio: ["ignore", stdout, "pipe"], maxBuffer: 256 * 1024 * 1024 });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const stderr = result.stderr.toString();
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (${result.status}):\n${stderr}`);
  const times = /cpu (\S+) (\S+)\s*$/.exec(stderr);
  const cpu = times ? Number(times[1]) + Number(times[2]) : Number.NaN;
  return { seconds, cpu, output: stdout === "pipe" ? result.stdout.toString() : "" };
}

interface Timing {
  median: number;
  best: number;
  cpu: number;
}

/** Times of each command, run in turns (so a change in machine load hits all of them alike). */
function timeAll(commands: readonly [string, string, readonly string[]][]): [string, Timing][] {
  for (const [, command, args] of commands) run(command, args); // warm the file cache
  const samples = commands.map((): { seconds: number; cpu: number }[] => []);
  for (let i = 0; i < REPEATS; i++)
    commands.forEach(([, command, args], c) => {
      samples[c]!.push(run(command, args));
    });
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return commands.map(([name], c) => {
    const wall = samples[c]!.map((s) => s.seconds);
    return [name, { median: median(wall), best: Math.min(...wall), cpu: median(samples[c]!.map((s) => s.cpu)) }];
  });
}

const dir = mkdtempSync(path.join(os.tmpdir(), "rebench-bench-"));
try {
  process.stderr.write("building (npm run build)...\n");
  run("npm", ["run", "--silent", "build"]);
  const file = path.join(dir, "runs.jsonl");
  const text = generateMetrRuns({ rows: 2000, seed: 1 });
  writeFileSync(file, text);
  const rows = text.trim().split("\n").length;
  const report = ["bin/rebench.js", "report", "--runs-file", file, "--format", "metr", "--budgets", "2h,8h,32h", "--bootstrap", "1000"];
  const numpyOut = path.join(dir, "numpy.json");
  const numpy = [path.join(ROOT, "bench/report_numpy.py"), file, numpyOut, "--budgets", "2h,8h,32h", "--bootstrap", "1000"];

  // Same numbers? Point estimates and allocations must agree exactly; intervals only statistically.
  const ours = JSON.parse(run(process.execPath, [...report, "--json"], "pipe").output) as { rows: Row[] };
  run(PYTHON, numpy);
  const theirs = JSON.parse(readFileSync(numpyOut, "utf8")) as { rows: Row[] };
  let maxDiff = 0;
  ours.rows.forEach((row, i) => {
    const other = theirs.rows[i]!;
    if (row.participant !== other.participant || row.budget !== other.budget || row.allocation?.k !== other.allocation?.k) {
      throw new Error(`rows differ: ${JSON.stringify(row)} vs ${JSON.stringify(other)}`);
    }
    if (row.score !== null) maxDiff = Math.max(maxDiff, Math.abs(row.score - other.score!));
  });

  process.stderr.write(`timing ${REPEATS} runs each...\n`);
  const results = timeAll([
    ["rebench report --json (node, whole process)", process.execPath, [...report, "--json"]],
    ["numpy pipeline (python, whole process)", PYTHON, numpy],
    ["rebench report --out DIR (tables, HTML, figures as SVG+PNG+JSON)", process.execPath, [...report, "--out", path.join(dir, "out")]],
    ["rebench --help (node + CLI start-up only)", process.execPath, ["bin/rebench.js", "--help"]],
  ]);
  const participants = new Set(ours.rows.map((r) => r.participant)).size;
  const numpyVersion = run(PYTHON, ["-c", "import numpy, sys; print(numpy.__version__, sys.version.split()[0])"], "pipe").output.trim().split(" ");
  console.log(`\nrebench report benchmark: ${rows} METR-format rows, ${participants} participants, budgets 2h,8h,32h, 1,000 bootstrap replicates`);
  console.log(
    `machine: ${os.cpus()[0]?.model ?? "unknown CPU"}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB; node ${process.version}, numpy ${numpyVersion[0]} (python ${numpyVersion[1]})\n`,
  );
  console.log("| pipeline | wall, median (s) | wall, best (s) | CPU user+sys, median (s) |");
  console.log("|---|---:|---:|---:|");
  for (const [name, t] of results) console.log(`| ${name} | ${t.median.toFixed(3)} | ${t.best.toFixed(3)} | ${Number.isNaN(t.cpu) ? "-" : t.cpu.toFixed(2)} |`);
  console.log(`\npoint estimates: rebench vs numpy, max |difference| over ${ours.rows.length} rows = ${maxDiff.toExponential(1)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

interface Row {
  participant: string;
  budget: string;
  allocation: { k: number } | null;
  score: number | null;
}
