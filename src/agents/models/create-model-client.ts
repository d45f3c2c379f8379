/**
 * @module
 * Make a ModelClient from a spec string (`openai:gpt-4o`, `anthropic:...`, `compat:URL#MODEL`): the
 * official SDK client for the provider (its own retries off: rebench retries, so that every wait is a
 * `model_retry` pause; docs/agents.md), the endpoint and API key from the environment, the model table,
 * the retry policy. A missing key fails here, before any run starts, with a message that says which
 * variable to set.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { InvalidInputError } from "../../core/index.js";
import { messagesAdapter } from "./anthropic/messages.js";
import type { ModelClient } from "./model-client.js";
import { parseModelSpec } from "./model-spec.js";
import { chatAdapter } from "./openai/chat.js";
import { responsesAdapter } from "./openai/responses.js";
import { loadPriceTable, lookupModel, type PriceTable } from "./prices.js";
import { ProviderClient } from "./provider-client.js";
import type { Clock, RetryPolicy } from "./retry.js";

export interface ModelClientOptions {
  /** Where keys and base URLs are read; default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Use this key instead of the environment's. */
  apiKey?: string;
  /** Override the endpoint (openai and anthropic; default `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL` or the provider's). */
  baseUrl?: string;
  /** The model table; default the shipped one with `pricesFile` (or `REBENCH_PRICES`) laid over it. */
  prices?: PriceTable;
  pricesFile?: string;
  retry?: Partial<RetryPolicy>;
  clock?: Clock;
  random?: () => number;
  /** Per request until the answer starts, and (for a streamed answer) between its events; default 600,000 ms. */
  timeoutMs?: number;
  /** Anthropic's `max_tokens` when a request sets none; default 4096. */
  defaultMaxTokens?: number;
}

const DEFAULT_TIMEOUT_MS = 600_000;

export function createModelClient(spec: string, options: ModelClientOptions = {}): ModelClient {
  const env = options.env ?? process.env;
  const parsed = parseModelSpec(spec);
  const prices = options.prices ?? loadPriceTable({ env, ...(options.pricesFile === undefined ? {} : { pricesFile: options.pricesFile }) });
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const common = {
    model: parsed.model,
    spec,
    prices,
    timeoutMs,
    ...(options.retry === undefined ? {} : { retry: options.retry }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.random === undefined ? {} : { random: options.random }),
  };
  // The SDKs read several variables of their own; everything they use is passed here, from `env`.
  const sdk = { maxRetries: 0, timeout: timeoutMs };
  switch (parsed.provider) {
    case "openai": {
      const key = requireKey(spec, "OPENAI_API_KEY", options.apiKey ?? env.OPENAI_API_KEY);
      const baseUrl = trimSlash(options.baseUrl ?? (env.OPENAI_BASE_URL || "https://api.openai.com/v1"));
      const client = new OpenAI({
        ...sdk,
        apiKey: key,
        baseURL: baseUrl,
        organization: env.OPENAI_ORG_ID || null,
        project: env.OPENAI_PROJECT_ID || null,
        adminAPIKey: null,
        webhookSecret: null,
      });
      return new ProviderClient({
        ...common,
        provider: "openai",
        adapter: responsesAdapter({
          client,
          model: parsed.model,
          label: "openai",
          info: lookupModel(prices, "openai", [parsed.model]),
          idleTimeoutMs: timeoutMs,
        }),
        errors: { label: "openai", baseUrl, authHint: "check OPENAI_API_KEY (and OPENAI_BASE_URL, if set)" },
      });
    }
    case "anthropic": {
      const key = requireKey(spec, "ANTHROPIC_API_KEY", options.apiKey ?? env.ANTHROPIC_API_KEY);
      // The SDK's base URL has no /v1 (it adds /v1/messages); one with /v1, as rebench once took, works too.
      const baseUrl = trimSlash(options.baseUrl ?? (env.ANTHROPIC_BASE_URL || "https://api.anthropic.com")).replace(/\/v1$/, "");
      const client = new Anthropic({ ...sdk, apiKey: key, baseURL: baseUrl, webhookKey: null });
      return new ProviderClient({
        ...common,
        provider: "anthropic",
        adapter: messagesAdapter({
          client,
          model: parsed.model,
          label: "anthropic",
          idleTimeoutMs: timeoutMs,
          ...(options.defaultMaxTokens === undefined ? {} : { defaultMaxTokens: options.defaultMaxTokens }),
        }),
        errors: { label: "anthropic", baseUrl, authHint: "check ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL, if set)" },
      });
    }
    case "compat": {
      const baseUrl = trimSlash(options.baseUrl ?? parsed.baseUrl ?? "");
      const keyEnv = parsed.keyEnv ?? "REBENCH_COMPAT_API_KEY";
      const key = options.apiKey ?? (parsed.keyEnv !== undefined ? requireKey(spec, parsed.keyEnv, env[parsed.keyEnv]) : env[keyEnv] || undefined);
      const label = `compat ${baseUrl}`;
      // The SDK insists on a key; a keyless server gets no Authorization header at all.
      const client = new OpenAI({
        ...sdk,
        apiKey: key ?? "no-key",
        baseURL: baseUrl,
        organization: null,
        project: null,
        adminAPIKey: null,
        webhookSecret: null,
        ...(key === undefined ? { defaultHeaders: { Authorization: null } } : {}),
      });
      return new ProviderClient({
        ...common,
        provider: "compat",
        adapter: chatAdapter({ client, model: parsed.model, label, nativeN: parsed.nMode === "native" }),
        errors: { label, baseUrl, authHint: `check the key in ${keyEnv} (add ;key=ENV_VAR to the model to read another variable)` },
      });
    }
  }
}

function requireKey(spec: string, variable: string, value: string | undefined): string {
  if (value !== undefined && value.trim() !== "") return value.trim();
  throw new InvalidInputError(`the model ${spec} needs an API key, and ${variable} is not set`, {
    hint: `export ${variable}=... (or run a local OpenAI-compatible server and use compat:http://HOST:PORT/v1#MODEL)`,
  });
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}
