/**
 * @module
 * A scoring call of a run: the grader's result becomes a score-log entry appended as a `score_logged`
 * event. Working time is paused around it (a `scoring` pause in the log) unless the run's clock has
 * already stopped (final scoring) or not started (the starting score).
 */
import type { ScoreLogEntry, ScoreTrigger } from "../core/index.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { runGrader } from "../scoring/run-grader.js";
import { isoAt } from "./clock.js";
import type { RunEnvironment } from "./run-environment.js";
import type { RunLog } from "./run-log.js";

export interface ScoringTarget {
  sandbox: Sandbox;
  env: RunEnvironment;
}

export async function takeScore(
  log: RunLog,
  target: ScoringTarget,
  trigger: ScoreTrigger,
  options: { pause: boolean; signal?: AbortSignal },
): Promise<ScoreLogEntry> {
  const { spec } = log.summary;
  const timestamp = isoAt(log.clock);
  const elapsedSeconds = log.usage().workingSeconds;
  if (options.pause) await log.append({ type: "pause_started", reason: "scoring" });
  try {
    const result = await runGrader(target.sandbox, {
      command: target.env.implementation.grader.command,
      task: spec.task,
      variant: spec.variant,
      timeoutSeconds: target.env.manifest.timeouts.scoreSeconds,
      pauseAgent: target.env.implementation.isolation?.jail === true,
      timingSensitive: target.env.manifest.scoring.timingSensitive,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const entry: ScoreLogEntry = { timestamp, elapsedSeconds, ...result };
    await log.append({ type: "score_logged", trigger, entry });
    return entry;
  } finally {
    if (options.pause) await log.append({ type: "pause_ended", reason: "scoring" });
  }
}
