/**
 * @module
 * A small client for the Docker Engine HTTP API over a unix socket: the part of it rebench needs, in
 * the subset Docker and podman's Docker-compatible service both serve (API v1.41). JSON requests, tar
 * uploads, and exec sessions whose stdin/stdout are a hijacked connection: the output arrives
 * multiplexed (8-byte frame headers: stream, 0, 0, 0, big-endian length) unless the exec has a TTY,
 * whose output is the terminal's raw bytes.
 */
import http from "node:http";
import type { Duplex, Readable } from "node:stream";
import { InfrastructureError } from "../../core/index.js";

const API = "/v1.41";

export class EngineError extends InfrastructureError {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** An exec session: write to its stdin, read its demultiplexed stdout/stderr. */
export interface ExecStream {
  /** The raw hijacked connection (write stdin to it; `end()` closes the command's stdin). */
  socket: Duplex;
  onStdout(listener: (chunk: Buffer) => void): void;
  onStderr(listener: (chunk: Buffer) => void): void;
  /** Resolves when the connection ends (the command exited and its output is drained). */
  ended: Promise<void>;
}

export class DockerApi {
  constructor(readonly socketPath: string) {}

  /** Whether an engine answers on the socket. */
  async ping(timeoutMs = 3000): Promise<boolean> {
    try {
      const { status, data } = await this.raw("GET", "/_ping", undefined, timeoutMs);
      return status === 200 && data.toString().trim() === "OK";
    } catch {
      return false;
    }
  }

  /** Whether the engine is podman's Docker-compatible service (it differs in a few options), asked once. */
  isPodman(): Promise<boolean> {
    this.podman ??= this.json<{ Components?: { Name?: string }[] }>("GET", "/version").then(
      (v) => (v.Components ?? []).some((c) => /podman/i.test(c.Name ?? "")),
      () => false,
    );
    return this.podman;
  }
  private podman: Promise<boolean> | undefined;

  /** A JSON request; resolves with the parsed body (or undefined), rejects with EngineError on 4xx/5xx. */
  async json<T = unknown>(method: string, path: string, body?: unknown, timeoutMs = 120_000): Promise<T> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const { status, data } = await this.raw(method, path, payload && { body: payload, contentType: "application/json" }, timeoutMs);
    const text = data.toString("utf8");
    if (status >= 400) throw new EngineError(status, `${method} ${path}: ${status} ${engineMessage(text)}`);
    return (text.trim() ? JSON.parse(text.trim().split("\n").pop()!) : undefined) as T;
  }

  /** Upload a stream (a tar) as the request body. */
  async upload(path: string, body: Readable, timeoutMs = 600_000): Promise<string> {
    const { status, data } = await this.raw("POST", path, { body, contentType: "application/x-tar" }, timeoutMs);
    const text = data.toString("utf8");
    if (status >= 400) throw new EngineError(status, `POST ${path}: ${status} ${engineMessage(text)}`);
    return text;
  }

  /**
   * Start exec `id` with its stdio attached to a hijacked connection. `tty`: the exec was created with
   * `Tty: true`; its output (all of it on stdout) is then passed on as it comes.
   */
  startExec(id: string, options: { tty?: boolean } = {}): Promise<ExecStream> {
    const tty = options.tty ?? false;
    const wrap = (socket: Duplex, head: Buffer) => (tty ? rawStream(socket, head) : demultiplex(socket, head));
    return new Promise((resolve, reject) => {
      const payload = Buffer.from(JSON.stringify({ Detach: false, Tty: tty }));
      const request = http.request({
        socketPath: this.socketPath,
        method: "POST",
        path: `${API}/exec/${id}/start`,
        headers: { "Content-Type": "application/json", "Content-Length": payload.length, Connection: "Upgrade", Upgrade: "tcp" },
      });
      request.on("upgrade", (_response, socket, head) => resolve(wrap(socket, head)));
      request.on("response", (response) => {
        // Some engines answer 200 and stream on the same connection instead of switching protocols.
        if (response.statusCode === 200) resolve(wrap(response.socket, Buffer.alloc(0)));
        else {
          let text = "";
          response.on("data", (c: Buffer) => (text += c.toString()));
          response.on("end", () => reject(new EngineError(response.statusCode ?? 500, `exec start: ${response.statusCode} ${engineMessage(text)}`)));
        }
      });
      request.on("error", (error) => reject(new InfrastructureError(`container engine at ${this.socketPath}: ${error.message}`)));
      request.end(payload);
    });
  }

  private raw(
    method: string,
    path: string,
    send: { body: Buffer | Readable; contentType: string } | undefined,
    timeoutMs: number,
  ): Promise<{ status: number; data: Buffer }> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = {};
      if (send) headers["Content-Type"] = send.contentType;
      if (send && Buffer.isBuffer(send.body)) headers["Content-Length"] = send.body.length;
      const request = http.request({ socketPath: this.socketPath, method, path: `${API}${path}`, headers, timeout: timeoutMs }, (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (c: Buffer) => chunks.push(c));
        response.on("end", () => resolve({ status: response.statusCode ?? 500, data: Buffer.concat(chunks) }));
        response.on("error", reject);
      });
      request.on("timeout", () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      request.on("error", (error) => reject(new InfrastructureError(`container engine at ${this.socketPath}: ${method} ${path}: ${error.message}`)));
      if (!send) request.end();
      else if (Buffer.isBuffer(send.body)) request.end(send.body);
      else send.body.pipe(request);
    });
  }
}

/** When the hijacked connection ends (the command exited and its output is drained, or it broke). */
function endOf(socket: Duplex): Promise<void> {
  return new Promise<void>((resolve) => {
    socket.on("end", resolve);
    socket.on("close", resolve);
    socket.on("error", () => resolve());
  });
}

/** A TTY exec's connection: every byte is the terminal's output (on stdout; stderr stays silent). */
function rawStream(socket: Duplex, head: Buffer): ExecStream {
  const listeners: ((chunk: Buffer) => void)[] = [];
  // What arrives before the first listener is kept for it (the terminal's first bytes matter).
  const early: Buffer[] = head.length ? [head] : [];
  socket.on("data", (chunk: Buffer) => {
    if (listeners.length === 0) early.push(chunk);
    for (const l of listeners) l(chunk);
  });
  const onStdout = (listener: (chunk: Buffer) => void) => {
    listeners.push(listener);
    for (const chunk of early.splice(0)) listener(chunk);
  };
  return { socket, onStdout, onStderr: () => undefined, ended: endOf(socket) };
}

/** Split a hijacked exec connection's output into stdout and stderr by the multiplexing frames. */
function demultiplex(socket: Duplex, head: Buffer): ExecStream {
  const listeners: Record<1 | 2, ((chunk: Buffer) => void)[]> = { 1: [], 2: [] };
  let pending: Buffer = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    while (pending.length >= 8) {
      const size = pending.readUInt32BE(4);
      if (pending.length < 8 + size) break;
      const stream = pending[0] === 2 ? 2 : 1;
      const payload = pending.subarray(8, 8 + size);
      pending = pending.subarray(8 + size);
      for (const listener of [...listeners[stream]]) listener(payload);
    }
  };
  const ended = endOf(socket);
  socket.on("data", onData);
  if (head.length) queueMicrotask(() => onData(head));
  return {
    socket,
    onStdout: (l) => listeners[1].push(l),
    onStderr: (l) => listeners[2].push(l),
    ended,
  };
}

function engineMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as { message?: string; cause?: string };
    return parsed.message ?? parsed.cause ?? text;
  } catch {
    return text.trim().slice(0, 500);
  }
}
