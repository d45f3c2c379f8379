import { spawn } from "node:child_process";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { skipOrFail } from "../../../test/helpers/required.js";
import { tempDir } from "../../../test/helpers/tmp.js";
import { sandboxContract } from "../contract.case.js";
import { jailContract } from "../jail.case.js";
import { runtimeFiles } from "../layout.js";
import { terminalContract } from "../terminal.case.js";
import { commandWorks } from "../which.js";
import { cgroupVersion } from "./limit-groups.js";
import { LocalBackend } from "./local-backend.js";

const root = tempDir("rebench-sandboxes-");
const backend = new LocalBackend({ root });
const bwrapMissing = commandWorks("bwrap", ["--version"]) ? undefined : "bubblewrap is not installed (apt-get install bubblewrap)";
const skip = skipOrFail(
  "the local backend",
  bwrapMissing
    ? bwrapMissing
    : backend.owners() === undefined
      ? "needs root and the users from scripts/setup-users (the degraded mode is tested below)"
      : undefined,
);

sandboxContract("local", () => backend, { scratch: tempDir(), skip, hostPaths: async (sandbox) => [path.join(root, sandbox.id)] });
terminalContract("local", () => backend, { scratch: tempDir(), skip });
jailContract("local", () => backend, { skip });

describe.skipIf(!commandWorks("bwrap", ["--version"]))("LocalBackend", () => {
  test.skipIf(skip !== undefined)("check() probes and reports full isolation on this machine", async () => {
    const check = await backend.check();
    expect(check).toMatchObject({
      backend: "local",
      usable: true,
      isolation: { networkBlocked: true, protectedUnreadable: true, limitsApplied: true, runsAsSeparateUser: true, jailHolds: true },
    });
    expect(check.problems).toEqual([]);
  });

  test.skipIf(skip !== undefined || cgroupVersion() === undefined)(
    "with cgroups, cpuSeconds() is measured: the sandbox's own group counts its CPU time",
    async () => {
      const sandbox = await backend.create({ id: `cpu${process.pid}`, limits: { memoryMb: 256, processes: 64 } });
      try {
        await sandbox.exec("true");
        const before = await sandbox.cpuSeconds();
        expect(before).toEqual(expect.any(Number));
        await sandbox.exec("python3 -c 'import time\nt = time.process_time()\nwhile time.process_time() - t < 0.5: pass'");
        expect((await sandbox.cpuSeconds())! - before!).toBeGreaterThanOrEqual(0.5);
      } finally {
        await sandbox.destroy();
      }
    },
  );

  test("without root it still runs, hides the protected directory and the network, and says what is lost", async () => {
    const degraded = new LocalBackend({ root, unprivileged: true });
    expect(degraded.degradations().join("\n")).toMatch(/not root: agent, grader and root commands all run as the invoking user/);
    const sandbox = await degraded.create({ id: `degraded${process.pid}`, limits: { memoryMb: 512, processes: 256 } });
    try {
      await sandbox.writeFile("/protected/secret", "s3cret", { user: "grader" });
      const agent = await sandbox.exec("cat /protected/secret; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '; cd /tmp && export X=1");
      expect(agent.stdout).toBe("lo\n");
      expect((await sandbox.exec("pwd; echo $X")).stdout).toBe("/tmp\n1\n");
      expect((await sandbox.exec("cat /protected/secret", { user: "grader" })).stdout).toBe("s3cret");
      expect((await sandbox.exec("$REBENCH_AS_AGENT -- cat /protected/secret", { user: "grader" })).exitCode).not.toBe(0);
    } finally {
      await sandbox.destroy();
    }
  });

  test.skipIf(skip !== undefined)("a sandbox survives its orchestrator's SIGKILL: reattach() finds its processes and shell state", async () => {
    const id = `orphan${process.pid}`;
    const script = path.join(tempDir(), "orchestrator.mts");
    const backendModule = fileURLToPath(new URL("./local-backend.ts", import.meta.url));
    writeFileSync(
      script,
      `import { LocalBackend } from ${JSON.stringify(backendModule)};
const sandbox = await new LocalBackend({ root: ${JSON.stringify(root)} }).create({ id: ${JSON.stringify(id)}, limits: { memoryMb: 256, processes: 64 } });
await sandbox.exec("cd /tmp && export KEPT=1 && (sleep 1008.5 > /dev/null 2>&1 &)");
console.log("ready");
setInterval(() => {}, 1000);
`,
    );
    const child = spawn(process.execPath, ["--import", "tsx", script], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve());
      child.on("exit", (code) => reject(new Error(`the orchestrator exited early (${code})`)));
    });
    child.kill("SIGKILL");
    await new Promise((resolve) => child.on("exit", resolve));
    const sandbox = await backend.reattach(id);
    expect(sandbox).toBeDefined();
    try {
      const result = await sandbox!.exec("pwd; echo $KEPT; cat /proc/[0-9]*/cmdline | tr '\\0' ' ' | grep -c 'sleep 1008[.]5'");
      expect(result.stdout).toBe("/tmp\n1\n1\n");
    } finally {
      await sandbox!.destroy();
    }
  });

  test("create() refuses an id in use and a malformed id", async () => {
    const sandbox = await backend.create({ id: `dup${process.pid}`, limits: { memoryMb: 256, processes: 64 } });
    try {
      await expect(backend.create({ id: `dup${process.pid}`, limits: { memoryMb: 256, processes: 64 } })).rejects.toThrow(/already exists/);
      await expect(backend.create({ id: "../escape", limits: { memoryMb: 256, processes: 64 } })).rejects.toThrow(/invalid sandbox id/);
    } finally {
      await sandbox.destroy();
    }
  });

  test.skipIf(skip !== undefined)("a sandbox asking for a GPU this machine lacks is refused before anything is created", async () => {
    const missing = [0, 1, 2, 3, 4, 5, 6, 7, 8].find((i) => !existsSync(`/dev/nvidia${i}`))!;
    await expect(backend.create({ id: `nogpu${process.pid}`, limits: { memoryMb: 256, processes: 64 }, gpus: [missing] })).rejects.toThrow(
      new RegExp(`GPU ${missing} has no device node`),
    );
    expect(existsSync(path.join(root, `nogpu${process.pid}`))).toBe(false);
  });

  test.skipIf(skip !== undefined || runtimeFiles().venv === undefined)(
    "the checkout's Python environment is at /opt/rebench/venv: tracebacks name sandbox paths, not the host's",
    async () => {
      const sandbox = await backend.create({ id: `venv${process.pid}`, limits: { memoryMb: 1024, processes: 64 } });
      try {
        const failing = "python3 -c 'import numpy.testing as t; t.assert_equal(1, 2)' 2>&1";
        for (const user of ["agent", "grader"] as const) {
          const traceback = (await sandbox.exec(failing, { user })).stdout;
          expect(traceback, user).toContain("/opt/rebench/venv/lib/");
          expect(traceback, user).not.toContain(runtimeFiles().venv!);
        }
      } finally {
        await sandbox.destroy();
      }
    },
  );

  test.skipIf(skip !== undefined)("the host's bubblewrap is at /opt/rebench/bin/bwrap for the one-shot jail, wherever the host keeps it", async () => {
    const sandbox = await backend.create({ id: `bw${process.pid}`, limits: { memoryMb: 256, processes: 64 } });
    try {
      for (const user of ["agent", "grader"] as const) {
        const result = await sandbox.exec("/opt/rebench/bin/bwrap --version", { user });
        expect(result.stdout, user).toMatch(/^bubblewrap \d/);
      }
    } finally {
      await sandbox.destroy();
    }
  });

  test.skipIf(skip !== undefined)("agentCpus limits the agent's processes to that share of a CPU; the grader's are never throttled", async () => {
    const id = `cpu${process.pid}`;
    const sandbox = await backend.create({ id, limits: { memoryMb: 256, processes: 64, agentCpus: 0.05 } });
    try {
      // CPU seconds a busy loop gets in 2 s of wall time, the agent's and the grader's at the same time.
      const busy = "python3 -c 'import time; end = time.time() + 2\nwhile time.time() < end: pass\nprint(round(time.process_time(), 2))'";
      const [agentRun, graderRun] = await Promise.all([sandbox.exec(busy), sandbox.exec(busy, { user: "grader" })]);
      // The quota bounds the agent however idle the machine is (0.05 x 2 s, plus a period of slack).
      expect(Number(agentRun.stdout)).toBeLessThan(0.2);
      expect(Number(graderRun.stdout)).toBeGreaterThan(0);
      // How fast the grader runs depends on the machine's other work; that no quota holds it back does not: its
      // group has none and the kernel never throttled it, while the agent's has the share.
      // v1: the grader's processes are in the sandbox's own cpu group, the agent's in a group below it.
      const group = (role: string, file: string) =>
        readFileSync(
          cgroupVersion() === "v1"
            ? `/sys/fs/cgroup/cpu/rebench/${id}/${role === "agent" ? "agent/" : ""}${file}`
            : `/sys/fs/cgroup/rebench/${id}/${role}/${file}`,
          "utf8",
        );
      const quota = (role: string) => (cgroupVersion() === "v1" ? group(role, "cpu.cfs_quota_us").trim() : group(role, "cpu.max").split(" ")[0]);
      expect(quota("agent")).toBe("5000");
      expect(quota("grader")).toBe(cgroupVersion() === "v1" ? "-1" : "max");
      expect(/^nr_throttled (\d+)$/m.exec(group("grader", "cpu.stat"))?.[1]).toBe("0");
    } finally {
      await sandbox.destroy();
    }
  });

  test.skipIf(skip !== undefined)("cpus limits the whole sandbox, grader included, to that many CPUs", async () => {
    const id = `cpus${process.pid}`;
    const sandbox = await backend.create({ id, limits: { memoryMb: 256, processes: 64, cpus: 0.2 } });
    try {
      await sandbox.exec("true");
      // The quota is the sandbox's own group's, above both users' groups.
      const quota =
        cgroupVersion() === "v1"
          ? readFileSync(`/sys/fs/cgroup/cpu/rebench/${id}/cpu.cfs_quota_us`, "utf8").trim()
          : readFileSync(`/sys/fs/cgroup/rebench/${id}/cpu.max`, "utf8").split(" ")[0];
      expect(quota).toBe("20000");
      const busy = "python3 -c 'import time; end = time.time() + 1.5\nwhile time.time() < end: pass\nprint(round(time.process_time(), 2))'";
      expect(Number((await sandbox.exec(busy)).stdout)).toBeLessThan(0.4);
      expect(Number((await sandbox.exec(busy, { user: "grader" })).stdout)).toBeLessThan(0.4);
    } finally {
      await sandbox.destroy();
    }
  });

  test.skipIf(skip !== undefined || !existsSync("/dev/nvidia0"))(
    "(GPU machines) the agent's commands see exactly the GPU passed through, and CUDA works",
    async () => {
      const sandbox = await backend.create({ id: `gpu${process.pid}`, limits: { memoryMb: 8192, processes: 256 }, gpus: [0] });
      try {
        const none = await backend.create({ id: `gpu0${process.pid}`, limits: { memoryMb: 8192, processes: 256 } });
        const graderOnly = await backend.create({ id: `gpug${process.pid}`, limits: { memoryMb: 8192, processes: 256 }, gpus: [0], agentGpus: false });
        const probe =
          "python3 -c 'import torch; print(torch.cuda.device_count()); print(float(torch.ones(4, device=\"cuda\").sum()) if torch.cuda.is_available() else 0)'";
        expect((await sandbox.exec(probe)).stdout).toBe("1\n4.0\n");
        expect((await none.exec(probe)).stdout).toBe("0\n0\n");
        expect((await graderOnly.exec(probe)).stdout).toBe("0\n0\n");
        expect((await graderOnly.exec(probe, { user: "grader" })).stdout).toBe("1\n4.0\n");
        await none.destroy();
        await graderOnly.destroy();
      } finally {
        await sandbox.destroy();
      }
    },
  );

  test.skipIf(skip !== undefined)("mounts below /tmp and /home (a venv in a clone there) are reachable by the agent and the grader", async () => {
    const source = tempDir();
    chmodSync(source, 0o755); // as a venv is
    writeFileSync(path.join(source, "marker"), "here", { mode: 0o644 });
    const mounts = [
      { source, target: "/tmp/clone/deep/.venv" },
      { source, target: "/home/someone/rebench/.venv" },
    ];
    const sandbox = await backend.create({ id: `mounts${process.pid}`, limits: { memoryMb: 256, processes: 64 }, mounts });
    try {
      for (const user of ["agent", "grader"] as const) {
        const read = await sandbox.exec("cat /tmp/clone/deep/.venv/marker /home/someone/rebench/.venv/marker", { user });
        expect(read.stdout, `${user}: ${read.stderr}`).toBe("herehere");
      }
    } finally {
      await sandbox.destroy();
    }
  });
});
