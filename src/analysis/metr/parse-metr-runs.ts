/**
 * @module
 * Import METR's published run records (JSON Lines) as analysis runs: family names mapped to ours, rows
 * of other families skipped and counted, humans (`alias` "human" or `time_limit` 0) grouped as one
 * participant `human` with 8-hour attempts. A malformed line stops the import with every bad line named,
 * so nothing is silently dropped. `fatal_error_from: "usageLimits"` is how a RE-Bench run normally ends
 * (the agent spent its token, cost or time budget), so those rows are counted apart from real fatal errors.
 *
 * A row of plain fields (every one of the expected type or absent, no nested rebench_* objects) is read
 * without zod (`plainRecord`); zod's schema (MetrRunRecord) loads only for the other rows, so a report on
 * METR's files never loads zod and its messages still name every problem of a bad row.
 */
import { InvalidInputError } from "../../core/errors.js";
import { normalizationLabel } from "../../core/normalization-label.js";
import { formatIssues } from "../../core/parse.js";
import type { AnalysisRun } from "../analysis-run.js";
import { METR_FAMILIES } from "./metr-families.js";
import type { MetrRunRecord } from "./metr-run-record.js";

export interface ParseMetrRunsOptions {
  /** The per-run limit of a human row whose `time_limit` is 0 or missing. Default 28,800 (8 hours). */
  humanTimeLimitSeconds?: number;
  /** Named in error messages. Default `the runs file`. */
  source?: string;
}

export interface MetrImport {
  runs: AnalysisRun[];
  /** Non-empty lines read. */
  lines: number;
  /** Rows of families that are not RE-Bench's, by family. */
  skippedFamilies: Record<string, number>;
  /** Agent rows without a positive `time_limit` (best-of-k cannot place them). */
  skippedNoTimeLimit: number;
  /** Rows with a null score, imported as 0 (no valid solution). */
  nullScores: number;
  /** Rows whose `fatal_error_from` is `usageLimits`: the run ended at its budget, as RE-Bench runs normally do. */
  usageLimitEndings: number;
  /** Rows that name any other `fatal_error_from`, by that value; imported with their score. */
  fatalErrors: Record<string, number>;
}

/** METR's (Vivaria's) `fatal_error_from` for a run stopped at its usage limits: a normal ending. */
export const USAGE_LIMITS_ERROR = "usageLimits";

const MAX_REPORTED_ERRORS = 10;

/**
 * `value` as a record when MetrRunRecord would accept it and read the same fields from it: an object whose
 * fields are each of their type (finite numbers, strings, null) or absent, with no nested rebench_* object
 * (zod would strip those objects' unknown keys). Undefined for anything else, which zod then checks.
 */
export function plainRecord(value: unknown): MetrRunRecord | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  // Field by field, not in a loop over names: the rows of a file share one shape, so each check is a
  // plain property load once V8 optimizes this (called once per row).
  const row = value as Record<string, unknown>;
  const id = row.run_id;
  const ok =
    (typeof id === "string" || (typeof id === "number" && Number.isFinite(id))) &&
    typeof row.task_id === "string" &&
    row.task_id !== "" &&
    typeof row.alias === "string" &&
    row.alias !== "" &&
    isNumber(row.score) &&
    isNumber(row.score_binarized) &&
    isNumber(row.time_limit) &&
    isNumber(row.started_at) &&
    isNumber(row.completed_at) &&
    isNumber(row.human_minutes) &&
    isNumber(row.human_score) &&
    isNumber(row.dollar_equivalent) &&
    isNumber(row.total_tokens) &&
    isNumber(row.equal_task_weight) &&
    isNumber(row.invsqrt_task_weight) &&
    isNumber(row.rebench_working_seconds) &&
    isNumber(row.rebench_score_calls) &&
    isString(row.task_family) &&
    isString(row.model) &&
    isString(row.fatal_error_from) &&
    isString(row.human_source) &&
    isString(row.rebench_variant) &&
    isString(row.rebench_machine_class) &&
    (row.rebench_normalization === undefined || row.rebench_normalization === null) &&
    (row.rebench_provenance === undefined || row.rebench_provenance === null) &&
    (row.rebench_usage_by_kind === undefined || row.rebench_usage_by_kind === null);
  return ok ? (row as unknown as MetrRunRecord) : undefined;
}

/** A finite number, null or absent (MetrRunRecord's `num`). */
function isNumber(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === "number" && Number.isFinite(v));
}

/** A string, null or absent (MetrRunRecord's `str`). */
function isString(v: unknown): boolean {
  return v === undefined || v === null || typeof v === "string";
}

/** A line read: a record, a value for zod to check, or what is wrong with it (the text after `line N:`). */
type Line = { index: number; row: MetrRunRecord } | { index: number; value: unknown } | { index: number; error: string };

export async function parseMetrRuns(text: string, options: ParseMetrRunsOptions = {}): Promise<MetrImport> {
  const { humanTimeLimitSeconds = 28_800, source = "the runs file" } = options;
  const out: MetrImport = { runs: [], lines: 0, skippedFamilies: {}, skippedNoTimeLimit: 0, nullScores: 0, usageLimitEndings: 0, fatalErrors: {} };
  const lines: Line[] = [];
  text.split("\n").forEach((line, index) => {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      lines.push({ index, error: ` not JSON (${(error as Error).message})` });
      return;
    }
    const row = plainRecord(value);
    lines.push(row ? { index, row } : { index, value });
  });
  if (lines.some((l) => "value" in l)) {
    const { MetrRunRecord } = await import("./metr-run-record.js");
    lines.forEach((line, i) => {
      if (!("value" in line)) return;
      const parsed = MetrRunRecord.safeParse(line.value);
      lines[i] = parsed.success
        ? { index: line.index, row: parsed.data }
        : { index: line.index, error: `\n${formatIssues(parsed.error).replace(/^/gm, "  ")}` };
    });
  }
  const errors: string[] = [];
  for (const line of lines) {
    out.lines += 1;
    if ("error" in line) {
      errors.push(`line ${line.index + 1}:${line.error}`);
      continue;
    }
    if (!("row" in line)) continue;
    const row = line.row;
    const [familyFromId, task = "main"] = row.task_id.split("/", 2);
    const family = row.task_family ?? familyFromId!;
    const environment = METR_FAMILIES[family];
    if (environment === undefined) {
      out.skippedFamilies[family] = (out.skippedFamilies[family] ?? 0) + 1;
      continue;
    }
    const human = row.alias === "human" || row.time_limit === 0;
    const limit = row.time_limit ?? 0;
    const timeLimitSeconds = limit > 0 ? limit : human ? humanTimeLimitSeconds : 0;
    if (timeLimitSeconds === 0) {
      out.skippedNoTimeLimit += 1;
      continue;
    }
    if (row.score === null || row.score === undefined) out.nullScores += 1;
    const fatal = row.fatal_error_from;
    if (fatal === USAGE_LIMITS_ERROR) out.usageLimitEndings += 1;
    else if (fatal) out.fatalErrors[fatal] = (out.fatalErrors[fatal] ?? 0) + 1;
    out.runs.push({
      id: String(row.run_id),
      participant: human ? "human" : row.alias,
      kind: human ? "human" : "agent",
      environment,
      variant: row.rebench_variant ?? "paper",
      task,
      timeLimitSeconds,
      score: row.score ?? 0,
      ...(row.rebench_normalization ? { normalizedBy: normalizationLabel(row.rebench_normalization) } : {}),
      curve: undefined,
      usage: {
        tokens: row.total_tokens ?? null,
        dollars: row.dollar_equivalent ?? null,
        workingSeconds: row.rebench_working_seconds ?? timeLimitSeconds,
        scoreCalls: row.rebench_score_calls ?? null,
        ...(row.rebench_usage_by_kind ? { byKind: row.rebench_usage_by_kind } : {}),
      },
    });
  }
  if (errors.length > 0) {
    const shown = errors.slice(0, MAX_REPORTED_ERRORS).join("\n");
    const more = errors.length > MAX_REPORTED_ERRORS ? `\n... and ${errors.length - MAX_REPORTED_ERRORS} more` : "";
    throw new InvalidInputError(`${source} has ${errors.length} malformed line(s) of METR run records:\n${shown}${more}`, {
      hint: "each line must be one JSON object with run_id, task_id, alias, score and time_limit (docs/analysis.md)",
    });
  }
  return out;
}
