/**
 * @module
 * What the one-shot jail's search for special files costs a jailed call: p50/p95 of `$REBENCH_AS_AGENT --jail
 * -- true` from the grader of a local sandbox whose workspace holds N files (in directories of 100), against
 * the same call without the jail. The search (python/rebench_env/sandbox_jail.py, `special_files`) stats every
 * entry of the workspace before the call starts. Prints a table. Run as root: `npx tsx bench/jail-walk.ts
 * [--n 20 --files 0,10000,100000]`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { formatTable } from "../src/cli/table.js";
import { LocalBackend } from "../src/sandbox/local/local-backend.js";

const { values } = parseArgs({ options: { n: { type: "string", default: "20" }, files: { type: "string", default: "0,10000,100000" } } });
const n = Number(values.n);
const counts = values.files.split(",").map(Number);

const root = mkdtempSync(path.join(os.tmpdir(), "rebench-bench-jail-"));
const sandbox = await new LocalBackend({ root }).create({ id: `benchjail${process.pid}`, limits: { memoryMb: 1024, processes: 256 } });

async function measure(command: string): Promise<{ p50: number; p95: number }> {
  const times: number[] = [];
  for (let i = 0; i < n + 2; i++) {
    const started = performance.now();
    const run = await sandbox.exec(command, { user: "grader", timeoutMs: 300_000 });
    if (run.exitCode !== 0) throw new Error(`${command}: exit ${run.exitCode}: ${run.stderr}`);
    if (i >= 2) times.push(performance.now() - started); // the first two warm the page cache
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { p50: at(0.5), p95: at(0.95) };
}

interface Row {
  files: number;
  plain: number;
  jailed: number;
  jailedP95: number;
}

const rows: Row[] = [];
try {
  let made = 0;
  for (const count of counts) {
    const fill = `python3 -c "import os\nfor i in range(${made}, ${count}):\n    d = 'files/%05d' % (i // 100); os.makedirs(d, exist_ok=True); open(d + '/f%d' % i, 'w').close()"`;
    if (count > made) await sandbox.exec(fill, { timeoutMs: 600_000 });
    made = Math.max(made, count);
    const plain = await measure("$REBENCH_AS_AGENT -- true");
    const jailed = await measure("$REBENCH_AS_AGENT --jail -- true");
    rows.push({ files: count, plain: plain.p50, jailed: jailed.p50, jailedP95: jailed.p95 });
  }
} finally {
  await sandbox.destroy();
  rmSync(root, { recursive: true, force: true });
}
const ms = (value: number) => value.toFixed(1);
process.stdout.write(
  formatTable(rows, [
    { header: "WORKSPACE FILES", value: (r) => r.files, align: "right" },
    { header: "N", value: () => n, align: "right" },
    { header: "PLAIN P50 MS", value: (r) => ms(r.plain), align: "right" },
    { header: "JAILED P50 MS", value: (r) => ms(r.jailed), align: "right" },
    { header: "JAILED P95 MS", value: (r) => ms(r.jailedP95), align: "right" },
    { header: "JAIL - PLAIN MS", value: (r) => ms(r.jailed - r.plain), align: "right" },
  ]),
);
console.log(
  `load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? "?"})`,
);
