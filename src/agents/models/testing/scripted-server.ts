/**
 * @module
 * A local HTTP server (a real socket on 127.0.0.1) that speaks the OpenAI chat-completions or the
 * Anthropic messages protocol and plays a script: replies, errors with Retry-After, malformed bodies,
 * requests that hang or drop the connection. It checks each request the way the real API would (shape,
 * roles, tool-call pairing, the key) and records every request, so model-client and scaffold tests run
 * without a provider and can assert on what was sent.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { formatIssues } from "../../../core/index.js";
import { AnthropicRequest } from "../anthropic/wire.js";
import { OpenAIChatRequest } from "../openai/wire.js";
import { type Rendered, renderError, renderReply, type ScriptedProtocol, type ScriptedReply } from "./render.js";

export type { ScriptedChoice, ScriptedProtocol, ScriptedReply, ScriptedToolCall } from "./render.js";

export type ScriptStep =
  /** A successful response rendered in the server's protocol. */
  | { reply: ScriptedReply; delayMs?: number; headers?: Record<string, string> }
  /** An error in the provider's error shape; `retryAfter` in seconds sets the Retry-After header. */
  | { error: { status: number; message?: string; retryAfter?: number; headers?: Record<string, string> }; delayMs?: number }
  /** Exactly this status and body (a string is sent verbatim; anything else as JSON). */
  | { raw: { status?: number; body: unknown; headers?: Record<string, string> }; delayMs?: number }
  /** Never answer: the request stays open until the client gives up or the server closes. */
  | { hang: true }
  /** Destroy the connection without answering (a network error for the client). */
  | { drop: true };

/** A step, or a function of the request that returns one (to answer based on what was sent). */
export type Script = ReadonlyArray<ScriptStep | ((request: RecordedRequest) => ScriptStep)>;

export interface RecordedRequest {
  /** 0-based order of arrival. */
  index: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The parsed JSON body (undefined if it was not JSON). */
  body: unknown;
  receivedAt: number;
  /** Set when the client closed the connection before the server answered (an abort). */
  closedEarly: boolean;
  /** The status the server answered with (undefined while pending or when dropped). */
  status: number | undefined;
}

export interface ScriptedServerOptions {
  /** When set, requests must carry this key (`Authorization: Bearer` or `x-api-key`); else any key. */
  apiKey?: string;
}

export interface ScriptedServer {
  /** Ends in `/v1`: pass it as an OpenAI or Anthropic base URL, or in `compat:BASE#MODEL`. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Steps not yet played. */
  remaining(): number;
  /** Resolves once `count` requests have arrived. */
  waitForRequests(count: number): Promise<void>;
  close(): Promise<void>;
}

const PATHS: Record<ScriptedProtocol, string> = { openai: "/v1/chat/completions", anthropic: "/v1/messages" };

export async function startScriptedServer(
  protocol: ScriptedProtocol,
  script: Script,
  options: ScriptedServerOptions = {},
): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  let next = 0;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      const recorded: RecordedRequest = {
        index: requests.length,
        method: req.method ?? "",
        path: req.url ?? "",
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        body,
        receivedAt: Date.now(),
        closedEarly: false,
        status: undefined,
      };
      requests.push(recorded);
      res.on("close", () => {
        if (!res.writableFinished) recorded.closedEarly = true;
      });
      for (const w of waiters.filter((w) => requests.length >= w.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      const refusal = check(protocol, recorded, options);
      if (refusal !== undefined) {
        send(res, recorded, refusal);
        return;
      }
      const entry = script[next];
      if (entry === undefined) {
        send(res, recorded, renderError(protocol, 400, `scripted server: no step left for request ${recorded.index + 1} (the script has ${script.length})`));
        return;
      }
      next++;
      let step: ScriptStep;
      try {
        step = typeof entry === "function" ? entry(recorded) : entry;
      } catch (error) {
        send(res, recorded, renderError(protocol, 400, `scripted server: step ${next} threw: ${String(error)}`));
        return;
      }
      play(protocol, step, recorded, req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    remaining: () => script.length - next,
    waitForRequests: (count) =>
      requests.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve })),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** The request checks the real API makes, as a refusal, or undefined when the request is fine. */
function check(protocol: ScriptedProtocol, request: RecordedRequest, options: ScriptedServerOptions): Rendered | undefined {
  if (request.method !== "POST" || request.path !== PATHS[protocol]) {
    return renderError(protocol, 404, `scripted ${protocol} server: no route ${request.method} ${request.path}`);
  }
  const key =
    protocol === "openai" ? request.headers.authorization?.replace(/^Bearer /, "") : request.headers["x-api-key"];
  if (options.apiKey !== undefined && key !== options.apiKey) {
    return renderError(protocol, 401, "scripted server: invalid API key");
  }
  if (protocol === "anthropic" && request.headers["anthropic-version"] === undefined) {
    return renderError(protocol, 400, "anthropic-version header is required");
  }
  if (request.body === undefined) return renderError(protocol, 400, "the request body is not JSON");
  const parsed = (protocol === "openai" ? OpenAIChatRequest : AnthropicRequest).safeParse(request.body);
  if (!parsed.success) return renderError(protocol, 400, `invalid request:\n${formatIssues(parsed.error)}`);
  return undefined;
}

function play(
  protocol: ScriptedProtocol,
  step: ScriptStep,
  recorded: RecordedRequest,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): void {
  if ("hang" in step) return;
  if ("drop" in step) {
    req.socket.destroy();
    return;
  }
  const rendered: Rendered =
    "reply" in step
      ? { ...renderReply(protocol, step.reply, recorded), ...(step.headers ? { headers: step.headers } : {}) }
      : "error" in step
        ? renderError(protocol, step.error.status, step.error.message ?? `scripted HTTP ${step.error.status}`, {
            ...(step.error.retryAfter === undefined ? {} : { "retry-after": String(step.error.retryAfter) }),
            ...step.error.headers,
          })
        : { status: step.raw.status ?? 200, body: step.raw.body, ...(step.raw.headers ? { headers: step.raw.headers } : {}) };
  const delay = step.delayMs ?? 0;
  if (delay <= 0) send(res, recorded, rendered);
  else {
    const timer = setTimeout(() => send(res, recorded, rendered), delay);
    res.on("close", () => clearTimeout(timer));
  }
}

function send(res: http.ServerResponse, recorded: RecordedRequest, rendered: Rendered): void {
  if (res.destroyed) return;
  const text = typeof rendered.body === "string" ? rendered.body : JSON.stringify(rendered.body);
  const type = typeof rendered.body === "string" ? "text/plain" : "application/json";
  recorded.status = rendered.status;
  res.writeHead(rendered.status, { "content-type": type, ...rendered.headers });
  res.end(text);
}
