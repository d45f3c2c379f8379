/**
 * @module
 * One run's review, as a pure function of its events: the score signals over its score log, the trajectory
 * signals over its actions (the shared rules less those its environment turns off, plus the environment's
 * signatures), and the monitor's findings when a monitor read it. The verdict is the most severe finding's.
 */
import { type MonitorRecord, type Review, type ReviewFinding, type StoredEvent, verdictOf } from "../core/index.js";
import { type LoggedScore, type ScoreBasis, type ScoreSignalOptions, scoreSignals } from "./score-signals.js";
import type { TrajectoryRule } from "./trajectory-rules.js";
import { trajectorySignals } from "./trajectory-signals.js";
import { actionTexts } from "./trajectory-text.js";

/** What a run is judged against: its environment's rules and score basis (review-context.ts). */
export interface ReviewContext {
  rules: readonly TrajectoryRule[];
  /** `shared@N` plus the environment's `NAME@N`. */
  rulesVersion: string;
  basis: ScoreBasis | undefined;
  score?: ScoreSignalOptions;
}

export interface MonitorOutcome {
  findings: ReviewFinding[];
  record: MonitorRecord;
}

export function reviewEvents(events: readonly StoredEvent[], context: ReviewContext, monitor?: MonitorOutcome): Review {
  const findings = [...trajectorySignals(actionTexts(events), context.rules), ...scoreSignals(loggedScores(events), context.basis, context.score)];
  if (monitor) findings.push(...monitor.findings);
  return {
    verdict: verdictOf(findings),
    findings,
    reviewer: { rules: context.rulesVersion, ...(monitor ? { monitor: monitor.record } : {}) },
  };
}

export function loggedScores(events: readonly StoredEvent[]): LoggedScore[] {
  return events.flatMap(({ seq, event }) => (event.type === "score_logged" ? [{ seq, entry: event.entry, trigger: event.trigger }] : []));
}
