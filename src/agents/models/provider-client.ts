/**
 * @module
 * The ModelClient every provider shares. An adapter turns a neutral request into its SDK's parameters,
 * makes the call with the SDK, and turns the SDK's answer back into choices and usage by token kind; this
 * class does the rest once for all of them: rebench's retries and pauses (the SDKs' own retries are off,
 * see docs/agents.md), several choices (native, or by repeated calls), usage summed over calls, cost by
 * kind from the model table, warnings and durations.
 */
import { addTokens, parseWith, ZERO_COST, ZERO_TOKENS } from "../../core/index.js";
import { ModelResponseError } from "./errors.js";
import {
  type Choice,
  type CostByKind,
  type GenerateOptions,
  GenerateRequest,
  type GenerateRequestInput,
  type GenerateResult,
  type ModelClient,
  type ModelUsage,
  type Provider,
} from "./model-client.js";
import { lookupModel, type ModelInfo, type PriceTable, priceUsage } from "./prices.js";
import { type Clock, type RetryPolicy, systemClock, withRetries } from "./retry.js";
import { type ErrorContext, toModelError } from "./sdk-errors.js";

/** What one response held, in neutral terms. `usage` is undefined when the provider sent none. */
export interface ParsedResponse {
  id: string | undefined;
  model: string | undefined;
  choices: Choice[];
  usage: ModelUsage | undefined;
  /** Worth a look, from this response (e.g. reasoning that used up the output tokens). */
  warnings?: string[];
}

/** One provider through its SDK. `send` throws the SDK's errors; the client maps them (sdk-errors.ts). */
export interface ProviderAdapter<Params = unknown> {
  /** Whether one request can return several choices (`n`). */
  readonly nativeN: boolean;
  /** The SDK parameters for `n` choices, and warnings about settings this provider ignores or adjusts. */
  build(request: GenerateRequest, n: number): { params: Params; warnings: string[] };
  /** One SDK call; the SDK's own retries are off. Throws ModelResponseError on a body of the wrong shape. */
  send(params: Params, options: { signal?: AbortSignal | undefined }): Promise<ParsedResponse>;
}

export interface ProviderClientConfig {
  provider: Provider;
  model: string;
  spec: string;
  adapter: ProviderAdapter;
  /** Names the endpoint in messages, with the base URL and what to check when the key is refused. */
  errors: Omit<ErrorContext, "signal" | "timeoutMs">;
  prices: PriceTable;
  retry?: Partial<RetryPolicy>;
  clock?: Clock;
  random?: () => number;
  timeoutMs: number;
}

export class ProviderClient implements ModelClient {
  readonly provider: Provider;
  readonly model: string;
  readonly spec: string;
  readonly contextWindow: number | undefined;
  readonly #config: ProviderClientConfig;
  readonly #clock: Clock;

  constructor(config: ProviderClientConfig) {
    this.provider = config.provider;
    this.model = config.model;
    this.spec = config.spec;
    this.contextWindow = lookupModel(config.prices, config.provider, [config.model])?.contextWindow;
    this.#config = config;
    this.#clock = config.clock ?? systemClock;
  }

  async generate(input: GenerateRequestInput, options: GenerateOptions = {}): Promise<GenerateResult> {
    const request = parseWith(GenerateRequest, input, `the request to ${this.spec}`);
    const config = this.#config;
    const { label } = config.errors;
    const n = request.n ?? 1;
    const started = this.#clock.now();
    const choices: Choice[] = [];
    let usage: ModelUsage = { ...ZERO_TOKENS };
    const warnings = new Set<string>();
    const responseIds: string[] = [];
    let attempts = 0;
    let pausedMs = 0;
    let reportedModel: string | undefined;
    const errorContext: ErrorContext = { ...config.errors, timeoutMs: config.timeoutMs, signal: options.signal };
    // Each pass asks for what is still missing; a server may return fewer choices than asked.
    while (choices.length < n) {
      const want = config.adapter.nativeN ? n - choices.length : 1;
      const { params, warnings: buildWarnings } = config.adapter.build(request, want);
      for (const w of buildWarnings) warnings.add(w);
      const retried = await withRetries(
        async () => {
          try {
            return await config.adapter.send(params, { signal: options.signal });
          } catch (error) {
            throw toModelError(error, errorContext);
          }
        },
        {
          clock: this.#clock,
          ...(config.retry === undefined ? {} : { policy: config.retry }),
          ...(config.random === undefined ? {} : { random: config.random }),
          ...(options.signal === undefined ? {} : { signal: options.signal }),
          ...(options.onPause === undefined ? {} : { onPause: options.onPause }),
          ...(options.onPauseStart === undefined ? {} : { onPauseStart: options.onPauseStart }),
        },
      );
      attempts += retried.attempts;
      pausedMs += retried.pausedMs;
      const parsed = retried.value;
      if (parsed.choices.length === 0) {
        throw new ModelResponseError(`${label} answered with no choices`, {
          hint: "the endpoint may not support this request (tools, n or stop); check its logs",
        });
      }
      choices.push(...parsed.choices.slice(0, n - choices.length));
      if (parsed.id !== undefined) responseIds.push(parsed.id);
      for (const w of parsed.warnings ?? []) warnings.add(w);
      reportedModel ??= parsed.model;
      if (parsed.usage === undefined) warnings.add(`${label} reported no token usage; its tokens and cost are counted as 0`);
      else usage = addTokens(usage, parsed.usage);
    }
    const info: ModelInfo | undefined = lookupModel(config.prices, config.provider, [this.model, ...(reportedModel ? [reportedModel] : [])]);
    let costUsd = 0;
    let costByKind: CostByKind = { ...ZERO_COST };
    if (info === undefined) {
      warnings.add(
        `no price for ${config.provider}:${this.model} in the price table; its cost is counted as $0 ` +
          `(add it to a JSON price file named by REBENCH_PRICES)`,
      );
    } else {
      const priced = priceUsage(usage, info, `${config.provider}:${this.model}`);
      costUsd = priced.costUsd;
      costByKind = priced.costByKind;
      for (const w of priced.warnings) warnings.add(w);
    }
    return {
      provider: config.provider,
      model: reportedModel ?? this.model,
      requestedModel: this.model,
      choices,
      usage,
      costUsd,
      costByKind,
      warnings: [...warnings],
      durationMs: this.#clock.now() - started,
      pausedMs,
      attempts,
      responseIds,
    };
  }
}
