/**
 * @module
 * The official SDKs' failures sorted for rebench's retry loop. Both SDKs (Stainless-made) throw the same
 * family: `APIError` with the status, headers and the provider's error body; `APIConnectionError` (and its
 * `APIConnectionTimeoutError`) when no response came; `APIUserAbortError` when our signal aborted. An
 * error status becomes a `ModelApiError` (retryable or not, the provider's message, Retry-After), a
 * network failure or a timeout a retryable one, an abort the signal's own reason.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { ModelApiError } from "./errors.js";
import { parseRetryAfter } from "./retry.js";

export interface ErrorContext {
  /** Who we talk to, for messages: `openai`, `anthropic`, `compat http://host/v1`. */
  label: string;
  /** The endpoint, for network errors. */
  baseUrl: string;
  /** What to check when the provider refuses the key (401/403). */
  authHint: string;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

const RETRYABLE_STATUSES = new Set([408, 409, 429]);

type SdkApiError = InstanceType<typeof OpenAI.APIError> | InstanceType<typeof Anthropic.APIError>;

function isAbort(error: unknown): boolean {
  return error instanceof OpenAI.APIUserAbortError || error instanceof Anthropic.APIUserAbortError;
}
function isTimeout(error: unknown): boolean {
  return error instanceof OpenAI.APIConnectionTimeoutError || error instanceof Anthropic.APIConnectionTimeoutError;
}
function isConnection(error: unknown): boolean {
  return error instanceof OpenAI.APIConnectionError || error instanceof Anthropic.APIConnectionError;
}
function isApiError(error: unknown): error is SdkApiError {
  return error instanceof OpenAI.APIError || error instanceof Anthropic.APIError;
}

/** Rethrow what an SDK call threw as rebench's error (or the abort reason); errors of our own pass through. */
export function toModelError(error: unknown, context: ErrorContext): unknown {
  const { label, signal } = context;
  if (signal?.aborted) return signal.reason;
  if (isAbort(error)) return error;
  if (isTimeout(error)) {
    return new ModelApiError(`${label} did not answer within ${Math.round(context.timeoutMs / 1000)} s`, { retryable: true, cause: error });
  }
  if (isConnection(error)) {
    return new ModelApiError(`network error talking to ${label} (${context.baseUrl}): ${networkReason(error)}`, {
      retryable: true,
      hint: "check the endpoint's address and that it is up",
      cause: error,
    });
  }
  if (!isApiError(error) || error.status === undefined) return error;
  const status = error.status;
  const headers = error.headers ?? new Headers();
  const shouldRetry = headers.get("x-should-retry");
  const retryable = shouldRetry === "true" ? true : shouldRetry === "false" ? false : RETRYABLE_STATUSES.has(status) || status >= 500;
  const retryAfterMs = parseRetryAfter(headers);
  const message = providerMessage(error.error);
  const hint =
    status === 401 || status === 403
      ? context.authHint
      : status === 404
        ? "check the model name and the base URL"
        : /verif/i.test(message) && /summar/i.test(message)
          ? 'reasoning summaries need a verified OpenAI organization: verify it, or set "reasoningSummary": "off" in --agent-config'
          : undefined;
  return new ModelApiError(`${label} answered HTTP ${status}: ${message}`, {
    status,
    retryable,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(hint === undefined ? {} : { hint }),
    cause: error,
  });
}

/** The provider's error message: OpenAI's SDK gives the `error` object, Anthropic's the whole body. */
function providerMessage(body: unknown): string {
  if (typeof body === "string") return excerpt(body) || "(empty body)";
  const b = body as { message?: unknown; error?: { message?: unknown } | string } | undefined;
  if (typeof b?.message === "string") return b.message;
  if (typeof b?.error === "string") return b.error;
  if (typeof b?.error?.message === "string") return b.error.message;
  return b === undefined || b === null ? "(empty body)" : excerpt(JSON.stringify(b));
}

function networkReason(error: unknown): string {
  for (let e: unknown = (error as { cause?: unknown }).cause, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
  }
  const cause = (error as { cause?: { message?: unknown } }).cause;
  if (typeof cause?.message === "string") return cause.message;
  return error instanceof Error ? error.message : String(error);
}

export function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}
