/**
 * @module
 * Everything the run page shows above the trajectory, read from the store in a few indexed queries (the
 * summary, the score log, pauses and notes: never the whole event log): the run's row, usage against each
 * budget, the score log, pauses with their reasons, AIDE's tree and whether a terminal recording exists.
 */
import { existsSync } from "node:fs";
import { normalizationLabel, normalizationMissing, type RunSummary, runRecord, type StoredEvent } from "../core/index.js";
import type { RunStore } from "../store/index.js";
import type { AideNodeView, BudgetRow, PauseRow, ReviewView, RunDetail, RunRow, ScoreLogRow } from "./api-types.js";
import { publicEntry, publicSummary, scoresHidden, withheldNotes } from "./publish.js";

export interface ViewOptions {
  /** A published copy: leave out what `publish.ts` names. Default false. */
  publish?: boolean;
}

export function runRow(summary: RunSummary, options: ViewOptions = {}): RunRow {
  const shown = options.publish ? publicSummary(summary) : summary;
  return { ...runRecord(shown), scoresWithheld: Boolean(options.publish) && scoresHidden(shown.spec), events: shown.lastSeq };
}

export async function runDetail(store: RunStore, id: string, options: ViewOptions = {}): Promise<RunDetail> {
  const summary = await store.getRun(id);
  const { spec, usage } = summary;
  const [scored, paused, notes, reviews] = await Promise.all([
    store.events(summary.id, { types: ["score_logged"] }),
    store.events(summary.id, { types: ["pause_started", "pause_ended"] }),
    store.events(summary.id, { types: ["note"] }),
    store.events(summary.id, { types: ["review"] }),
  ]);
  const recording = notes.find(({ event }) => event.type === "note" && event.message.startsWith("human: terminal session recorded"));
  return {
    row: runRow(summary, options),
    aggregation: spec.aggregation,
    direction: spec.direction,
    normalization: spec.normalization
      ? {
          start: spec.normalization.start,
          reference: spec.normalization.reference,
          source: spec.normalization.source,
          by: normalizationLabel(spec.normalization),
        }
      : null,
    normalizationMissing: normalizationMissing(spec) ?? null,
    machineClass: spec.machineClass ?? null,
    timeLimitSeconds: spec.timeLimitSeconds ?? spec.limits.workingSeconds ?? null,
    startedAt: summary.startedAt,
    finishedAt: summary.finishedAt,
    error: summary.error,
    provenance: spec.provenance ?? null,
    usage: { ...usage },
    budgets: budgets(summary),
    scoreLog: scoreLog(scored, summary, options),
    pauses: pauses(paused),
    aide: aideTree(notes),
    recording: recording ? { seq: recording.seq, tailOnly: recordingFiles(recording) === undefined } : null,
    withheld: options.publish ? withheldNotes(spec) : [],
    review: reviewView(reviews.at(-1)),
  };
}

/** The latest `review` event, as the run page shows it. */
function reviewView(stored: StoredEvent | undefined): ReviewView | null {
  if (stored === undefined || stored.event.type !== "review") return null;
  const { verdict, findings, reviewer } = stored.event.review;
  return { seq: stored.seq, verdict, rules: reviewer.rules, monitor: reviewer.monitor?.model ?? null, findings };
}

function budgets(summary: RunSummary): BudgetRow[] {
  const { limits } = summary.spec;
  const { usage } = summary;
  return [
    { name: "working time", used: usage.workingSeconds, limit: limits.workingSeconds ?? null, unit: "seconds" },
    { name: "wall time", used: usage.wallSeconds, limit: limits.wallSeconds ?? null, unit: "seconds" },
    { name: "tokens", used: usage.inputTokens + usage.outputTokens, limit: limits.tokens ?? null, unit: "tokens" },
    { name: "cost", used: usage.costUsd, limit: limits.costUsd ?? null, unit: "dollars" },
    { name: "actions", used: usage.actions, limit: limits.actions ?? null, unit: "actions" },
  ];
}

function scoreLog(events: StoredEvent[], summary: RunSummary, options: ViewOptions): ScoreLogRow[] {
  return events.flatMap(({ seq, event }) => {
    if (event.type !== "score_logged") return [];
    const entry = options.publish ? publicEntry(event.entry, summary.spec) : event.entry;
    const { outcome } = entry;
    const value = outcome.kind === "scored" && Number.isFinite(outcome.value) ? outcome.value : null;
    const why =
      outcome.kind === "invalid"
        ? outcome.reason
        : outcome.kind === "error"
          ? outcome.message
          : outcome.kind === "timedOut"
            ? `timed out after ${outcome.afterSeconds} s`
            : null;
    return [
      {
        seq,
        timestamp: entry.timestamp,
        elapsedSeconds: entry.elapsedSeconds,
        outcome: outcome.kind,
        value,
        why,
        message: entry.message,
        trigger: event.trigger,
      },
    ];
  });
}

function pauses(events: StoredEvent[]): PauseRow[] {
  const rows: PauseRow[] = [];
  let open: PauseRow | undefined;
  for (const { event } of events) {
    if (event.type === "pause_started") {
      open = { reason: event.reason, startedAt: event.ts, endedAt: null, seconds: null };
      rows.push(open);
    } else if (event.type === "pause_ended" && open) {
      open.endedAt = event.ts;
      open.seconds = (Date.parse(event.ts) - Date.parse(open.startedAt)) / 1000;
      open = undefined;
    }
  }
  return rows;
}

function aideTree(notes: StoredEvent[]): RunDetail["aide"] {
  const nodes: AideNodeView[] = [];
  let best: number | null = null;
  for (const { seq, event } of notes) {
    if (event.type !== "note" || !event.message.startsWith("aide: ")) continue;
    const data = (event.data ?? {}) as Record<string, unknown>;
    if (event.message.startsWith("aide: node ") && typeof data.id === "number") {
      nodes.push({
        id: data.id,
        parentId: typeof data.parentId === "number" ? data.parentId : null,
        stage: String(data.stage ?? ""),
        metric: typeof data.metric === "number" ? data.metric : null,
        buggy: data.buggy === true,
        plan: typeof data.plan === "string" ? data.plan : "",
        seq,
      });
    } else if (event.message === "aide: journal" && typeof data.best === "number") {
      best = data.best;
    }
  }
  return nodes.length > 0 ? { nodes, best } : null;
}

/** The recording's files on the host, when they are still there. */
export function recordingFiles(stored: StoredEvent): { output: string; timing: string } | undefined {
  if (stored.event.type !== "note") return undefined;
  const data = (stored.event.data ?? {}) as Record<string, unknown>;
  if (typeof data.output !== "string" || typeof data.timing !== "string") return undefined;
  return existsSync(data.output) && existsSync(data.timing) ? { output: data.output, timing: data.timing } : undefined;
}
