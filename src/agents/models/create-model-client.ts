/**
 * @module
 * Make a ModelClient from a spec string (`openai:gpt-4o`, `anthropic:...`, `compat:URL#MODEL`): the
 * endpoint, headers and API key from the environment, the price table, the retry policy. A missing key
 * fails here, before any run starts, with a message that says which variable to set.
 */
import { InvalidInputError } from "../../core/index.js";
import { anthropicProtocol } from "./anthropic/protocol.js";
import { HttpModelClient } from "./http-model-client.js";
import type { ModelClient } from "./model-client.js";
import { parseModelSpec } from "./model-spec.js";
import { openaiProtocol } from "./openai/protocol.js";
import { loadPriceTable, type PriceTable } from "./prices.js";
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
  /** Per HTTP request; default 600,000 ms. */
  timeoutMs?: number;
  /** Anthropic's `max_tokens` when a request sets none; default 4096. */
  defaultMaxTokens?: number;
}

export function createModelClient(spec: string, options: ModelClientOptions = {}): ModelClient {
  const env = options.env ?? process.env;
  const parsed = parseModelSpec(spec);
  const prices =
    options.prices ??
    loadPriceTable({ env, ...(options.pricesFile === undefined ? {} : { pricesFile: options.pricesFile }) });
  const common = {
    model: parsed.model,
    spec,
    prices,
    ...(options.retry === undefined ? {} : { retry: options.retry }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.random === undefined ? {} : { random: options.random }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  };
  switch (parsed.provider) {
    case "openai": {
      const key = requireKey(spec, "OPENAI_API_KEY", options.apiKey ?? env.OPENAI_API_KEY);
      const base = trimSlash(options.baseUrl ?? (env.OPENAI_BASE_URL || "https://api.openai.com/v1"));
      return new HttpModelClient({
        ...common,
        provider: "openai",
        protocol: openaiProtocol({ model: parsed.model, label: "openai", maxTokensField: "max_completion_tokens", nativeN: true }),
        url: `${base}/chat/completions`,
        headers: { authorization: `Bearer ${key}` },
        label: "openai",
        authHint: "check OPENAI_API_KEY (and OPENAI_BASE_URL, if set)",
      });
    }
    case "anthropic": {
      const key = requireKey(spec, "ANTHROPIC_API_KEY", options.apiKey ?? env.ANTHROPIC_API_KEY);
      const base = trimSlash(options.baseUrl ?? (env.ANTHROPIC_BASE_URL || "https://api.anthropic.com/v1"));
      return new HttpModelClient({
        ...common,
        provider: "anthropic",
        protocol: anthropicProtocol({
          model: parsed.model,
          label: "anthropic",
          ...(options.defaultMaxTokens === undefined ? {} : { defaultMaxTokens: options.defaultMaxTokens }),
        }),
        url: `${base}/messages`,
        headers: { "x-api-key": key, "anthropic-version": "2023-06-01" },
        label: "anthropic",
        authHint: "check ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL, if set)",
      });
    }
    case "compat": {
      const base = trimSlash(options.baseUrl ?? parsed.baseUrl ?? "");
      const keyEnv = parsed.keyEnv ?? "REBENCH_COMPAT_API_KEY";
      const key =
        options.apiKey ?? (parsed.keyEnv !== undefined ? requireKey(spec, parsed.keyEnv, env[parsed.keyEnv]) : env[keyEnv] || undefined);
      const label = `compat ${base}`;
      return new HttpModelClient({
        ...common,
        provider: "compat",
        protocol: openaiProtocol({ model: parsed.model, label, maxTokensField: "max_tokens", nativeN: parsed.nMode === "native" }),
        url: `${base}/chat/completions`,
        headers: key === undefined ? {} : { authorization: `Bearer ${key}` },
        label,
        authHint: `check the key in ${keyEnv} (add ;key=ENV_VAR to the model to read another variable)`,
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
