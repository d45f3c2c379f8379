/**
 * @module
 * Working time from the event log, as a pure fold. The run's clock starts when it first enters `running`
 * and stops when it leaves for `scoring`, `finished` or `failed`; every pause (scoring, model-API retries,
 * a human's break, the orchestrator being down) is a pause_started/pause_ended interval that counts as
 * wall time but not as working time. A pause still open counts up to now.
 */
import type { PauseReason, RunEvent } from "../core/index.js";

export interface TimeLedger {
  startedMs: number | null;
  stoppedMs: number | null;
  /** Sum of the closed pauses. */
  pausedMs: number;
  openPause: { reason: PauseReason; sinceMs: number } | null;
  /** Timestamp of the latest event folded in, not counting who drives the run (the run's last sign of activity). */
  lastEventMs: number | null;
}

export const EMPTY_LEDGER: TimeLedger = { startedMs: null, stoppedMs: null, pausedMs: 0, openPause: null, lastEventMs: null };

/** Events about who drives the run, not what it does: a resubmitted job's wait in the queue is downtime. */
const NOT_ACTIVITY: ReadonlySet<RunEvent["type"]> = new Set(["driver_attached", "job_submitted", "job_started", "cancel_requested"]);

export function foldTime(ledger: TimeLedger, event: RunEvent): TimeLedger {
  if (NOT_ACTIVITY.has(event.type)) return ledger;
  const ms = Date.parse(event.ts);
  const next: TimeLedger = { ...ledger, lastEventMs: ms };
  const stop = () => {
    if (next.startedMs === null || next.stoppedMs !== null) return;
    closePause(next, ms);
    next.stoppedMs = ms;
  };
  switch (event.type) {
    case "state_changed":
      if (event.to === "running" && next.startedMs === null) next.startedMs = ms;
      if (event.to === "scoring" || event.to === "finished" || event.to === "failed") stop();
      break;
    case "run_finished":
    case "run_failed":
    case "run_moved":
      stop();
      break;
    case "pause_started":
      if (next.startedMs !== null && next.stoppedMs === null && next.openPause === null) {
        next.openPause = { reason: event.reason, sinceMs: ms };
      }
      break;
    case "pause_ended":
      closePause(next, ms);
      break;
    default:
      break;
  }
  return next;
}

function closePause(ledger: TimeLedger, ms: number): void {
  if (ledger.openPause === null) return;
  ledger.pausedMs += Math.max(0, ms - ledger.openPause.sinceMs);
  ledger.openPause = null;
}

export interface TimeUsage {
  wallSeconds: number;
  workingSeconds: number;
  pausedSeconds: number;
}

/** Wall, working and paused seconds at `nowMs` (frozen once the run's clock has stopped). */
export function timeUsage(ledger: TimeLedger, nowMs: number): TimeUsage {
  if (ledger.startedMs === null) return { wallSeconds: 0, workingSeconds: 0, pausedSeconds: 0 };
  const end = ledger.stoppedMs ?? Math.max(nowMs, ledger.startedMs);
  const open = ledger.openPause ? Math.max(0, end - ledger.openPause.sinceMs) : 0;
  const wall = end - ledger.startedMs;
  const paused = Math.min(wall, ledger.pausedMs + open);
  return { wallSeconds: wall / 1000, workingSeconds: (wall - paused) / 1000, pausedSeconds: paused / 1000 };
}
