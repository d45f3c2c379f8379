/**
 * @module
 * The contract every sandbox backend passes: isolation (protected directory, network, read-only system,
 * separate users, no capabilities), timeouts that kill the whole command, capped output, persistent shell
 * state, file round-trips as each user, the as-agent helper, limits, reattach and destroy (whatever the agent
 * left in the workspace, nothing of the sandbox stays on the host). Each backend's
 * own test file calls `sandboxContract`.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BUILT, hostileTreeCommand } from "../../test/helpers/hostile-tree.js";
import { IN_SANDBOX, PYTHON_DATA_HIDDEN, SANDBOX_PATHS } from "./layout.js";
import { forkCommand } from "./probe.js";
import { type Sandbox, type SandboxBackend, SandboxFileError, type SandboxLimits } from "./sandbox.js";

export const CONTRACT_LIMITS: SandboxLimits = { memoryMb: 256, processes: 128, cpuSecondsPerCommand: 120, fileSizeMb: 256 };
const SECRET = "contract-secret-5d1e";
/** A directory and a file every sandbox (host and image alike) has, hidden in the contract's sandbox. */
const HIDDEN = ["/usr/share/common-licenses", "/etc/debian_version"];

export interface ContractOptions {
  /** A scratch directory on the host (fixtures for workspaceFrom / protectedFrom). */
  scratch: string;
  /**
   * The host paths that hold a sandbox's files (its folder, an engine's volumes on this host), as the backend's
   * test knows them: the destroy test checks that `Sandbox.hostPaths()` names each (or a folder above it), that
   * those exist before destroy() and that none does after it.
   */
  hostPaths: (sandbox: Sandbox) => Promise<string[]>;
  /** Skip every test with this reason (the backend cannot run here). */
  skip?: string;
}

/**
 * A TCP server on every host address, for network probes: `targets` are `IP/PORT` for bash's /dev/tcp
 * (each host address, and a public DNS server); `connections()` counts what reached it.
 */
export async function hostListener(): Promise<{ targets: string[]; connections(): number; close(): void }> {
  const server = net.createServer((socket) => socket.destroy());
  let connections = 0;
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "0.0.0.0", resolve));
  const port = (server.address() as net.AddressInfo).port;
  const ips = Object.values(os.networkInterfaces())
    .flat()
    .filter((a) => a && a.family === "IPv4" && !a.internal)
    .map((a) => a!.address);
  return { targets: [...ips.map((ip) => `${ip}/${port}`), "1.1.1.1/53"], connections: () => connections, close: () => server.close() };
}

export function sandboxContract(name: string, backend: () => SandboxBackend, options: ContractOptions): void {
  const suite = options.skip ? describe.skip : describe;
  suite(`Sandbox contract: ${name}${options.skip ? ` (skipped: ${options.skip})` : ""}`, () => {
    let sandbox: Sandbox;
    const unique = `c${process.pid}${Date.now().toString(36)}`;

    beforeAll(async () => {
      const workspace = path.join(options.scratch, "workspace");
      const secret = path.join(options.scratch, "protected");
      mkdirSync(path.join(workspace, "src"), { recursive: true });
      mkdirSync(secret, { recursive: true });
      writeFileSync(path.join(workspace, "src", "start.py"), "print('starting solution')\n");
      writeFileSync(path.join(secret, "answer.txt"), `${SECRET}\n`);
      const tools = path.join(options.scratch, "tools");
      mkdirSync(path.join(tools, "bin"), { recursive: true, mode: 0o755 });
      writeFileSync(path.join(tools, "bin", "contract-tool"), "#!/bin/sh\necho tool ran as $(id -un)\n", { mode: 0o755 });
      sandbox = await backend().create({
        id: unique,
        workspaceFrom: workspace,
        protectedFrom: secret,
        limits: CONTRACT_LIMITS,
        env: { CONTRACT_BASE: "base" },
        mounts: [{ source: tools, target: "/opt/contract-tools" }],
        path: ["/opt/contract-tools/bin"],
        hide: HIDDEN,
      });
    });
    afterAll(async () => {
      await sandbox?.destroy();
    });

    test("exec() runs a command in the workspace as the agent and reports how it ended", async () => {
      const result = await sandbox.exec("pwd; id -un; echo to-stderr >&2; exit 3");
      expect(result).toMatchObject({ exitCode: 3, signal: null, timedOut: false, truncated: false, stderr: "to-stderr\n" });
      expect(result.stdout).toBe(`${sandbox.paths.workspace}\nrebench-agent\n`);
      expect(result.durationMs).toBeGreaterThan(0);
      expect(result.stdoutBytes).toBe(result.stdout.length);
    });

    test("the workspace starts as workspaceFrom, owned by the agent; the base environment is set", async () => {
      const result = await sandbox.exec("cat src/start.py; stat -c %U src/start.py; echo $CONTRACT_BASE");
      expect(result.stdout).toBe("print('starting solution')\nrebench-agent\nbase\n");
    });

    test("agent and grader are different unprivileged users; root is root", async () => {
      const uid = async (user: "agent" | "grader" | "root") => (await sandbox.exec("id -u", { user })).stdout.trim();
      const [agent, grader, root] = [await uid("agent"), await uid("grader"), await uid("root")];
      expect(agent).not.toBe("0");
      expect(grader).not.toBe("0");
      expect(agent).not.toBe(grader);
      expect(root).toBe("0");
    });

    test("the agent cannot read the protected directory, by shell or by readFile; the grader can", async () => {
      const file = `${sandbox.paths.protected}/answer.txt`;
      const agent = await sandbox.exec(`cat ${file}; ls ${sandbox.paths.protected}; cat ${sandbox.paths.protected}/*`);
      expect(agent.stdout).not.toContain(SECRET);
      expect(agent.exitCode).not.toBe(0);
      await expect(sandbox.readFile(file, { user: "agent" })).rejects.toBeInstanceOf(SandboxFileError);
      await expect(sandbox.writeFile(`${sandbox.paths.protected}/planted.txt`, "x", { user: "agent" })).rejects.toBeInstanceOf(SandboxFileError);
      expect((await sandbox.exec(`cat ${file}`, { user: "grader" })).stdout).toBe(`${SECRET}\n`);
      expect(Buffer.from(await sandbox.readFile(file, { user: "grader" })).toString()).toBe(`${SECRET}\n`);
    });

    test("hidden paths show nothing to any user: an empty directory, an empty file", async () => {
      for (const user of ["agent", "grader", "root"] as const) {
        const seen = await sandbox.exec(`ls -A ${HIDDEN[0]} | wc -l; wc -c < ${HIDDEN[1]}`, { user });
        expect(seen.stdout, user).toBe("0\n0\n");
      }
      expect((await sandbox.exec(`touch ${HIDDEN[0]}/x`, { user: "root" })).exitCode).not.toBe(0);
    });

    test("rebench's Python library comes without its data (PYTHON_DATA_HIDDEN: the shipped models) for any user", async () => {
      for (const user of ["agent", "grader", "root"] as const) {
        const data = PYTHON_DATA_HIDDEN.map((dir) => `${SANDBOX_PATHS.python}/${dir}`);
        const seen = await sandbox.exec(`find ${data.join(" ")} -type f 2>/dev/null | wc -l; test -f ${IN_SANDBOX.executor} && echo code`, { user });
        expect(seen.stdout, user).toBe("0\ncode\n");
      }
    });

    test("the agent has no network: not the host, not the internet; only a loopback interface", async () => {
      const host = await hostListener();
      try {
        const probes = host.targets.map((t) => `timeout 5 bash -c 'exec 3<>/dev/tcp/${t}' 2>/dev/null && echo reached ${t}`);
        const result = await sandbox.exec(`${probes.join("; ")}; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '`);
        expect(result.stdout).toBe("lo\n");
        expect(host.connections()).toBe(0);
      } finally {
        host.close();
      }
    });

    test("a mounted folder is read-only for every user and its bin, named in path, is on every user's PATH", async () => {
      expect((await sandbox.exec("contract-tool")).stdout).toBe("tool ran as rebench-agent\n");
      expect((await sandbox.exec("contract-tool", { user: "grader" })).stdout).toBe("tool ran as rebench-grader\n");
      expect((await sandbox.exec("$REBENCH_AS_AGENT -- contract-tool", { user: "grader" })).stdout).toBe("tool ran as rebench-agent\n");
      expect((await sandbox.exec("touch /opt/contract-tools/x", { user: "root" })).exitCode).not.toBe(0);
    });

    test("every user can use POSIX shared memory and semaphores (Python's multiprocessing)", async () => {
      const pool = `python3 -c "from concurrent.futures import ProcessPoolExecutor as P; print(sum(P(2).map(abs, [-1, -2])))"`;
      expect((await sandbox.exec(pool)).stdout).toBe("3\n");
      expect((await sandbox.exec(pool, { user: "grader" })).stdout).toBe("3\n");
    });

    test("the system is read-only and agent commands hold no capabilities", async () => {
      const result = await sandbox.exec("touch /usr/bin/x /etc/x /x 2>&1 | wc -l; grep CapEff /proc/self/status");
      expect(result.stdout).toBe("3\nCapEff:\t0000000000000000\n");
    });

    test("a timeout kills the command and all its children, other process groups included", async () => {
      const started = performance.now();
      const result = await sandbox.exec(`sleep 1000.${unique.length} & (set -m; sleep 1001.5 &) ; sleep 1002.5; echo never`, { timeoutMs: 1000 });
      expect(result).toMatchObject({ timedOut: true, exitCode: null, signal: "SIGKILL", stdout: "" });
      expect(performance.now() - started).toBeLessThan(8000);
      const left = await sandbox.exec("cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' ' | grep -o 'sleep 100[0-9][^ ]*' || true");
      expect(left.stdout).toBe("");
    });

    test("aborting the signal kills the command", async () => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      const result = await sandbox.exec("sleep 1003.5", { signal: controller.signal, timeoutMs: 60_000 });
      expect(result).toMatchObject({ timedOut: false, signal: "SIGKILL" });
    });

    test("a command printing 50 MB returns the first bytes, truncated, with the true size", async () => {
      const result = await sandbox.exec("head -c 50000000 /dev/zero | tr '\\0' x; echo done >&2");
      expect(result).toMatchObject({ exitCode: 0, truncated: true, stdoutBytes: 50_000_000, stderr: "done\n", outputCapBytes: 1 << 20 });
      expect(result.stdout.length).toBe(1 << 20);
      const small = await sandbox.exec("head -c 5000 /dev/zero >&2", { maxOutputBytes: 100 });
      expect(small).toMatchObject({ truncated: true, stderrBytes: 5000, outputCapBytes: 100 });
      expect(small.stderr.length).toBe(100);
    });

    test("the shell keeps its working directory and exported variables between execs", async () => {
      await sandbox.exec("mkdir -p /tmp/state && cd /tmp/state && export KEPT=yes && unset CONTRACT_BASE; PLAIN=no");
      const after = await sandbox.exec("pwd; echo ${KEPT}-${CONTRACT_BASE-unset}-${PLAIN-unset}-$ONCE", { env: { ONCE: "call" } });
      expect(after.stdout).toBe("/tmp/state\nyes-unset-unset-call\n");
      expect((await sandbox.exec("echo ${ONCE-gone}")).stdout).toBe("gone\n");
      expect((await sandbox.exec("pwd; echo ${KEPT-unset}", { user: "grader" })).stdout).toBe(`${sandbox.paths.workspace}\nunset\n`);
      expect((await sandbox.exec("pwd", { cwd: "/tmp" })).stdout).toBe("/tmp\n");
      await sandbox.exec(`cd ${sandbox.paths.workspace}`);
    });

    test("stdin is passed to the command", async () => {
      expect((await sandbox.exec("wc -c", { stdin: "twelve bytes" })).stdout.trim()).toBe("12");
    });

    test("a background job outlives its command and does not hold it open", async () => {
      const started = performance.now();
      const result = await sandbox.exec("sleep 1004.5 & echo started");
      expect(result.stdout).toBe("started\n");
      expect(performance.now() - started).toBeLessThan(5000);
      const running = await sandbox.exec("cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' ' | grep -c 'sleep 1004[.]5' || true");
      expect(running.stdout.trim()).toBe("1");
    });

    test("readFile/writeFile round-trip bytes as each user, owned by that user", async () => {
      const bytes = new Uint8Array(Array.from({ length: 512 }, (_, i) => i % 256));
      await sandbox.writeFile(`${sandbox.paths.workspace}/data.bin`, bytes);
      await sandbox.writeFile(`${sandbox.paths.protected}/grader.bin`, bytes, { user: "grader", mode: 0o640 });
      expect(await sandbox.readFile(`${sandbox.paths.workspace}/data.bin`)).toEqual(bytes);
      expect(await sandbox.readFile(`${sandbox.paths.protected}/grader.bin`, { user: "grader" })).toEqual(bytes);
      const owners = await sandbox.exec(`stat -c '%U %a' ${sandbox.paths.workspace}/data.bin ${sandbox.paths.protected}/grader.bin`, { user: "root" });
      expect(owners.stdout).toBe("rebench-agent 644\nrebench-grader 640\n");
      await expect(sandbox.writeFile("/usr/planted", "x")).rejects.toBeInstanceOf(SandboxFileError);
      await expect(sandbox.readFile(`${sandbox.paths.workspace}/missing`)).rejects.toMatchObject({ code: "ENOENT" });
    });

    test("the grader's files in /tmp are private to it", async () => {
      await sandbox.exec("echo hidden > /tmp/grader-note", { user: "grader" });
      const agent = await sandbox.exec("cat /tmp/grader-note");
      expect(agent.stdout).toBe("");
      expect(agent.exitCode).not.toBe(0);
    });

    test("REBENCH_AS_AGENT runs a command as the agent from a grader command, status passed through", async () => {
      const run = (args: string) => sandbox.exec(`$REBENCH_AS_AGENT ${args}`, { user: "grader", timeoutMs: 60_000 });
      expect((await run("-- id -un")).stdout).toBe("rebench-agent\n");
      expect((await run("-- pwd")).stdout).toBe(`${sandbox.paths.workspace}\n`);
      expect(await run("--cwd /tmp --env X=1 -- sh -c 'pwd; echo $X; exit 7'")).toMatchObject({ exitCode: 7, stdout: "/tmp\n1\n" });
      const secret = await run(`-- cat ${sandbox.paths.protected}/answer.txt`);
      expect(secret.exitCode).not.toBe(0);
      expect(secret.stdout).not.toContain(SECRET);
      expect((await run("-- sh -c 'kill -TERM $$'")).exitCode).toBe(128 + 15);
      const started = performance.now();
      const slow = await run(`--timeout 1 -- sh -c 'sleep 1005.5 & sleep 1006.5'`);
      expect(slow.exitCode).toBe(124);
      expect(performance.now() - started).toBeLessThan(8000);
      const left = await sandbox.exec("cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' ' | grep -o 'sleep 100[56]' || true");
      expect(left.stdout).toBe("");
      expect((await run("-- no-such-program")).exitCode).toBe(127);
      expect((await sandbox.exec("$REBENCH_AS_AGENT -- id", { user: "agent" })).exitCode).not.toBe(0);
    });

    test("rebench_env.agent_call.run_as_agent() reports status, timeout and output tails to a grader", async () => {
      const script = [
        "from rebench_env.agent_call import run_as_agent",
        "ok = run_as_agent(['sh', '-c', 'id -un; echo oops >&2; exit 3'], timeout_s=30)",
        "slow = run_as_agent(['sleep', '30'], timeout_s=1)",
        "busy = run_as_agent(['python3', '-c', 'import time; exec(\\'while time.process_time() < 0.3: pass\\')'], timeout_s=30)",
        "print(ok.returncode, ok.stdout_tail.strip(), ok.stderr_tail.strip(), ok.timed_out, slow.timed_out, slow.returncode, slow.duration_s < 10)",
        "print(busy.returncode, 0.25 <= busy.cpu_s < 5, busy.stderr_tail)",
      ].join("\n");
      const result = await sandbox.exec(`python3 -c "${script}"`, { user: "grader", timeoutMs: 60_000 });
      expect(result.stderr).toBe("");
      expect(result.stdout).toBe("3 rebench-agent oops False True None True\n0 True \n");
    });

    test("cpuSeconds() counts the CPU time of every process of the sandbox: the agent's, the grader's, as-agent calls (or is unknown throughout)", async () => {
      const spin = (seconds: number) => `python3 -c 'import time\nt = time.process_time()\nwhile time.process_time() - t < ${seconds}: pass'`;
      const before = await sandbox.cpuSeconds();
      const started = performance.now();
      const run = async (command: string, user: "agent" | "grader") => {
        const result = await sandbox.exec(command, { user, cwd: "/tmp", timeoutMs: 60_000 });
        expect(result.exitCode, result.stderr).toBe(0);
      };
      await run(spin(0.4), "agent");
      await run(spin(0.4), "grader");
      await run(`$REBENCH_AS_AGENT --cwd /tmp -- ${spin(0.4)}`, "grader");
      const wall = (performance.now() - started) / 1000;
      const after = await sandbox.cpuSeconds();
      if (before === undefined) return expect(after).toBeUndefined(); // a backend that cannot tell says so every time
      expect(after! - before).toBeGreaterThanOrEqual(1.2);
      expect(after! - before).toBeLessThan(wall * os.availableParallelism() + 0.5);
    });

    test("agent and grader share one loopback: the agent's commands and agent code reach a grader's server on 127.0.0.1", async () => {
      const server = [
        "import os, socket, sys",
        "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(2); s.settimeout(30)",
        "open('/tmp/contract-port', 'w').write(str(s.getsockname()[1])); os.chmod('/tmp/contract-port', 0o644)",
        "got = [s.accept()[0].recv(64).decode() for _ in range(2)]",
        "open('/tmp/contract-got', 'w').write(' '.join(sorted(got)))",
      ].join("\n");
      await sandbox.writeFile("/tmp/contract-server.py", server, { user: "grader" });
      await sandbox.exec("python3 /tmp/contract-server.py > /dev/null 2>&1 &", { user: "grader" });
      const client = (word: string) =>
        `python3 -c "import socket; socket.create_connection(('127.0.0.1', int(open('/tmp/contract-port').read())), timeout=10).sendall(b'${word}')"`;
      const waitPort = "for i in $(seq 100); do test -s /tmp/contract-port && break; sleep 0.1; done";
      expect((await sandbox.exec(`${waitPort}; ${client("shell")}`, { timeoutMs: 30_000 })).exitCode).toBe(0);
      const asAgent = await sandbox.exec(`$REBENCH_AS_AGENT -- ${client("code")}`, { user: "grader", timeoutMs: 30_000 });
      expect(asAgent.exitCode).toBe(0);
      const got = await sandbox.exec("for i in $(seq 100); do test -s /tmp/contract-got && break; sleep 0.1; done; cat /tmp/contract-got", { user: "grader" });
      expect(got.stdout).toBe("code shell");
    });

    test("memory and process limits hold", async () => {
      const hog = await sandbox.exec(`head -c ${CONTRACT_LIMITS.memoryMb * 3}m /dev/zero | tail > /dev/null`, { timeoutMs: 120_000 });
      expect(hog.exitCode).not.toBe(0);
      const forks = await sandbox.exec(forkCommand(CONTRACT_LIMITS.processes + 50), { timeoutMs: 60_000 });
      expect(Number(forks.stdout)).toBeLessThan(CONTRACT_LIMITS.processes + 50);
      expect((await sandbox.exec("ulimit -t")).stdout).toBe(`${CONTRACT_LIMITS.cpuSecondsPerCommand}\n`);
    });

    test("destroy() removes everything whatever the agent left: a chain past PATH_MAX, sealed directories, sockets, FIFOs, a running writer", async () => {
      const id = `${unique}h`;
      const doomed = await backend().create({
        id,
        workspaceFrom: path.join(options.scratch, "workspace"),
        protectedFrom: path.join(options.scratch, "protected"),
        limits: CONTRACT_LIMITS,
      });
      try {
        const built = await doomed.exec(hostileTreeCommand("hostile"), { timeoutMs: 120_000 });
        expect(built.stdout, built.stderr).toMatch(BUILT);
        // The grader seals a directory of its own in the protected directory, and the agent one in /tmp.
        expect(
          (await doomed.exec(`mkdir -p ${doomed.paths.protected}/sealed/in && chmod 000 ${doomed.paths.protected}/sealed`, { user: "grader" })).exitCode,
        ).toBe(0);
        expect((await doomed.exec("mkdir -p /tmp/sealed/in && chmod 000 /tmp/sealed")).exitCode).toBe(0);
        // hostPaths() names (a folder above) every place the backend's own test knows the sandbox's files are.
        const traces = await doomed.hostPaths();
        const known = await options.hostPaths(doomed);
        expect(known.length).toBeGreaterThan(0);
        for (const place of known)
          expect(
            traces.some((trace) => place === trace || place.startsWith(`${trace}/`)),
            `${place} in ${traces}`,
          ).toBe(true);
        for (const trace of traces) expect(existsSync(trace), trace).toBe(true);
        await doomed.destroy();
        for (const trace of traces) expect(existsSync(trace), trace).toBe(false);
        expect(await backend().reattach(id)).toBeUndefined();
      } finally {
        await doomed.destroy().catch(() => undefined);
      }
      // Building the 2,000-file tree took 4 to 16 s on the 2-vCPU VM under load 13 from other jobs.
    }, 180_000);

    test("reattach() finds a sandbox with its state; destroy() removes it and is idempotent", async () => {
      const id = `${unique}r`;
      const first = await backend().create({ id, limits: CONTRACT_LIMITS });
      await first.exec("cd /tmp && export AGAIN=1 && echo kept > note");
      const again = await backend().reattach(id);
      expect(again).toBeDefined();
      expect((await again!.exec("pwd; echo $AGAIN; cat note")).stdout).toBe("/tmp\n1\nkept\n");
      await again!.destroy();
      await again!.destroy();
      await first.destroy();
      expect(await backend().reattach(id)).toBeUndefined();
    });

    test("destroy() removes what the agent made where a walk by full paths fails: a chain past PATH_MAX, a directory it cannot list", async () => {
      const id = `${unique}d`;
      const made = await backend().create({ id, limits: CONTRACT_LIMITS });
      const chain = "import os\nfor i in range(18):\n    n = '%02d' % i + 'z' * 238; os.mkdir(n); os.chdir(n)\nopen('f', 'w').write('x')";
      const run = await made.exec(`python3 -c "${chain}" && mkdir -p locked/in && touch locked/in/f && chmod 100 locked/in && chmod 000 locked`);
      expect(run.stderr).toBe("");
      await made.destroy();
      expect(await backend().reattach(id)).toBeUndefined();
    });
  });
}
