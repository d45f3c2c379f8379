/**
 * @module
 * Error classes for expected failures that reach the user. `src/cli/main.ts` maps each to a message and
 * an exit code; everything else is a bug (internal error, exit 70).
 */

export abstract class RebenchError extends Error {
  /** Exit code the CLI uses for this class of error. */
  abstract readonly exitCode: number;
  /** A hint that says what to do next, printed under the message. */
  readonly hint: string | undefined;
  constructor(message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.hint = options.hint;
  }
}

/** Bad arguments or input from the user (a malformed file, an unknown option value). */
export class InvalidInputError extends RebenchError {
  readonly exitCode = 2;
}

/** A named thing (environment, variant, run) does not exist. */
export class NotFoundError extends RebenchError {
  readonly exitCode = 3;
}

/** The thing exists but cannot be used here yet (a variant not implemented, a backend missing). */
export class UnavailableError extends RebenchError {
  readonly exitCode = 4;
}

/** An operation conflicts with the current state (a run already finished, a store written by a newer rebench). */
export class ConflictError extends RebenchError {
  readonly exitCode = 5;
}

/** Broken infrastructure we depend on (a database that cannot be opened, a sandbox that cannot start). */
export class InfrastructureError extends RebenchError {
  readonly exitCode = 6;
}

/** The command ran to the end and its result is a failure that it has already reported (exit 1). */
export class ReportedFailureError extends RebenchError {
  readonly exitCode = 1;
}
