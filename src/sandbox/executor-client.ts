/**
 * @module
 * The orchestrator's side of the executor protocol (python/rebench_env/sandbox_executor.py): one
 * connection (a unix socket for the local backend, a proxy exec session for containers), newline-
 * delimited JSON, requests matched to answers by id. The timeout is enforced from here too: at the
 * deadline the client tells the executor to kill the command's session and, where it can see the
 * sandbox's processes (the local backend), kills them itself from the host; if the executor still does
 * not answer, the call ends as timed out and the executor is marked broken so the sandbox replaces it.
 */
import net from "node:net";
import { InfrastructureError } from "../core/index.js";
import { type ExecutorMessage, ExecutorMessage as ExecutorMessageSchema, type ExecutorRequest } from "./executor-protocol.js";
import { type AgentPause, type ExecOptions, type ExecResult, SandboxExecutorLostError, SandboxFileError, type SandboxUser } from "./sandbox.js";

/** A byte stream to an executor. */
export interface ExecutorStream {
  write(text: string): void;
  onData(listener: (chunk: Buffer) => void): void;
  onClose(listener: (error?: Error) => void): void;
  destroy(): void;
  /** Whether the connection keeps the process alive: only while a request is pending (an idle one lets a CLI exit). */
  hold?(busy: boolean): void;
}

export interface ExecutorClientOptions {
  /** Kill a command's session from outside the sandbox (host pid namespace `pidns`, session `sid`). */
  killFromHost?: (pidns: string, sid: number) => void;
  /** How long to wait for the executor's hello. */
  timeoutMs?: number;
}

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

export const DEFAULT_TIMEOUT_MS = 600_000;
export const DEFAULT_OUTPUT_CAP = 1 << 20;

/** An exec call's options with their documented defaults filled in (see ExecOptions). */
export function toExecRequest(command: string, options: ExecOptions): ExecRequest {
  return {
    user: options.user ?? "agent",
    command,
    cwd: options.cwd,
    env: options.env ?? {},
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxOutputBytes: options.maxOutputBytes ?? DEFAULT_OUTPUT_CAP,
    stdin: typeof options.stdin === "string" ? Buffer.from(options.stdin) : options.stdin,
    signal: options.signal,
  };
}

type Message = ExecutorMessage;
/** A request before its id is given. */
type RequestBody = ExecutorRequest extends infer R ? (R extends { id: number } ? Omit<R, "id"> : never) : never;

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
    private readonly stream: ExecutorStream,
    readonly hello: ExecutorHello,
    private readonly options: ExecutorClientOptions,
  ) {
    stream.hold?.(false);
    stream.onData((chunk) => this.onData(chunk));
    stream.onClose((error) =>
      this.failAll(new SandboxExecutorLostError(`the sandbox executor ${error ? `connection failed: ${error.message}` : "closed its connection"}`)),
    );
  }

  /** Speak the protocol over `stream`: wait for the executor's hello. */
  static open(stream: ExecutorStream, options: ExecutorClientOptions = {}): Promise<ExecutorClient> {
    const timeoutMs = options.timeoutMs ?? 5000;
    return new Promise((resolve, reject) => {
      let text = "";
      let done = false;
      const timer = setTimeout(() => fail(new Error(`no hello from the executor within ${timeoutMs} ms`)), timeoutMs);
      const fail = (error: Error) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        stream.destroy();
        reject(error);
      };
      stream.onClose((error) => fail(error ?? new Error("the executor connection closed before its hello")));
      let client: ExecutorClient | undefined;
      stream.onData((chunk) => {
        if (client) return;
        text += chunk.toString("utf8");
        const newline = text.indexOf("\n");
        if (newline < 0 || done) return;
        done = true;
        clearTimeout(timer);
        const hello = ExecutorMessageSchema.safeParse(JSON.parse(text.slice(0, newline)));
        if (!hello.success || hello.data.event !== "hello") {
          fail(new Error(`the executor's first message is not a hello: ${text.slice(0, 200)}`));
          return;
        }
        const { event: _event, ...info } = hello.data;
        client = new ExecutorClient(stream, info, options);
        const rest = text.slice(newline + 1);
        if (rest) client.onData(Buffer.from(rest, "utf8"));
        resolve(client);
      });
    });
  }

  /** Connect to an executor's unix socket. */
  static connect(socketPath: string, options: ExecutorClientOptions = {}): Promise<ExecutorClient> {
    const socket = net.createConnection(socketPath);
    return ExecutorClient.open(
      {
        write: (text) => void socket.write(text),
        onData: (listener) => void socket.on("data", listener),
        onClose: (listener) => {
          socket.on("error", (error) => listener(error));
          socket.on("close", () => listener());
        },
        destroy: () => socket.destroy(),
        hold: (busy) => void (busy ? socket.ref() : socket.unref()),
      },
      options,
    );
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
      if (sid !== undefined) this.options.killFromHost?.(this.hello.pidns, sid);
      this.send({ op: "kill", id: this.nextId++, target: id, timedOut: asTimeout });
      giveUpTimer ??= setTimeout(() => {
        this.broken = true;
        giveUp?.({ event: "exit", id, exitCode: null, signal: "SIGKILL", timedOut, stdout: "", stderr: "", stdoutBytes: 0, stderrBytes: 0 });
      }, REPORT_GRACE_MS);
    };
    const onAbort = () => killFromOutside(false);
    const id = this.nextId++;
    const answer = new Promise<Message>((resolve, reject) => {
      giveUp = resolve;
      this.track(id, {
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
      if (m.event !== "exit") throw new InfrastructureError(`the sandbox executor answered exec with "${m.event}"`);
      const cap = request.maxOutputBytes;
      const { stdoutBytes, stderrBytes } = m;
      return {
        exitCode: m.exitCode,
        signal: m.signal,
        timedOut: m.timedOut || timedOut,
        truncated: stdoutBytes > cap || stderrBytes > cap,
        durationMs: m.durationMs ?? performance.now() - started,
        stdout: Buffer.from(m.stdout, "base64").toString("utf8"),
        stderr: Buffer.from(m.stderr, "base64").toString("utf8"),
        outputCapBytes: cap,
        stdoutBytes,
        stderrBytes,
      };
    } finally {
      clearTimeout(killTimer);
      clearTimeout(giveUpTimer);
      this.untrack(id);
      request.signal?.removeEventListener("abort", onAbort);
    }
  }

  async read(user: SandboxUser, filePath: string): Promise<Uint8Array> {
    const m = await this.request({ op: "read", user, path: filePath });
    if (m.event !== "data") throw new InfrastructureError(`the sandbox executor answered read with "${m.event}"`);
    return new Uint8Array(Buffer.from(m.data, "base64"));
  }

  async write(user: SandboxUser, filePath: string, data: Uint8Array, mode: number | undefined): Promise<void> {
    await this.request({ op: "write", user, path: filePath, data: Buffer.from(data).toString("base64"), mode: mode ?? null });
  }

  /** Stop the agent's processes until `thaw()` or until this connection closes (op `freeze`). */
  async freeze(): Promise<void> {
    await this.request({ op: "freeze" });
  }

  async thaw(): Promise<void> {
    await this.request({ op: "thaw" });
  }

  async ping(timeoutMs = 2000): Promise<boolean> {
    const timeout = new Promise<false>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref());
    return Promise.race([
      this.request({ op: "ping" }).then(
        () => true,
        () => false,
      ),
      timeout,
    ]);
  }

  close(): void {
    this.stream.destroy();
  }

  private async request(body: RequestBody): Promise<Message> {
    const id = this.nextId++;
    const answer = new Promise<Message>((resolve, reject) => this.track(id, { resolve, reject }));
    this.send({ ...body, id } as ExecutorRequest);
    try {
      const m = await answer;
      if (m.event === "error") throw new SandboxFileError(m.code, m.message);
      return m;
    } finally {
      this.untrack(id);
    }
  }

  private track(id: number, pending: Pending): void {
    this.pending.set(id, pending);
    this.stream.hold?.(true);
  }

  private untrack(id: number): void {
    this.pending.delete(id);
    if (this.pending.size === 0) this.stream.hold?.(false);
  }

  private send(body: ExecutorRequest): void {
    if (this.closedError) throw this.closedError;
    this.stream.write(`${JSON.stringify(body)}\n`);
  }

  private onData(chunk: Buffer): void {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline >= 0; newline = chunk.indexOf(10, start)) {
      this.buffered.push(chunk.subarray(start, newline));
      const line = Buffer.concat(this.buffered).toString("utf8");
      this.buffered = [];
      start = newline + 1;
      const parsed = ExecutorMessageSchema.safeParse(JSON.parse(line));
      if (!parsed.success) {
        // A message outside the protocol (python/rebench_env/schemas): the executor is not one this rebench speaks to.
        this.broken = true;
        this.failAll(new InfrastructureError(`the sandbox executor sent a message outside the protocol: ${line.slice(0, 300)}`));
        return;
      }
      this.dispatch(parsed.data);
    }
    if (start < chunk.length) this.buffered.push(chunk.subarray(start));
  }

  private dispatch(message: Message): void {
    if (message.event === "hello" || message.id === null) return;
    const pending = this.pending.get(message.id);
    if (!pending) return;
    if (message.event === "started") {
      pending.onStarted?.(message.sid);
      return;
    }
    if (message.event === "error" && pending.onStarted) {
      pending.reject(new InfrastructureError(`the sandbox could not run the command: ${message.message}`));
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

/** `Sandbox.pauseAgent` through the executor that runs the agent's processes: held by this connection. */
export async function pauseThrough(client: ExecutorClient): Promise<AgentPause> {
  await client.freeze();
  let released = false;
  return {
    release: async () => {
      if (released) return;
      released = true;
      if (!client.closed) await client.thaw(); // a closed connection has released its holds already
    },
  };
}
