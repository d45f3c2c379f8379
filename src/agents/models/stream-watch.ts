/**
 * @module
 * Waiting for a streamed reply through an SDK. A stream has no overall deadline (a long reasoning reply is
 * fine), but a stream that goes quiet is cut: when no event arrives for `idleMs` (the providers send
 * keep-alive events meanwhile), the stream is aborted and the call fails with a retryable error, which
 * rebench's retry loop then handles like a timeout.
 */
import { ModelApiError } from "./errors.js";

export interface WatchedStream<T> {
  /** Subscribes to every event of the stream. */
  onEvent(listener: () => void): void;
  abort(): void;
  /** The reply once the stream ends. */
  final(): Promise<T>;
}

export async function finishStream<T>(stream: WatchedStream<T>, options: { idleMs: number; label: string }): Promise<T> {
  let stalled = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      stalled = true;
      stream.abort();
    }, options.idleMs);
  };
  stream.onEvent(arm);
  arm();
  try {
    return await stream.final();
  } catch (error) {
    if (stalled) {
      throw new ModelApiError(`${options.label} sent nothing for ${seconds(options.idleMs)} s in the middle of a reply`, { retryable: true, cause: error });
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function seconds(ms: number): string {
  return ms < 10_000 ? (ms / 1000).toFixed(1) : String(Math.round(ms / 1000));
}
