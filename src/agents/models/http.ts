/**
 * @module
 * One JSON POST to a model API with plain fetch, its failures sorted for the retry loop: an error status
 * becomes a `ModelApiError` (retryable or not, with the provider's message and Retry-After), a network
 * failure or a request timeout a retryable one, a 2xx body that is not JSON a `ModelResponseError`. An
 * abort of the caller's signal rejects with the signal's reason and closes the connection.
 */
import { ModelApiError, ModelResponseError } from "./errors.js";

export interface PostJsonOptions {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  /** Give up on one request after this long (a retryable failure); default 600,000 ms. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Who we are talking to, for messages: `openai`, `anthropic`, `compat http://host/v1`. */
  label: string;
  /** What to check when the provider refuses the key (401/403). */
  authHint?: string;
}

export interface JsonResponse {
  status: number;
  json: unknown;
}

const RETRYABLE_STATUSES = new Set([408, 409, 429]);

export async function postJson(options: PostJsonOptions): Promise<JsonResponse> {
  const { signal, label } = options;
  const timeoutMs = options.timeoutMs ?? 600_000;
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let response: Response;
  let text: string;
  try {
    response = await fetch(options.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...options.headers },
      body: JSON.stringify(options.body),
      signal: combined,
    });
    text = await response.text();
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (timeout.aborted) {
      throw new ModelApiError(`${label} did not answer within ${Math.round(timeoutMs / 1000)} s`, {
        retryable: true,
        cause: error,
      });
    }
    throw new ModelApiError(`network error talking to ${label} (${options.url}): ${networkReason(error)}`, {
      retryable: true,
      hint: "check the endpoint's address and that it is up",
      cause: error,
    });
  }
  if (!response.ok) throw statusError(response, text, options);
  try {
    return { status: response.status, json: JSON.parse(text) };
  } catch {
    throw new ModelResponseError(
      `${label} answered HTTP ${response.status} with a body that is not JSON: ${excerpt(text)}`,
      { hint: "check that the URL points at the API itself (for an OpenAI-compatible server, usually ending in /v1)" },
    );
  }
}

function statusError(response: Response, text: string, options: PostJsonOptions): ModelApiError {
  const { status } = response;
  const shouldRetry = response.headers.get("x-should-retry");
  const retryable =
    shouldRetry === "true" ? true : shouldRetry === "false" ? false : RETRYABLE_STATUSES.has(status) || status >= 500;
  const retryAfterMs = parseRetryAfter(response.headers);
  const hint =
    status === 401 || status === 403
      ? options.authHint
      : status === 404
        ? "check the model name and the base URL"
        : undefined;
  return new ModelApiError(`${options.label} answered HTTP ${status}: ${errorMessage(text)}`, {
    status,
    retryable,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(hint === undefined ? {} : { hint }),
  });
}

/** The provider's error message: OpenAI and Anthropic both put it at `error.message`. */
function errorMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof body.error === "string") return body.error;
    if (typeof body.error?.message === "string") return body.error.message;
    if (typeof body.message === "string") return body.message;
  } catch {
    // not JSON: fall through to the raw text
  }
  return excerpt(text) || "(empty body)";
}

/** `retry-after-ms` (OpenAI), or `retry-after` in seconds or as an HTTP date; undefined if absent or odd. */
export function parseRetryAfter(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Number(ms);
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function networkReason(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (typeof cause?.code === "string") return cause.code;
  if (typeof cause?.message === "string") return cause.message;
  return error instanceof Error ? error.message : String(error);
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}
