/**
 * @module
 * The human baseline mode's link to a run's sandbox (the HumanLink of src/agents/human): the shell's
 * commands and rcfile written as the agent user, a spool directory polled through `exec` (so it works with
 * every backend), and the terminal: the backend's interactive shell, run inside `script` so the session is
 * recorded beside the run store (what was shown, what was typed, and the timing for `scriptreplay`).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { HumanLink, HumanRequest, HumanTerminal, TerminalRecording } from "../core/index.js";
import { InfrastructureError, shellJoin, UnavailableError } from "../core/index.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { terminalOf } from "../sandbox/terminal.js";
import { COMMAND_SCRIPT, pollScript, RCFILE } from "./human-shell-files.js";

const COMMANDS = ["score", "score-log", "submit"] as const;
/** Bytes of the end of the transcript kept in the run's event log. */
const TAIL_BYTES = 64 * 1024;

export interface SandboxHumanLinkOptions {
  /** Host folder for the session's recording (created if missing). */
  recordDir: string;
  /** Names the recording files. */
  runId: string;
  /** Seconds one poll of the spool waits for a command; default 15. */
  pollSeconds?: number;
}

export class SandboxHumanLink implements HumanLink {
  #dir: string | undefined;
  readonly #files: { output: string; input: string; timing: string };

  constructor(
    readonly sandbox: Sandbox,
    readonly options: SandboxHumanLinkOptions,
  ) {
    const base = path.join(options.recordDir, options.runId);
    this.#files = { output: `${base}.out`, input: `${base}.in`, timing: `${base}.timing` };
  }

  get #home(): string {
    if (!this.#dir) throw new Error("SandboxHumanLink: prepare() first");
    return this.#dir;
  }

  async #exec(command: string, options: { stdin?: string; cwd?: string; signal?: AbortSignal; timeoutMs?: number } = {}) {
    const result = await this.sandbox.exec(command, {
      user: "agent",
      cwd: options.cwd ?? this.sandbox.paths.workspace,
      timeoutMs: options.timeoutMs ?? 60_000,
      ...options,
    });
    if (result.exitCode !== 0 && !options.signal?.aborted) {
      throw new InfrastructureError(
        `the human mode's helper command failed in sandbox ${this.sandbox.id}: ${result.stderr.slice(-500) || `exit ${result.exitCode}`}`,
      );
    }
    return result;
  }

  async prepare(options: { banner: string; instructions: string; deadline: number | null }): Promise<void> {
    await mkdir(this.options.recordDir, { recursive: true });
    const made = await this.#exec('d="$(mktemp -d "${TMPDIR:-/tmp}/rebench-human-XXXXXX")" && mkdir -p "$d/bin" "$d/spool" && printf "%s" "$d"');
    this.#dir = made.stdout.trim();
    const write = (name: string, text: string, mode = 0o644) => this.sandbox.writeFile(`${this.#dir}/${name}`, text, { user: "agent", mode });
    for (const command of COMMANDS) await write(`bin/${command}`, COMMAND_SCRIPT, 0o755);
    await write("rc.bash", RCFILE);
    await write("banner.txt", `${options.banner}\n`);
    await write("instructions.txt", `${options.instructions.trimEnd()}\n`);
    await this.setDeadline(options.deadline);
  }

  async setDeadline(deadline: number | null): Promise<void> {
    const text = deadline === null ? "" : String(Math.floor(deadline / 1000));
    await this.#exec("cat > deadline.tmp && mv deadline.tmp deadline", { cwd: this.#home, stdin: text });
  }

  open(): HumanTerminal {
    const terminal = terminalOf(this.sandbox);
    if (!terminal) throw new UnavailableError(`the ${this.sandbox.backend} sandbox backend offers no interactive terminal for the human mode`);
    const command = terminal.terminalCommand({ env: { REBENCH_HUMAN: this.#home }, rcfile: `${this.#home}/rc.bash` });
    const { output, input, timing } = this.#files;
    // `script` runs its command through `sh -c`; `exec`, so that no shell waits on the terminal: dash, which
    // does not exec the last command of `-c` by itself, printed "Hangup" into the session when `submit`
    // ended the agent's shell with SIGHUP (nsenter, its parent, dies of the same signal).
    const child = spawn(
      "script",
      ["--quiet", "--flush", "--return", "--log-out", output, "--log-in", input, "--log-timing", timing, "--command", `exec ${shellJoin(command.argv)}`],
      { stdio: "inherit", env: { ...command.env, SHELL: "/bin/sh" }, ...(command.cwd ? { cwd: command.cwd } : {}), detached: false },
    );
    const exited = new Promise<number | null>((resolve) => {
      child.on("exit", (code) => {
        // `script` restores the terminal when it can; after a kill, make sure it is usable again.
        if (process.stdin.isTTY) spawnSync("stty", ["sane"], { stdio: "inherit" });
        resolve(code);
      });
      child.on("error", () => resolve(null));
    });
    return {
      exited,
      kill: () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), 2000).unref();
      },
    };
  }

  async next(signal: AbortSignal): Promise<HumanRequest[]> {
    if (signal.aborted) return [];
    const seconds = this.options.pollSeconds ?? 15;
    const result = await this.#exec(pollScript(seconds), { cwd: `${this.#home}/spool`, signal, timeoutMs: (seconds + 30) * 1000 });
    if (signal.aborted) return [];
    const requests: HumanRequest[] = [];
    for (const line of result.stdout.split("\n")) {
      const [file, args = ""] = line.split("\t");
      const match = /^(.+)\.(score|score-log|submit)\.req$/.exec(file ?? "");
      if (match && /^[\w-]+$/.test(match[1]!))
        requests.push({ id: match[1]!, command: match[2] as HumanRequest["command"], args: Buffer.from(args, "base64").toString("utf8") });
    }
    return requests;
  }

  async reply(request: HumanRequest, text: string, exitCode: number): Promise<void> {
    const out = `${request.id}.out`;
    const done = `${request.id}.done`;
    await this.#exec(`cat > ${out}.tmp && mv ${out}.tmp ${out} && echo ${exitCode} > ${done}.tmp && mv ${done}.tmp ${done}`, {
      cwd: `${this.#home}/spool`,
      stdin: text,
    });
  }

  async recording(): Promise<TerminalRecording | undefined> {
    const { output, input, timing } = this.#files;
    if (!existsSync(output)) return undefined;
    const shown = await readFile(output);
    return { output, input, timing, tail: shown.subarray(Math.max(0, shown.length - TAIL_BYTES)).toString("utf8") };
  }
}
