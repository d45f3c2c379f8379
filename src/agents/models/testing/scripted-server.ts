/**
 * @module
 * A local HTTP server (a real socket on 127.0.0.1) that speaks OpenAI's Responses API and chat
 * completions (`openai`) or Anthropic's messages API (`anthropic`), the way the official SDKs call them,
 * and plays a script: replies (text, tool calls, reasoning), errors with Retry-After, malformed bodies,
 * requests that hang or drop the connection. It checks each request as the real API would (its shape,
 * roles, tool-call pairing, the key and the API version, reasoning and thinking returned as issued,
 * cache breakpoints), answers a streaming request with the reply as server-sent events, keeps a prompt
 * cache so that usage follows from what was sent, and records every
 * request with the response it got, so model-client and scaffold tests run the SDKs' real code paths
 * without a provider and can assert on what was sent and reported.
 */
import { createHmac, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { formatIssues } from "../../../core/index.js";
import { OpenAIChatRequest } from "./chat-completions-checks.js";
import { isMessage, isResponse, messageEventStream, responseEventStream } from "./event-streams.js";
import { type BlockParam, MessagesRequest, messagesIssues } from "./messages-checks.js";
import { AnthropicPromptCache, approxTokens, type CachedUsage, OpenAIPromptCache, type PromptBlock } from "./prompt-cache.js";
import {
  type RenderContext,
  type Rendered,
  renderError,
  renderReply,
  type ScriptedApi,
  type ScriptedChoice,
  type ScriptedProtocol,
  type ScriptedReply,
  type ScriptedUsage,
} from "./render.js";
import { ResponsesRequest, responsesIssues } from "./responses-checks.js";

export type { ScriptedApi, ScriptedChoice, ScriptedProtocol, ScriptedReply, ScriptedToolCall, ScriptedUsage } from "./render.js";

export type ScriptStep =
  /** A successful response rendered in the request's API. */
  | { reply: ScriptedReply; delayMs?: number; headers?: Record<string, string> }
  /** An error in the provider's error shape; `retryAfter` in seconds sets the Retry-After header. */
  | { error: { status: number; message?: string; retryAfter?: number; headers?: Record<string, string> }; delayMs?: number }
  /** Exactly this status and body (a string is sent verbatim as text/plain; anything else as JSON). */
  | { raw: { status?: number; body: unknown; headers?: Record<string, string> }; delayMs?: number }
  /** Never answer: the request stays open until the client gives up or the server closes. */
  | { hang: true }
  /** Begin a streamed answer (status, headers, the first event) and then send nothing more. */
  | { stall: true }
  /** Destroy the connection without answering (a network error for the client). */
  | { drop: true };

/** A step, or a function of the request that returns one (to answer based on what was sent). */
export type Script = ReadonlyArray<ScriptStep | ((request: RecordedRequest) => ScriptStep)>;

export interface RecordedRequest {
  /** 0-based order of arrival. */
  index: number;
  method: string;
  path: string;
  /** The API the path names (undefined for an unknown route). */
  api: ScriptedApi | undefined;
  headers: Record<string, string>;
  /** The parsed JSON body (undefined if it was not JSON). */
  body: unknown;
  receivedAt: number;
  /** Set when the client closed the connection before the server answered (an abort). */
  closedEarly: boolean;
  /** The status the server answered with (undefined while pending or when dropped). */
  status: number | undefined;
  /** The body the server answered with (undefined while pending or when dropped). */
  response: unknown;
}

export interface ScriptedServerOptions {
  /** When set, requests must carry this key (`Authorization: Bearer` or `x-api-key`); else any key. */
  apiKey?: string;
  /** OpenAI models that reason (take `reasoning`, refuse `temperature`); default o-series and GPT-5. */
  reasoningModels?: RegExp;
  /** Anthropic: the shortest prefix that is cached, in (estimated) tokens; default 1024. */
  minCacheTokens?: number;
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

const ROUTES: Record<ScriptedProtocol, Record<string, ScriptedApi>> = {
  openai: { "/v1/responses": "responses", "/v1/chat/completions": "chat" },
  anthropic: { "/v1/messages": "messages" },
};

const DEFAULT_REASONING_MODELS = /^(o\d|gpt-5)/;

/** Signs thinking and seals reasoning with a secret of this server, and checks what comes back. */
class Seals {
  readonly #secret = randomBytes(16);
  #mac(text: string): string {
    return createHmac("sha256", this.#secret).update(text).digest("base64url");
  }
  signThinking(thinking: string): string {
    return this.#mac(`thinking\n${thinking}`);
  }
  verifyThinking(thinking: string, signature: string): boolean {
    return signature === this.signThinking(thinking);
  }
  sealReasoning(id: string, text: string): string {
    const payload = Buffer.from(JSON.stringify({ id, text })).toString("base64url");
    return `${payload}.${this.#mac(payload)}`;
  }
  verifyReasoning(id: string, sealed: string): boolean {
    const [payload = "", mac] = sealed.split(".");
    if (mac !== this.#mac(payload)) return false;
    try {
      return (JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { id?: unknown }).id === id;
    } catch {
      return false;
    }
  }
}

export async function startScriptedServer(protocol: ScriptedProtocol, script: Script, options: ScriptedServerOptions = {}): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const seals = new Seals();
  const anthropicCache = new AnthropicPromptCache(options.minCacheTokens ?? 1024);
  const openaiCache = new OpenAIPromptCache();
  const reasoningModels = options.reasoningModels ?? DEFAULT_REASONING_MODELS;
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
      const path = (req.url ?? "").split("?")[0]!;
      const recorded: RecordedRequest = {
        index: requests.length,
        method: req.method ?? "",
        path,
        api: req.method === "POST" ? ROUTES[protocol][path] : undefined,
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        body,
        receivedAt: Date.now(),
        closedEarly: false,
        status: undefined,
        response: undefined,
      };
      requests.push(recorded);
      res.on("close", () => {
        if (!res.writableFinished) recorded.closedEarly = true;
      });
      for (const w of waiters.filter((w) => requests.length >= w.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      const refusal = check(protocol, recorded, options, seals, reasoningModels);
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
      const render = (reply: ScriptedReply): Rendered => {
        const context = renderContext(recorded, reply, { seals, anthropicCache, openaiCache, reasoningModels });
        return renderReply(recorded.api!, context.reply, context.context);
      };
      play(protocol, step, recorded, req, res, render);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    remaining: () => script.length - next,
    waitForRequests: (count) => (requests.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve }))),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** The request checks the real API makes, as a refusal, or undefined when the request is fine. */
function check(
  protocol: ScriptedProtocol,
  request: RecordedRequest,
  options: ScriptedServerOptions,
  seals: Seals,
  reasoningModels: RegExp,
): Rendered | undefined {
  if (request.api === undefined) return renderError(protocol, 404, `scripted ${protocol} server: no route ${request.method} ${request.path}`);
  const bearer = request.headers.authorization?.replace(/^Bearer /, "");
  const key = protocol === "openai" ? bearer : (request.headers["x-api-key"] ?? bearer);
  if (options.apiKey !== undefined && key !== options.apiKey) return renderError(protocol, 401, "scripted server: invalid API key");
  const version = request.headers["anthropic-version"];
  if (protocol === "anthropic" && version === undefined) return renderError(protocol, 400, "anthropic-version header is required");
  if (request.body === undefined) return renderError(protocol, 400, "the request body is not JSON");
  const invalid = (issues: { path: PropertyKey[]; message: string }[]): Rendered | undefined =>
    issues.length === 0
      ? undefined
      : renderError(protocol, 400, `invalid request:\n${issues.map((i) => `${i.path.map(String).join(".") || "(request)"}: ${i.message}`).join("\n")}`);
  switch (request.api) {
    case "chat": {
      const parsed = OpenAIChatRequest.safeParse(request.body);
      return parsed.success ? undefined : renderError(protocol, 400, `invalid request:\n${formatIssues(parsed.error)}`);
    }
    case "responses": {
      const parsed = ResponsesRequest.safeParse(request.body);
      if (!parsed.success) return renderError(protocol, 400, `invalid request:\n${formatIssues(parsed.error)}`);
      return invalid(
        responsesIssues(parsed.data, {
          reasoningModel: reasoningModels.test(parsed.data.model),
          verifyReasoning: (id, sealed) => seals.verifyReasoning(id, sealed),
        }),
      );
    }
    case "messages": {
      const parsed = MessagesRequest.safeParse(request.body);
      if (!parsed.success) return renderError(protocol, 400, `invalid request:\n${formatIssues(parsed.error)}`);
      return invalid(messagesIssues(parsed.data, { apiVersion: version!, verifyThinking: (t, s) => seals.verifyThinking(t, s) }));
    }
  }
}

interface ServerState {
  seals: Seals;
  anthropicCache: AnthropicPromptCache;
  openaiCache: OpenAIPromptCache;
  reasoningModels: RegExp;
}

/** The reply as this request gets it (no reasoning where the request cannot have it) and its render context. */
function renderContext(request: RecordedRequest, scripted: ScriptedReply, state: ServerState): { reply: ScriptedReply; context: RenderContext } {
  const api = request.api!;
  const body = request.body as Record<string, unknown>;
  const model = scripted.model ?? (typeof body.model === "string" ? body.model : "scripted");
  const thinks =
    api === "messages"
      ? (body as MessagesRequest).thinking !== undefined && (body as MessagesRequest).thinking!.type !== "disabled"
      : api === "responses"
        ? state.reasoningModels.test(String(body.model))
        : true;
  const strip = (c: ScriptedChoice): ScriptedChoice => (thinks ? c : { ...c, reasoning: undefined });
  const reply: ScriptedReply = { ...strip(scripted), ...(scripted.choices ? { choices: scripted.choices.map(strip) } : {}) };
  const choices = reply.choices ?? [reply];
  const include = (body as ResponsesRequest).include ?? [];
  return {
    reply,
    context: {
      index: request.index,
      model,
      usage: scripted.usage === null ? null : scripted.usage === undefined ? estimate(api, body, choices, state) : complete(scripted.usage),
      signThinking: (t) => state.seals.signThinking(t),
      sealReasoning: (id, text) => (include.includes("reasoning.encrypted_content") ? state.seals.sealReasoning(id, text) : undefined),
      summaries: api === "responses" && (body as ResponsesRequest).reasoning?.summary != null,
    },
  };
}

function complete(u: ScriptedUsage): Required<ScriptedUsage> {
  return { cacheReadTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0, reasoningTokens: 0, ...u };
}

/** Usage as the provider would count it: the prompt through the prompt cache, the reply's text, calls and reasoning. */
function estimate(api: ScriptedApi, body: Record<string, unknown>, choices: readonly ScriptedChoice[], state: ServerState): Required<ScriptedUsage> {
  let prompt: CachedUsage;
  if (api === "messages") prompt = state.anthropicCache.use(promptBlocks(body as MessagesRequest));
  else if (api === "responses") {
    const input = (body as ResponsesRequest).input;
    prompt = state.openaiCache.use([JSON.stringify(body.tools ?? []), ...(typeof input === "string" ? [input] : input.map((i) => JSON.stringify(i)))]);
  } else prompt = { inputTokens: approxTokens(JSON.stringify(body.messages ?? [])), cacheReadTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0 };
  let outputTokens = 0;
  let reasoningTokens = 0;
  for (const c of choices) {
    outputTokens += approxTokens(JSON.stringify([c.text ?? "", c.toolCalls ?? []]));
    if (c.reasoning !== undefined) {
      const r = approxTokens(c.reasoning);
      reasoningTokens += r;
      outputTokens += r;
    }
  }
  return { ...prompt, outputTokens, reasoningTokens };
}

/** The prompt as the cache sees it: tools, system, then every content block, each with its breakpoint. */
function promptBlocks(request: MessagesRequest): PromptBlock[] {
  const blocks: PromptBlock[] = [];
  const add = (value: Record<string, unknown>): void => {
    const { cache_control, ...rest } = value as { cache_control?: { ttl?: "5m" | "1h" } | null };
    const key = JSON.stringify(rest);
    blocks.push({ key, tokens: approxTokens(key), ...(cache_control ? { ttl: cache_control.ttl ?? "5m" } : {}) });
  };
  for (const tool of request.tools ?? []) add(tool);
  if (typeof request.system === "string") add({ text: request.system });
  else for (const block of request.system ?? []) add(block);
  for (const message of request.messages) {
    const content: BlockParam[] = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    for (const block of content) add({ role: message.role, ...block });
  }
  return blocks;
}

function play(
  protocol: ScriptedProtocol,
  step: ScriptStep,
  recorded: RecordedRequest,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  render: (reply: ScriptedReply) => Rendered,
): void {
  if ("hang" in step) return;
  if ("stall" in step) {
    recorded.status = 200;
    res.writeHead(200, { "content-type": "text/event-stream" });
    const first =
      recorded.api === "responses"
        ? {
            type: "response.created",
            sequence_number: 0,
            response: { id: "resp_stalled", object: "response", status: "in_progress", model: "scripted", output: [], usage: null },
          }
        : {
            type: "message_start",
            message: {
              id: "msg_stalled",
              type: "message",
              role: "assistant",
              model: "scripted",
              content: [],
              stop_reason: null,
              stop_sequence: null,
              usage: { input_tokens: 1, output_tokens: 1 },
            },
          };
    res.write(`event: ${first.type}\ndata: ${JSON.stringify(first)}\n\n`);
    return;
  }
  if ("drop" in step) {
    req.socket.destroy();
    return;
  }
  const rendered: Rendered =
    "reply" in step
      ? { ...render(step.reply), ...(step.headers ? { headers: step.headers } : {}) }
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
  recorded.status = rendered.status;
  recorded.response = rendered.body;
  const streamed = (recorded.body as { stream?: unknown } | undefined)?.stream === true;
  const events =
    !streamed || rendered.status !== 200
      ? undefined
      : recorded.api === "messages" && isMessage(rendered.body)
        ? messageEventStream(rendered.body)
        : recorded.api === "responses" && isResponse(rendered.body)
          ? responseEventStream(rendered.body)
          : undefined;
  if (events !== undefined) {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...rendered.headers });
    res.end(events);
    return;
  }
  const text = typeof rendered.body === "string" ? rendered.body : JSON.stringify(rendered.body);
  const type = typeof rendered.body === "string" ? "text/plain" : "application/json";
  res.writeHead(rendered.status, { "content-type": type, ...rendered.headers });
  res.end(text);
}
