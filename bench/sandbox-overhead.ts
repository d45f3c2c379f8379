/**
 * @module
 * Sandbox overhead: p50/p95 of a trivial command (`true`) through each backend's exec, against a plain
 * process spawn from Node (and, for context, a shell and a fresh bubblewrap sandbox per command).
 * Prints a table. Run: `npm run bench:sandbox [-- --n 300 --container-n 100]` (as root for the local
 * backend's full isolation; the container rows need podman or Docker, and start podman's service if no
 * engine is running).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { formatTable } from "../src/cli/table.js";
import { ContainerBackend } from "../src/sandbox/container/container-backend.js";
import type { ContainerSandbox } from "../src/sandbox/container/container-sandbox.js";
import { runInContainer } from "../src/sandbox/container/container-setup.js";
import { findEngine, type PodmanService, startPodmanService } from "../src/sandbox/container/engine.js";
import { LocalBackend } from "../src/sandbox/local/local-backend.js";
import type { Sandbox } from "../src/sandbox/sandbox.js";
import { commandWorks } from "../src/sandbox/which.js";

interface Row {
  path: string;
  n: number;
  p50: number;
  p95: number;
  ratio?: number;
  note?: string;
}

const { values } = parseArgs({ options: { n: { type: "string", default: "300" }, "container-n": { type: "string", default: "100" } } });
const n = Number(values.n);
const containerN = Number(values["container-n"]);
const limits = { memoryMb: 1024, processes: 256 };

async function measure(label: string, count: number, once: () => Promise<unknown>, note?: string): Promise<Row> {
  for (let i = 0; i < Math.min(10, count); i++) await once(); // warm up
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await once();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { path: label, n: count, p50: at(0.5), p95: at(0.95), note };
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: "ignore" });
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited ${code}`))));
  });
}

async function execRow(label: string, count: number, sandbox: Sandbox, note: string): Promise<Row> {
  return measure(
    label,
    count,
    async () => {
      const result = await sandbox.exec("true");
      if (result.exitCode !== 0) throw new Error(`${label}: exit ${result.exitCode}: ${result.stderr}`);
    },
    note,
  );
}

const rows: Row[] = [];
rows.push(await measure("plain spawn (/bin/true)", n, () => run("/bin/true", [])));
rows.push(await measure("plain spawn (bash -c true)", n, () => run("bash", ["-c", "true"])));

if (commandWorks("bwrap", ["--version"])) {
  const args = ["--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64"];
  args.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--unshare-net", "--unshare-pid", "--", "/bin/true");
  rows.push(await measure("fresh bwrap sandbox per command", n, () => run("bwrap", args), "no persistent state"));

  const root = mkdtempSync(path.join(os.tmpdir(), "rebench-bench-"));
  const local = new LocalBackend({ root });
  const sandbox = await local.create({ id: `bench${process.pid}`, limits });
  try {
    const mode = local.owners() ? "separate users, cgroups" : "degraded: not root";
    rows.push(await execRow("local exec (agent)", n, sandbox, mode));
  } finally {
    await sandbox.destroy();
    rmSync(root, { recursive: true, force: true });
  }
}

let service: PodmanService | undefined;
try {
  let api = await findEngine();
  if (!api && commandWorks("podman", ["--version"])) {
    service = await startPodmanService(path.join(os.tmpdir(), `rebench-bench-podman-${process.pid}.sock`));
    api = service.api;
  }
  if (api) {
    const backend = new ContainerBackend({ socketPath: api.socketPath });
    const sandbox = await backend.create({ id: `bench${process.pid}c`, limits });
    try {
      rows.push(await execRow("container exec (agent)", containerN, sandbox, "through one exec session kept open"));
      const container = (sandbox as ContainerSandbox).container;
      rows.push(
        await measure(
          "container: a new engine exec per command",
          Math.min(containerN, 50),
          () => runInContainer(api!, container, ["true"]),
          "exec create + start + inspect",
        ),
      );
    } finally {
      await sandbox.destroy();
    }
  }
} catch (error) {
  console.error(`container rows skipped: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  service?.stop();
}

const base = rows[0]!.p50;
for (const row of rows) row.ratio = row.p50 / base;
const ms = (v: number) => v.toFixed(2);
console.log(`sandbox overhead: a trivial command, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? "?"}), load ${os.loadavg()[0]!.toFixed(1)}\n`);
console.log(
  formatTable(rows, [
    { header: "PATH", value: (r) => r.path },
    { header: "N", value: (r) => r.n, align: "right" },
    { header: "P50 MS", value: (r) => ms(r.p50), align: "right" },
    { header: "P95 MS", value: (r) => ms(r.p95), align: "right" },
    { header: "× SPAWN", value: (r) => (r.ratio ?? 0).toFixed(1), align: "right" },
    { header: "NOTE", value: (r) => r.note ?? "" },
  ]),
);
