/**
 * @module
 * The end of a run: enter `scoring` (which stops its clock), take the final score where it is due (on
 * submit; when a limit stopped the run and the environment scores such runs), then `run_finished` with the
 * aggregate of the whole score log, and remove the sandbox, giving back its GPUs. Recovery calls the same
 * steps for a run that was killed while ending, skipping what its log shows was done.
 */
import type { LimitName, RunOutcomeView, ScoreLogEntry, ScoreTrigger, StopReason } from "../core/index.js";
import { finalScore } from "../scoring/final-score.js";
import { scoreView } from "../scoring/score-view.js";
import { destroyRunSandbox } from "./destroy-run-sandbox.js";
import type { RunLog } from "./run-log.js";
import { type ScoringTarget, takeScore } from "./take-score.js";

export interface Stop {
  reason: StopReason;
  limit?: LimitName;
}

/** How a stop is written in the `state_changed` → scoring event's reason: `submitted`, `limit:tokens`, ... */
export function stopText(stop: Stop): string {
  return stop.limit ? `${stop.reason}:${stop.limit}` : stop.reason;
}

export function parseStop(text: string | undefined): Stop {
  const [reason, limit] = (text ?? "error").split(":");
  const known = ["submitted", "limit", "cancelled", "error"] as const;
  const stopReason = known.find((k) => k === reason) ?? "error";
  return limit ? { reason: stopReason, limit: limit as LimitName } : { reason: stopReason };
}

function finalTrigger(stop: Stop, target: ScoringTarget | undefined): ScoreTrigger | undefined {
  // `error`: the sandbox's executor died under the agent (run-session.ts); its workspace is scored as a submission.
  if (stop.reason === "submitted" || stop.reason === "error") return "submit";
  if (stop.reason === "limit" && target?.env.manifest.scoring.scoreOnUsageLimits) return "limit";
  return undefined;
}

/** The final score_logged after the latest move to `scoring`, if the log has one. */
async function finalEntryTaken(log: RunLog): Promise<ScoreLogEntry | undefined> {
  const events = await log.events();
  let entry: ScoreLogEntry | undefined;
  for (const { event } of events) {
    if (event.type === "state_changed" && event.to === "scoring") entry = undefined;
    if (event.type === "score_logged" && (event.trigger === "submit" || event.trigger === "limit")) entry = event.entry;
  }
  return entry;
}

export interface EndOptions {
  /** Called after the final scoring, before `run_finished` (the submit tool records its observation here). */
  beforeFinish?: (view: RunOutcomeView) => Promise<void>;
  signal?: AbortSignal;
}

/**
 * End the run. `target` is undefined when the sandbox is gone (after a crash): the run then finishes on the
 * score log it has.
 */
export async function endRun(log: RunLog, target: ScoringTarget | undefined, stop: Stop, options: EndOptions = {}): Promise<RunOutcomeView> {
  if (log.state !== "scoring") await log.transitionWithTime("scoring", stopText(stop));
  const trigger = finalTrigger(stop, target);
  let entry = await finalEntryTaken(log);
  if (!entry && trigger && target) {
    entry = await takeScore(log, target, trigger, { pause: false, ...(options.signal ? { signal: options.signal } : {}) });
  }
  const view: RunOutcomeView = {
    stopReason: stop.reason,
    ...(stop.limit ? { limit: stop.limit } : {}),
    finalScore: entry && target ? scoreView(entry, target.env.visible) : null,
  };
  await options.beforeFinish?.(view);
  const { finalRaw, normalized } = finalScore(await log.scoreLog(), log.summary.spec);
  await log.append({
    type: "run_finished",
    stopReason: stop.reason,
    ...(stop.limit ? { limit: stop.limit } : {}),
    finalRaw,
    normalized,
  });
  // The run has its end state and score now: a teardown that leaves something behind is a note, never a failure.
  await destroyRunSandbox(log, target?.sandbox);
  return view;
}
