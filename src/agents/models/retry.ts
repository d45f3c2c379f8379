/**
 * @module
 * Retries of model API calls: exponential backoff with jitter on retryable failures (429, 408, 409, 5xx,
 * network errors), the provider's Retry-After honoured, every wait reported as a pause so the run layer
 * can keep it out of working time, and an AbortSignal that cuts a wait short.
 */

import { ModelApiError } from "./errors.js";
import type { ModelPause, ModelPauseStart } from "./model-client.js";

export interface RetryPolicy {
  /** Requests in all, the first included; default 6. */
  maxAttempts: number;
  /** Backoff before the first retry, doubled each time (with jitter); default 1,000 ms. */
  baseDelayMs: number;
  /** Cap on a backoff wait; default 60,000 ms. */
  maxDelayMs: number;
  /** A Retry-After longer than this fails the call instead of waiting; default 300,000 ms. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  maxAttempts: 6,
  baseDelayMs: 1_000,
  maxDelayMs: 60_000,
  maxRetryAfterMs: 300_000,
});

/** Time as the retry loop sees it; tests pass a fake one. */
export interface Clock {
  now(): number;
  /** Resolve after `ms`, or reject with `signal.reason` as soon as it aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
};

export interface RetryOptions {
  policy?: Partial<RetryPolicy>;
  clock?: Clock;
  /** Uniform in [0, 1); default Math.random. */
  random?: () => number;
  signal?: AbortSignal;
  onPause?: (pause: ModelPause) => void;
  onPauseStart?: (pause: ModelPauseStart) => void;
}

export interface Retried<T> {
  value: T;
  /** Requests made, the successful one included. */
  attempts: number;
  pausedMs: number;
}

/** The backoff before retry number `failures` (1 = after the first failure): half fixed, half jitter. */
export function backoffDelay(failures: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (failures - 1));
  return ceiling / 2 + random() * (ceiling / 2);
}

/**
 * Call `attempt` until it succeeds, it fails with an error that is not a retryable `ModelApiError`, or the
 * attempts run out (the last error is thrown). An abort rejects with the signal's reason.
 */
export async function withRetries<T>(attempt: (attemptNumber: number) => Promise<T>, options: RetryOptions = {}): Promise<Retried<T>> {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.policy };
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const { signal } = options;
  let pausedMs = 0;
  for (let n = 1; ; n++) {
    signal?.throwIfAborted();
    try {
      return { value: await attempt(n), attempts: n, pausedMs };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (!(error instanceof ModelApiError) || !error.retryable || n >= policy.maxAttempts) throw error;
      const waitMs = waitBefore(error, n, policy, random);
      const description = error.message;
      const startedMs = clock.now();
      const startedAt = new Date(startedMs).toISOString();
      options.onPauseStart?.({ reason: "model_retry", startedAt, attempt: n, error: description, waitMs });
      let aborted = false;
      try {
        await clock.sleep(waitMs, signal);
      } catch (sleepError) {
        aborted = true;
        throw sleepError;
      } finally {
        const endedMs = clock.now();
        pausedMs += endedMs - startedMs;
        options.onPause?.({
          reason: "model_retry",
          startedAt,
          endedAt: new Date(endedMs).toISOString(),
          attempt: n,
          error: description,
          aborted,
        });
      }
    }
  }
}

function waitBefore(error: ModelApiError, failures: number, policy: RetryPolicy, random: () => number): number {
  if (error.retryAfterMs === undefined) return backoffDelay(failures, policy, random);
  if (error.retryAfterMs > policy.maxRetryAfterMs) {
    throw new ModelApiError(
      `${error.message} (the provider asked to retry after ${Math.ceil(error.retryAfterMs / 1000)} s, ` +
        `longer than the ${Math.round(policy.maxRetryAfterMs / 1000)} s we wait)`,
      {
        status: error.status,
        retryable: false,
        retryAfterMs: error.retryAfterMs,
        hint: "the rate limit or quota resets later; try again then, or use another model or key",
        cause: error,
      },
    );
  }
  return Math.max(0, error.retryAfterMs);
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
