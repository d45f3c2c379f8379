/**
 * @module
 * One model call inside a run, made the same way by every scaffold: the run's abort signal is passed on (a
 * limit reached mid-generation cuts the request), each retry wait of the client becomes a `model_retry`
 * pause of the run as it happens (so it is not working time), and the generation is recorded for token and
 * cost accounting (tokens by kind, dollars), which ends the run when it crosses the token or cost budget.
 */

import type { AgentSession } from "../core/index.js";
import type { GenerateRequest, GenerateResult, ModelClient } from "./models/model-client.js";

/** Turns the client's retry callbacks (start, end) into one `session.paused` interval per wait. */
class RetryPauses {
  #chain: Promise<void> = Promise.resolve();
  #release: (() => void) | undefined;

  constructor(readonly session: AgentSession) {}

  begin(): void {
    this.end();
    const waited = new Promise<void>((resolve) => (this.#release = resolve));
    this.#chain = this.#chain
      .then(() => this.session.paused("model_retry", () => waited))
      // The run may have ended meanwhile: then there is nothing to pause.
      .catch(() => undefined);
  }

  end(): void {
    this.#release?.();
    this.#release = undefined;
  }

  /** Close any open pause and wait until its events are written. */
  async settled(): Promise<void> {
    this.end();
    await this.#chain;
  }
}

/** What a scaffold keeps of a generation in its `generation` event (default: the choices and warnings). */
export type KeepContent = (result: GenerateResult) => unknown;

/**
 * The choices (their reasoning and the provider's own output with them: what a restarted scaffold sends
 * back), warnings, attempts and response ids.
 */
const defaultContent: KeepContent = (result) => ({
  choices: result.choices,
  ...(result.warnings.length > 0 ? { warnings: result.warnings } : {}),
  attempts: result.attempts,
  responseIds: result.responseIds,
});

/**
 * Call the model for the run: retries paused, the generation recorded. Rejects with the session's abort
 * reason when the run ends during the call, and with the client's error when the call fails for good.
 */
export async function generateInRun(
  session: AgentSession,
  client: ModelClient,
  request: GenerateRequest,
  keep: KeepContent = defaultContent,
): Promise<GenerateResult> {
  const pauses = new RetryPauses(session);
  let result: GenerateResult;
  try {
    result = await client.generate(request, {
      signal: session.signal,
      onPauseStart: () => pauses.begin(),
      onPause: () => pauses.end(),
    });
  } finally {
    await pauses.settled();
  }
  await session.recordGeneration({
    model: `${client.provider}:${result.model}`,
    ...result.usage,
    costUsd: result.costUsd,
    costByKind: result.costByKind,
    durationMs: Math.max(0, result.durationMs - result.pausedMs),
    content: keep(result),
  });
  return result;
}
