/**
 * @module
 * Reconcile a run whose orchestrator died (even by SIGKILL) from its event log, before it continues:
 * - the time the orchestrator was down (from the run's last event to now) becomes a `recovery` pause, and a
 *   pause left open is closed where the log stops, so neither counts as working time;
 * - the sandbox is found again (`reattach`); without it the run fails, its score log kept, and whatever is
 *   left of the sandbox is removed;
 * - an action cut off by the crash gets its observation: a `score` whose entry was logged reuses it, one
 *   that was not is scored again; a `submit` is completed; a command is marked `interrupted`;
 * - a run that died while ending (`scoring`) is ended: the final score is taken if it was not.
 * Score-log entries are never rewritten or dropped: the log is append-only.
 */
import type { StoredEvent } from "../core/index.js";
import type { Sandbox, SandboxBackend } from "../sandbox/sandbox.js";
import { scoreView } from "../scoring/score-view.js";
import { destroyRunSandbox } from "./destroy-run-sandbox.js";
import { endRun, parseStop } from "./finish-run.js";
import type { RunEnvironment } from "./run-environment.js";
import type { RunLog } from "./run-log.js";
import { takeScore } from "./take-score.js";

export type Recovered = { kind: "continue"; sandbox: Sandbox } | { kind: "ended" };

/** Close the open pause and book the downtime since `downSinceMs` as a `recovery` pause. */
export async function bookDowntime(log: RunLog, downSinceMs: number): Promise<void> {
  const since = new Date(Math.min(downSinceMs, log.clock.now())).toISOString();
  const open = log.ledger.openPause;
  await log.appendAll([
    ...(open ? [{ type: "pause_ended" as const, reason: open.reason, ts: since }] : []),
    { type: "pause_started", reason: "recovery", ts: since },
    { type: "pause_ended", reason: "recovery" },
  ]);
}

export async function recoverRun(log: RunLog, env: RunEnvironment, backend: SandboxBackend): Promise<Recovered> {
  const sandbox = await backend.reattach(log.id);
  const events = await log.events();
  if (log.state === "scoring") {
    await endRun(log, sandbox ? { sandbox, env } : undefined, parseStop(lastScoringReason(events)));
    return { kind: "ended" };
  }
  if (!sandbox) {
    await log.append({
      type: "run_failed",
      error: "the run's sandbox is gone after an orchestrator restart, so the agent cannot continue; its score log is kept",
    });
    // What the backend cannot reattach may still hold files (a folder without its metadata): remove them.
    await destroyRunSandbox(log, undefined);
    return { kind: "ended" };
  }
  const target = { sandbox, env };
  for (const { action, after } of interruptedActions(events)) {
    const { actionId, tool } = action;
    if (tool === "submit") {
      if (!after.some((e) => e.type === "submitted")) {
        await log.append({ type: "submitted", submission: submissionOf(action.input) });
      }
      await endRun(
        log,
        target,
        { reason: "submitted" },
        {
          beforeFinish: async (view) => void (await log.append({ type: "observation", actionId, tool, output: view })),
        },
      );
      return { kind: "ended" };
    }
    if (tool === "score") {
      const logged = after.find((e) => e.type === "score_logged");
      const entry = logged?.type === "score_logged" ? logged.entry : await takeScore(log, target, "action", { pause: true });
      await log.append({ type: "observation", actionId, tool, output: scoreView(entry, env.visible) });
      continue;
    }
    await log.append({
      type: "observation",
      actionId,
      tool,
      output: { interrupted: true, error: "the orchestrator stopped while this ran; its output is lost (the command may have run in part)" },
    });
  }
  return { kind: "continue", sandbox };
}

type ActionEvent = Extract<StoredEvent["event"], { type: "action" }>;

function interruptedActions(events: readonly StoredEvent[]): Array<{ action: ActionEvent; after: StoredEvent["event"][] }> {
  const observed = new Set(events.flatMap(({ event }) => (event.type === "observation" ? [event.actionId] : [])));
  return events.flatMap(({ event }, i) =>
    event.type === "action" && !observed.has(event.actionId) ? [{ action: event, after: events.slice(i + 1).map((e) => e.event) }] : [],
  );
}

function lastScoringReason(events: readonly StoredEvent[]): string | undefined {
  let reason: string | undefined;
  for (const { event } of events) if (event.type === "state_changed" && event.to === "scoring") reason = event.reason;
  return reason;
}

function submissionOf(input: unknown): string {
  const value = (input as { submission?: unknown } | null)?.submission;
  return typeof value === "string" ? value : "";
}
