/**
 * @module
 * The orchestrator's side of the executor protocol (python/rebench_env/sandbox_executor.py): one unix
 * socket connection, newline-delimited JSON, requests matched to answers by id. The timeout is enforced
 * from here too: at the deadline the client kills the command's session itself, from the host (see
 * host-kill.ts), and tells the executor; if the executor still does not answer, the call ends as timed
 * out and the executor is marked broken so the sandbox replaces it.
 */
import net from "node:net";
import { InfrastructureError } from "../../core/index.js";
import { type ExecResult, SandboxFileError, type SandboxUser } from "../sandbox.js";
import { killSessionInNamespace } from "./host-kill.js";

export interface ExecutorHello {
  pid: number;
  /** The executor's pid namespace, as `readlink /proc/PID/ns/pid` shows it (e.g. `pid:[4026532301]`). */
  pidns: string;
  role: string;
  privileged: boolean;
}

export interface ExecRequest {
  user: SandboxUser;
  command: string;
  cwd: string | undefined;
  env: Readonly<Record<string, string>>;
  timeoutMs: number;
  maxOutputBytes: number;
  stdin: Uint8Array | undefined;
  signal: AbortSignal | undefined;
}

type Message = { id?: number; event: string; [key: string]: unknown };

interface Pending {
  resolve: (message: Message) => void;
  reject: (error: Error) => void;
  /** For exec: the `started` event, which carries the session id. */
  onStarted?: (sid: number) => void;
}

/** After the deadline: how long the executor has to report before the call is given up as timed out. */
const REPORT_GRACE_MS = 2000;

export class ExecutorClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private buffered: Buffer[] = [];
  private closedError: Error | undefined;
  /** Set when the executor stopped answering; the sandbox then starts a new one. */
  broken = false;

  private constructor(
    private readonly socket: net.Socket,
    readonly hello: ExecutorHello,
  ) {
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("close", () => this.failAll(new InfrastructureError("the sandbox executor closed its connection")));
    socket.on("error", (error) => this.failAll(new InfrastructureError(`sandbox executor connection: ${error.message}`)));
  }

  /** Connect and wait for the executor's hello. */
  static connect(socketPath: string, timeoutMs = 5000): Promise<ExecutorClient> {
    return new Promise((resolve, reject) => {
      const socket = net.createConnection(socketPath);
      let text = "";
      const timer = setTimeout(() => fail(new Error(`no hello from the executor within ${timeoutMs} ms`)), timeoutMs);
      const fail = (error: Error) => {
        clearTimeout(timer);
        socket.destroy();
        reject(error);
      };
      socket.once("error", fail);
      const onData = (chunk: Buffer) => {
        text += chunk.toString("utf8");
        const newline = text.indexOf("\n");
        if (newline < 0) return;
        clearTimeout(timer);
        socket.off("data", onData);
        socket.off("error", fail);
        const hello = JSON.parse(text.slice(0, newline)) as ExecutorHello & { event: string };
        const client = new ExecutorClient(socket, hello);
        const rest = text.slice(newline + 1);
        if (rest) client.onData(Buffer.from(rest, "utf8"));
        resolve(client);
      };
      socket.on("data", onData);
    });
  }

  get closed(): boolean {
    return this.closedError !== undefined;
  }

  async exec(request: ExecRequest): Promise<ExecResult> {
    let sid: number | undefined;
    let timedOut = false;
    let killTimer: NodeJS.Timeout | undefined;
    let giveUpTimer: NodeJS.Timeout | undefined;
    let giveUp: ((message: Message) => void) | undefined;
    const started = performance.now();
    const killFromOutside = (asTimeout: boolean) => {
      timedOut ||= asTimeout;
      if (sid !== undefined) killSessionInNamespace(this.hello.pidns, sid);
      this.send({ op: "kill", id: this.nextId++, target: id, timedOut: asTimeout });
      giveUpTimer ??= setTimeout(() => {
        this.broken = true;
        giveUp?.({ event: "exit", exitCode: null, signal: "SIGKILL", timedOut, stdout: "", stderr: "", stdoutBytes: 0, stderrBytes: 0 });
      }, REPORT_GRACE_MS);
    };
    const onAbort = () => killFromOutside(false);
    const id = this.nextId++;
    const answer = new Promise<Message>((resolve, reject) => {
      giveUp = resolve;
      this.pending.set(id, {
        resolve,
        reject,
        onStarted: (s) => {
          sid = s;
        },
      });
    });
    this.send({
      op: "exec",
      id,
      user: request.user,
      command: request.command,
      cwd: request.cwd ?? null,
      env: request.env,
      timeoutMs: request.timeoutMs,
      maxOutputBytes: request.maxOutputBytes,
      stdin: request.stdin === undefined ? null : Buffer.from(request.stdin).toString("base64"),
    });
    killTimer = setTimeout(() => killFromOutside(true), request.timeoutMs);
    if (request.signal?.aborted) onAbort();
    request.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const m = await answer;
      const cap = request.maxOutputBytes;
      const stdoutBytes = Number(m.stdoutBytes ?? 0);
      const stderrBytes = Number(m.stderrBytes ?? 0);
      return {
        exitCode: (m.exitCode as number | null) ?? null,
        signal: (m.signal as string | null) ?? null,
        timedOut: Boolean(m.timedOut) || timedOut,
        truncated: stdoutBytes > cap || stderrBytes > cap,
        durationMs: typeof m.durationMs === "number" ? m.durationMs : performance.now() - started,
        stdout: Buffer.from(String(m.stdout ?? ""), "base64").toString("utf8"),
        stderr: Buffer.from(String(m.stderr ?? ""), "base64").toString("utf8"),
        outputCapBytes: cap,
        stdoutBytes,
        stderrBytes,
      };
    } finally {
      clearTimeout(killTimer);
      clearTimeout(giveUpTimer);
      this.pending.delete(id);
      request.signal?.removeEventListener("abort", onAbort);
    }
  }

  async read(user: SandboxUser, filePath: string): Promise<Uint8Array> {
    const m = await this.request({ op: "read", user, path: filePath });
    return new Uint8Array(Buffer.from(String(m.data), "base64"));
  }

  async write(user: SandboxUser, filePath: string, data: Uint8Array, mode: number | undefined): Promise<void> {
    await this.request({ op: "write", user, path: filePath, data: Buffer.from(data).toString("base64"), mode: mode ?? null });
  }

  async ping(timeoutMs = 2000): Promise<boolean> {
    const timeout = new Promise<false>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref());
    return Promise.race([this.request({ op: "ping" }).then(() => true, () => false), timeout]);
  }

  close(): void {
    this.socket.destroy();
  }

  private async request(body: Record<string, unknown>): Promise<Message> {
    const id = this.nextId++;
    const answer = new Promise<Message>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.send({ ...body, id });
    try {
      const m = await answer;
      if (m.event === "error") throw new SandboxFileError(String(m.code ?? "EIO"), String(m.message ?? "failed"));
      return m;
    } finally {
      this.pending.delete(id);
    }
  }

  private send(body: Record<string, unknown>): void {
    if (this.closedError) throw this.closedError;
    this.socket.write(JSON.stringify(body) + "\n");
  }

  private onData(chunk: Buffer): void {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline >= 0; newline = chunk.indexOf(10, start)) {
      this.buffered.push(chunk.subarray(start, newline));
      const line = Buffer.concat(this.buffered).toString("utf8");
      this.buffered = [];
      start = newline + 1;
      this.dispatch(JSON.parse(line) as Message);
    }
    if (start < chunk.length) this.buffered.push(chunk.subarray(start));
  }

  private dispatch(message: Message): void {
    if (message.id === undefined) return;
    const pending = this.pending.get(message.id);
    if (!pending) return;
    if (message.event === "started") {
      pending.onStarted?.(Number(message.sid));
      return;
    }
    if (message.event === "error" && pending.onStarted) {
      pending.reject(new InfrastructureError(`the sandbox could not run the command: ${String(message.message)}`));
      return;
    }
    pending.resolve(message);
  }

  private failAll(error: Error): void {
    this.closedError ??= error;
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }
}
