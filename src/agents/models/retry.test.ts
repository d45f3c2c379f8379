import { describe, expect, test } from "vitest";
import { ModelApiError } from "./errors.js";
import { backoffDelay, DEFAULT_RETRY_POLICY, parseRetryAfter, withRetries } from "./retry.js";
import { fakeClock } from "./testing/fake-clock.js";

const retryable = (message: string, retryAfterMs?: number) =>
  new ModelApiError(message, { status: 429, retryable: true, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });

describe("withRetries", () => {
  test("backoff doubles per failure up to the cap, with jitter in the upper half", () => {
    const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 1000, maxDelayMs: 5000 };
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay(n, policy, () => 0))).toEqual([500, 1000, 2000, 2500, 2500]);
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay(n, policy, () => 0.999999))).toEqual([1000, 2000, 4000, 5000, 5000].map((v) => expect.closeTo(v, 2)));
  });

  test("gives up after maxAttempts and throws the last error", async () => {
    const clock = fakeClock();
    let calls = 0;
    const failure = withRetries(
      async (n) => {
        calls++;
        throw retryable(`failure ${n}`);
      },
      { clock, policy: { maxAttempts: 3 } },
    );
    await expect(failure).rejects.toThrow("failure 3");
    expect(calls).toBe(3);
    expect(clock.sleeps).toHaveLength(2);
  });

  test("errors that are not retryable model API errors are thrown at once", async () => {
    const clock = fakeClock();
    await expect(withRetries(async () => Promise.reject(new TypeError("a bug")), { clock })).rejects.toThrow("a bug");
    const refused = new ModelApiError("bad request", { status: 400, retryable: false });
    await expect(withRetries(async () => Promise.reject(refused), { clock })).rejects.toBe(refused);
    expect(clock.sleeps).toEqual([]);
  });

  test("a Retry-After beyond maxRetryAfterMs fails instead of waiting, and says when to come back", async () => {
    const clock = fakeClock();
    const error = (await withRetries(async () => Promise.reject(retryable("quota", 3_600_000)), { clock }).catch((e: unknown) => e)) as ModelApiError;
    expect(error).toBeInstanceOf(ModelApiError);
    expect(error.message).toMatch(/retry after 3600 s, longer than the 300 s we wait/);
    expect(error.hint).toMatch(/try again/);
    expect(clock.sleeps).toEqual([]);
  });

  test("an already aborted signal makes no attempt", async () => {
    let calls = 0;
    const failure = withRetries(async () => ++calls, { signal: AbortSignal.abort() });
    await expect(failure).rejects.toMatchObject({ name: "AbortError" });
    expect(calls).toBe(0);
  });
});

describe("parseRetryAfter", () => {
  const headers = (h: Record<string, string>) => new Headers(h);
  test("reads retry-after-ms, seconds and HTTP dates; ignores nonsense", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter(headers({ "retry-after-ms": "250", "retry-after": "9" }), now)).toBe(250);
    expect(parseRetryAfter(headers({ "retry-after": "3" }), now)).toBe(3000);
    expect(parseRetryAfter(headers({ "retry-after": "Thu, 01 Jan 2026 00:00:07 GMT" }), now)).toBe(7000);
    expect(parseRetryAfter(headers({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(parseRetryAfter(headers({}), now)).toBeUndefined();
  });
});
