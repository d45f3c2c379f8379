/**
 * @module
 * What the viewer's server sends its pages, and what `--export` writes as files: the one place these shapes
 * are defined, imported by the server (src/web) and the browser code (src/web/client) alike. They are the
 * viewer's own (not stored, not shared with Python), so plain interfaces rather than zod schemas; a run is
 * the run record of core (RunRecord), the shape every `--json` output uses.
 */
import type { RunRecord } from "../core/run-record.js";

/**
 * One run as the runs list shows it: the run record every `--json` output prints (src/core/run-record.ts,
 * docs/runs.md "Runs as JSON"), plus what only the viewer needs.
 */
export type RunRow = RunRecord & {
  /** True when the run's score values are hidden (task `hidden_score`) and this copy leaves them out (null there). */
  scoresWithheld: boolean;
  /** Events in the run's log. */
  events: number;
};

export interface RunFacetsView {
  environments: string[];
  variants: string[];
  participants: string[];
  states: string[];
}

export interface RunsPage {
  total: number;
  offset: number;
  limit: number;
  runs: RunRow[];
  facets: RunFacetsView;
}

/** A piece of an item's text: a command, an output stream, a message; cut to a preview unless `complete`. */
export interface ItemPart {
  label: string;
  text: string;
  /** Length of the whole text in UTF-8 bytes (the preview may be shorter). */
  bytes: number;
  /** Whether `text` is the whole text. */
  complete: boolean;
  tone?: "error" | "muted";
}

export type ItemKind = "generation" | "action" | "observation" | "score" | "pause" | "state" | "note" | "time" | "end" | "start" | "review" | "other";

/** One event of the trajectory. */
export interface TrajectoryItem {
  seq: number;
  ts: string;
  type: string;
  kind: ItemKind;
  title: string;
  badges: string[];
  parts: ItemPart[];
  /** Whether every part is complete (then expanding needs no request). */
  complete: boolean;
}

/**
 * Every event of a run as its kind alone (index 0 is seq 1): enough for the page to group the trajectory
 * into model turns, fold bookkeeping and filter by kind before any event is fetched.
 */
export interface TrajectoryOutline {
  kinds: ItemKind[];
}

export interface ScoreLogRow {
  seq: number;
  timestamp: string;
  elapsedSeconds: number;
  outcome: "scored" | "invalid" | "timedOut" | "error";
  /** The raw value of a scored entry; null otherwise, or when withheld. */
  value: number | null;
  /** The reason, message or timeout, for an entry that is not scored. */
  why: string | null;
  message: Record<string, unknown>;
  trigger: string;
}

export interface BudgetRow {
  name: string;
  used: number;
  limit: number | null;
  unit: "seconds" | "tokens" | "dollars" | "actions";
}

export interface PauseRow {
  reason: string;
  startedAt: string;
  endedAt: string | null;
  seconds: number | null;
}

export interface AideNodeView {
  id: number;
  parentId: number | null;
  stage: string;
  metric: number | null;
  buggy: boolean;
  plan: string;
  seq: number;
}

export interface RunDetail {
  row: RunRow;
  aggregation: string;
  direction: string;
  /**
   * The constants the run's scores are normalized with; `by` says which in words (the calibration.json
   * entry: "AMD EPYC, 2 cores, 2026-11-29, N=5", or "paper", "shipped", "calibration" for older runs).
   */
  normalization: { start: number; reference: number; source?: string; by?: string } | null;
  /** Why the run has no normalized score, with the command that makes one; null when it has constants. */
  normalizationMissing?: string | null;
  /** The class of the machine the run was scored on (calibration per machine class); null where not recorded. */
  machineClass?: string | null;
  timeLimitSeconds: number | null;
  startedAt: string | null;
  finishedAt: string | null;
  error: string | null;
  provenance: Record<string, unknown> | null;
  usage: { wallSeconds: number; workingSeconds: number; pausedSeconds: number; inputTokens: number; outputTokens: number; costUsd: number; actions: number };
  budgets: BudgetRow[];
  scoreLog: ScoreLogRow[];
  pauses: PauseRow[];
  aide: { nodes: AideNodeView[]; best: number | null } | null;
  /** Where a human run's terminal recording is: the note's seq; null when the run has none. */
  recording: { seq: number; tailOnly: boolean } | null;
  /** What this copy leaves out (exports), one line each. */
  withheld: string[];
  /** The run's latest review (`rebench review`, docs/review.md): its event, verdict, reviewer and findings; null before any. */
  review: ReviewView | null;
}

/** A review as the run page shows it; each finding's `seqs` link to the trajectory's events. */
export interface ReviewView {
  seq: number;
  verdict: "clean" | "suspicious" | "hack";
  rules: string;
  monitor: string | null;
  findings: { kind: string; signal: string; severity: string; summary: string; seqs: number[]; excerpt?: string }[];
}

/** A human run's terminal session: what was shown, and when (seconds after the previous chunk, bytes). */
export interface RecordingView {
  /** The output, base64 (raw terminal bytes). */
  output: string;
  /** Delay in seconds before each chunk and the chunk's length in bytes; empty: play all at once. */
  timing: [number, number][];
  /** True when only the end of the session was kept (the files are gone). */
  tailOnly: boolean;
}

export interface ComparisonTable {
  title: string;
  headers: string[];
  numeric: boolean[];
  rows: string[][];
  note: string;
}

/** The comparison of the runs of one task: runs of different tasks are never pooled. */
export interface ComparisonSection {
  /** `main`, `hidden_score`, ... */
  task: string;
  runs: number;
  /** Which calibration entries normalized these runs. */
  notes: string[];
  tables: ComparisonTable[];
  /** Figures as SVG text, drawn by the report's own renderer (escaped there). */
  figures: { name: string; title: string; svg: string }[];
}

export interface ComparisonView {
  source: string;
  /** Comparable runs, in all sections. */
  runs: number;
  /** Runs left out and why. */
  notes: string[];
  /** Every task of the finished runs that the other filters keep (the task filter's choices). */
  tasks: string[];
  /** One per task, `main` first. */
  sections: ComparisonSection[];
  filters: { environment?: string; variant?: string; participant?: string; task?: string; budgets: string };
}

/** What the server or the export says about itself. */
export interface ViewerMeta {
  mode: "live" | "static";
  store: string;
  /** For exports: when it was written and what it leaves out. */
  exportedAt?: string;
  notes: string[];
}

/** A live update of a run: new items after the cursor and the run as it is now. */
export interface LiveUpdate {
  row: RunRow;
  items: TrajectoryItem[];
}
