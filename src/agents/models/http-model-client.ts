/**
 * @module
 * The ModelClient every provider shares: a protocol adapter turns a neutral request into the provider's
 * JSON and its response back into choices; this class does the rest once for all of them: retries and
 * pauses, several choices (native, or by repeated calls), usage summed over calls, cost from the table,
 * warnings and durations.
 */
import { parseWith } from "../../core/index.js";
import { ModelResponseError } from "./errors.js";
import { postJson } from "./http.js";
import {
  type Choice,
  GenerateRequest,
  type GenerateOptions,
  type GenerateResult,
  type ModelClient,
  type ModelUsage,
  type Provider,
} from "./model-client.js";
import { costUsd, lookupModel, type PriceTable } from "./prices.js";
import { type Clock, type RetryPolicy, systemClock, withRetries } from "./retry.js";

/** What one HTTP response held, in neutral terms. `usage` is undefined when the provider sent none. */
export interface ParsedResponse {
  id: string | undefined;
  model: string | undefined;
  choices: Choice[];
  usage: ModelUsage | undefined;
}

/** How one provider's protocol maps requests and responses. Throws ModelResponseError on a bad shape. */
export interface Protocol {
  /** Whether one request can return several choices (`n`). */
  readonly nativeN: boolean;
  buildBody(request: GenerateRequest, n: number): { body: unknown; warnings: string[] };
  parseResponse(json: unknown): ParsedResponse;
}

export interface HttpModelClientConfig {
  provider: Provider;
  model: string;
  spec: string;
  protocol: Protocol;
  url: string;
  headers: Record<string, string>;
  /** Names the endpoint in messages. */
  label: string;
  /** Printed when the provider refuses the key. */
  authHint: string;
  prices: PriceTable;
  retry?: Partial<RetryPolicy>;
  clock?: Clock;
  random?: () => number;
  /** Per HTTP request; default 600,000 ms. */
  timeoutMs?: number;
}

export class HttpModelClient implements ModelClient {
  readonly provider: Provider;
  readonly model: string;
  readonly spec: string;
  readonly contextWindow: number | undefined;
  readonly #config: HttpModelClientConfig;
  readonly #clock: Clock;

  constructor(config: HttpModelClientConfig) {
    this.provider = config.provider;
    this.model = config.model;
    this.spec = config.spec;
    this.contextWindow = lookupModel(config.prices, config.provider, [config.model])?.contextWindow;
    this.#config = config;
    this.#clock = config.clock ?? systemClock;
  }

  async generate(input: GenerateRequest, options: GenerateOptions = {}): Promise<GenerateResult> {
    const request = parseWith(GenerateRequest, input, `the request to ${this.spec}`);
    const config = this.#config;
    const n = request.n ?? 1;
    const started = this.#clock.now();
    const choices: Choice[] = [];
    const usage: ModelUsage = { inputTokens: 0, outputTokens: 0 };
    const warnings = new Set<string>();
    const responseIds: string[] = [];
    let attempts = 0;
    let pausedMs = 0;
    let reportedModel: string | undefined;
    // Each pass asks for what is still missing; a server may return fewer choices than asked.
    while (choices.length < n) {
      const want = config.protocol.nativeN ? n - choices.length : 1;
      const { body, warnings: buildWarnings } = config.protocol.buildBody(request, want);
      for (const w of buildWarnings) warnings.add(w);
      const retried = await withRetries(
        async () => {
          const response = await postJson({
            url: config.url,
            headers: config.headers,
            body,
            label: config.label,
            authHint: config.authHint,
            ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
            ...(options.signal === undefined ? {} : { signal: options.signal }),
          });
          return config.protocol.parseResponse(response.json);
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
        throw new ModelResponseError(`${config.label} answered with no choices`, {
          hint: "the endpoint may not support this request (tools, n or stop); check its logs",
        });
      }
      choices.push(...parsed.choices.slice(0, n - choices.length));
      if (parsed.id !== undefined) responseIds.push(parsed.id);
      reportedModel ??= parsed.model;
      if (parsed.usage === undefined) {
        warnings.add(`${config.label} reported no token usage; its tokens and cost are counted as 0`);
      } else {
        usage.inputTokens += parsed.usage.inputTokens;
        usage.outputTokens += parsed.usage.outputTokens;
      }
    }
    const info = lookupModel(config.prices, config.provider, [this.model, ...(reportedModel ? [reportedModel] : [])]);
    if (info === undefined) {
      warnings.add(
        `no price for ${config.provider}:${this.model} in the price table; its cost is counted as $0 ` +
          `(add it to a JSON price file named by REBENCH_PRICES)`,
      );
    }
    return {
      provider: config.provider,
      model: reportedModel ?? this.model,
      requestedModel: this.model,
      choices,
      usage,
      costUsd: info === undefined ? 0 : costUsd(usage, info),
      warnings: [...warnings],
      durationMs: this.#clock.now() - started,
      pausedMs,
      attempts,
      responseIds,
    };
  }
}
