/**
 * @module
 * Sandbox teardown: how long `destroy()` takes for a sandbox whose agent ran one command, and for one whose
 * agent left the hostile tree of the tests (test/helpers/hostile-tree.ts: a chain past PATH_MAX, sealed
 * directories, a FIFO, a socket, 2,000 files, a running writer), per backend. Each destroy is checked: the
 * sandbox's host folder (local) or container (container) must be gone. Prints a table. Run:
 * `npx tsx bench/sandbox-teardown.ts [--n 5]` (as root for the local backend's full isolation; the container
 * rows need podman or Docker, and start podman's service if no engine is running).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { formatTable } from "../src/cli/table.js";
import { ContainerBackend } from "../src/sandbox/container/container-backend.js";
import { findEngine, type PodmanService, startPodmanService } from "../src/sandbox/container/engine.js";
import { LocalBackend } from "../src/sandbox/local/local-backend.js";
import type { SandboxBackend } from "../src/sandbox/sandbox.js";
import { commandWorks } from "../src/sandbox/which.js";
import { BUILT, hostileTreeCommand } from "../test/helpers/hostile-tree.js";

const { values } = parseArgs({ options: { n: { type: "string", default: "5" } } });
const n = Number(values.n);
const limits = { memoryMb: 1024, processes: 256 };

interface Row {
  backend: string;
  workspace: string;
  n: number;
  p50: number;
  max: number;
}

async function measure(backend: SandboxBackend, gone: (id: string) => Promise<boolean>, hostile: boolean): Promise<Row> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const id = `td${process.pid}${hostile ? "h" : "e"}${i}`;
    const sandbox = await backend.create({ id, limits });
    const built = await sandbox.exec(hostile ? hostileTreeCommand("hostile") : "true", { timeoutMs: 300_000 });
    if (hostile && !BUILT.test(built.stdout)) throw new Error(`the hostile tree was not built: ${built.stderr}`);
    const started = performance.now();
    await sandbox.destroy();
    times.push(performance.now() - started);
    if (!(await gone(id))) throw new Error(`sandbox ${id} is still there after destroy()`);
  }
  times.sort((a, b) => a - b);
  return { backend: backend.name, workspace: hostile ? "hostile tree" : "one command", n, p50: times[Math.floor(n / 2)]!, max: times.at(-1)! };
}

const rows: Row[] = [];
const root = mkdtempSync(path.join(os.tmpdir(), "rebench-bench-teardown-"));
try {
  if (commandWorks("bwrap", ["--version"])) {
    const local = new LocalBackend({ root });
    const gone = async (id: string) => !existsSync(path.join(root, id));
    rows.push(await measure(local, gone, false), await measure(local, gone, true));
  }
  let service: PodmanService | undefined;
  let socket = (await findEngine())?.socketPath;
  if (!socket && commandWorks("podman", ["--version"])) {
    service = await startPodmanService(path.join(root, "podman.sock"));
    socket = service.api.socketPath;
  }
  try {
    if (socket) {
      const container = new ContainerBackend({ socketPath: socket });
      const gone = async (id: string) => (await container.reattach(id)) === undefined;
      rows.push(await measure(container, gone, false), await measure(container, gone, true));
    }
  } finally {
    service?.stop();
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}

const ms = (v: number) => v.toFixed(0);
console.log(
  formatTable(rows, [
    { header: "BACKEND", value: (r) => r.backend },
    { header: "WORKSPACE", value: (r) => r.workspace },
    { header: "N", value: (r) => r.n, align: "right" },
    { header: "P50 MS", value: (r) => ms(r.p50), align: "right" },
    { header: "MAX MS", value: (r) => ms(r.max), align: "right" },
  ]),
);
console.log(`\nmachine: ${os.cpus()[0]?.model ?? "?"}, ${os.availableParallelism()} CPUs, load average ${os.loadavg()[0]!.toFixed(1)}`);
