/**
 * @module
 * The contract of a sandbox terminal (the optional capability in terminal.ts), for every backend that
 * offers one: driven through tmux as a person would type, the shell runs as the agent user in the
 * workspace with the requested variables and rcfile, and is as confined as the agent's `exec`: no
 * protected directory, no network, no capabilities, the sandbox's limits and pid namespace. Each such
 * backend's own test file calls `terminalContract`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { TmuxSession, tmuxAvailable } from "../../test/helpers/tmux.js";
import { shellJoin } from "../core/index.js";
import { CONTRACT_LIMITS, type ContractOptions, hostListener } from "./contract.case.js";
import type { SandboxBackend } from "./sandbox.js";
import { hasTerminals, type TerminalSandbox, terminalOf } from "./terminal.js";

const SECRET = "terminal-secret-8c2a";
/** The rcfile the terminal must read: a mark, a variable and the prompt. */
const RC = "echo rcfile-ran\nexport FROM_RC=yes\nPS1='term\\$ '\n";

/** Wait until `check` holds (10 s at most). */
async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out waiting for the sandbox's processes to change");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export function terminalContract(name: string, backend: () => SandboxBackend, options: Omit<ContractOptions, "hostPaths">): void {
  const skip = options.skip ?? (tmuxAvailable() ? undefined : "tmux is not installed (apt-get install tmux)");
  const suite = skip ? describe.skip : describe;
  suite(`Sandbox terminal: ${name}${skip ? ` (skipped: ${skip})` : ""}`, () => {
    let sandbox: TerminalSandbox;
    let session: TmuxSession | undefined;
    const unique = `t${process.pid}${Date.now().toString(36)}`;
    const rcfile = `/tmp/rc-${unique}.bash`;

    beforeAll(async () => {
      const workspace = path.join(options.scratch, "terminal-workspace");
      const secret = path.join(options.scratch, "terminal-protected");
      mkdirSync(workspace, { recursive: true });
      mkdirSync(secret, { recursive: true });
      writeFileSync(path.join(workspace, "start.py"), "print('start')\n");
      writeFileSync(path.join(secret, "answer.txt"), `${SECRET}\n`);
      expect(hasTerminals(backend())).toBe(true);
      const created = await backend().create({
        id: unique,
        workspaceFrom: workspace,
        protectedFrom: secret,
        limits: CONTRACT_LIMITS,
        env: { BASE_VAR: "base" },
      });
      sandbox = terminalOf(created)!;
      expect(sandbox).toBeDefined();
      await sandbox.writeFile(rcfile, RC);
    });
    afterEach(() => {
      session?.close();
      session = undefined;
    });
    afterAll(async () => {
      await sandbox?.destroy();
    });

    /** The backend's terminal command in a tmux pane, with exactly the environment it asks for. */
    function open(): TmuxSession {
      const command = sandbox.terminalCommand({ env: { REQUESTED: "hello" }, rcfile });
      const env = Object.entries(command.env).map(([key, value]) => `${key}=${value}`);
      return new TmuxSession(shellJoin(["env", "-i", ...env, ...command.argv]), { cwd: command.cwd ?? os.tmpdir() });
    }

    test("the shell runs as the agent in the workspace, with the requested variables, after the rcfile", async () => {
      session = open();
      const start = await session.waitFor(/^term\$ $/m);
      expect(start).toMatch(/^rcfile-ran$/m);
      expect(start).not.toMatch(/job control|cannot set terminal/);
      session.type('echo "user=$(id -un) cwd=$PWD requested=$REQUESTED base=$BASE_VAR rc=$FROM_RC tty=$(test -t 0 && echo yes)"; ls');
      const screen = await session.waitFor(/^user=/m);
      expect(screen).toMatch(new RegExp(`^user=rebench-agent cwd=${sandbox.paths.workspace} requested=hello base=base rc=yes tty=yes$`, "m"));
      await session.waitFor(/^start\.py$/m);

      // Ctrl-C reaches the foreground command: the terminal is the shell's controlling terminal.
      session.type("sleep 1000");
      await new Promise((resolve) => setTimeout(resolve, 500));
      session.keys("C-c");
      session.type("echo interrupted=$?");
      await session.waitFor(/^interrupted=130$/m, { timeoutMs: 10_000 });

      session.type("exit 3");
      await session.waitFor(/^REBENCH_EXIT=3$/m);
    });

    test("the shell is confined like the agent's commands: no protected directory, network or capabilities", async () => {
      const host = await hostListener();
      try {
        session = open();
        await session.waitFor(/^term\$ $/m);
        session.type(`cat ${sandbox.paths.protected}/answer.txt 2>/dev/null; echo protected=$?`);
        const protectedScreen = await session.waitFor(/^protected=\d+$/m);
        expect(protectedScreen).toMatch(/^protected=1$/m);
        expect(protectedScreen).not.toContain(SECRET);
        session.type(
          `for t in ${host.targets.join(" ")}; do timeout 5 bash -c "exec 3<>/dev/tcp/$t" 2>/dev/null && echo reached $t; done; echo "interfaces=$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\\n' ,)"`,
        );
        const network = await session.waitFor(/^interfaces=/m, { timeoutMs: 40_000 });
        expect(network).toMatch(/^interfaces=lo,$/m);
        expect(network).not.toMatch(/^reached/m);
        expect(host.connections()).toBe(0);
        session.type("grep -E '^(CapEff|NoNewPrivs)' /proc/self/status | tr '\\t\\n' '= '; echo; touch /usr/x 2>/dev/null; echo usr=$?");
        const privileges = await session.waitFor(/^usr=\d+$/m);
        expect(privileges).toMatch(/^CapEff:=0000000000000000 NoNewPrivs:=1 $/m);
        expect(privileges).toMatch(/^usr=1$/m);
      } finally {
        host.close();
      }
    });

    test("the shell shares the sandbox's limits and processes with the agent's commands", async () => {
      session = open();
      await session.waitFor(/^term\$ $/m);
      session.type(`echo cpu=$(ulimit -t); head -c ${CONTRACT_LIMITS.memoryMb * 3}m /dev/zero | tail > /dev/null; echo hog=$?`);
      const limits = await session.waitFor(/^hog=\d+$/m, { timeoutMs: 60_000 });
      expect(limits).toMatch(new RegExp(`^cpu=${CONTRACT_LIMITS.cpuSecondsPerCommand}$`, "m"));
      expect(limits).not.toMatch(/^hog=0$/m);
      session.type("sleep 1007.5 & echo started");
      await session.waitFor(/^started$/m);
      const seen = await sandbox.exec("cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' ' | grep -c 'sleep 1007[.]5' || true");
      expect(seen.stdout).toBe("1\n");
    });

    test("closing the person's terminal hangs up the shell and its foreground command", async () => {
      session = open();
      await session.waitFor(/^term\$ $/m);
      session.type("sleep 1008.5");
      const running = "cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' ' | grep -c 'sleep 1008[.]5' || true";
      await until(async () => (await sandbox.exec(running)).stdout === "1\n");
      session.close();
      session = undefined;
      await until(async () => (await sandbox.exec(running)).stdout === "0\n");
    });

    test("destroying the sandbox ends its open terminal", async () => {
      session = open();
      await session.waitFor(/^term\$ $/m);
      await sandbox.destroy();
      await session.waitFor(/REBENCH_EXIT=\d+$/m, { timeoutMs: 20_000 });
    });
  });
}
