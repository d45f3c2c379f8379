/**
 * @module
 * Failures of a model API that reach the scaffold and, through it, the user: an HTTP error the provider
 * answered (with its message), a network failure after the retries ran out, and a response that does not
 * have the protocol's shape. Missing API keys are `InvalidInputError`s raised when the client is made.
 */
import { InfrastructureError } from "../../core/index.js";

/** The provider answered with an error status (after retries, when the status was retryable). */
export class ModelApiError extends InfrastructureError {
  readonly status: number | undefined;
  readonly retryable: boolean;
  /** Milliseconds the provider asked us to wait (Retry-After), if it said. */
  readonly retryAfterMs: number | undefined;
  constructor(message: string, details: { status?: number; retryable: boolean; retryAfterMs?: number; hint?: string; cause?: unknown }) {
    super(message, { hint: details.hint, cause: details.cause });
    this.status = details.status;
    this.retryable = details.retryable;
    this.retryAfterMs = details.retryAfterMs;
  }
}

/** The provider answered 2xx with a body that is not the protocol's response shape. */
export class ModelResponseError extends InfrastructureError {}
