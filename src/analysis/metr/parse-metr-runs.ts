/**
 * @module
 * Import METR's published run records (JSON Lines) as analysis runs: family names mapped to ours, rows
 * of other families skipped and counted, humans (`alias` "human" or `time_limit` 0) grouped as one
 * participant `human` with 8-hour attempts. A malformed line stops the import with every bad line named,
 * so nothing is silently dropped. `fatal_error_from: "usageLimits"` is how a RE-Bench run normally ends
 * (the agent spent its token, cost or time budget), so those rows are counted apart from real fatal errors.
 */
import { formatIssues, InvalidInputError } from "../../core/index.js";
import type { AnalysisRun } from "../analysis-run.js";
import { METR_FAMILIES } from "./metr-families.js";
import { MetrRunRecord } from "./metr-run-record.js";

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

export function parseMetrRuns(text: string, options: ParseMetrRunsOptions = {}): MetrImport {
  const { humanTimeLimitSeconds = 28_800, source = "the runs file" } = options;
  const out: MetrImport = { runs: [], lines: 0, skippedFamilies: {}, skippedNoTimeLimit: 0, nullScores: 0, usageLimitEndings: 0, fatalErrors: {} };
  const errors: string[] = [];
  text.split("\n").forEach((line, index) => {
    if (line.trim() === "") return;
    out.lines += 1;
    const where = `line ${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      errors.push(`${where}: not JSON (${(error as Error).message})`);
      return;
    }
    const parsed = MetrRunRecord.safeParse(value);
    if (!parsed.success) {
      errors.push(`${where}:\n${formatIssues(parsed.error).replace(/^/gm, "  ")}`);
      return;
    }
    const row = parsed.data;
    const [familyFromId, task = "main"] = row.task_id.split("/", 2);
    const family = row.task_family ?? familyFromId!;
    const environment = METR_FAMILIES[family];
    if (environment === undefined) {
      out.skippedFamilies[family] = (out.skippedFamilies[family] ?? 0) + 1;
      return;
    }
    const human = row.alias === "human" || row.time_limit === 0;
    const limit = row.time_limit ?? 0;
    const timeLimitSeconds = limit > 0 ? limit : human ? humanTimeLimitSeconds : 0;
    if (timeLimitSeconds === 0) {
      out.skippedNoTimeLimit += 1;
      return;
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
      curve: undefined,
      usage: {
        tokens: row.total_tokens ?? null,
        dollars: row.dollar_equivalent ?? null,
        workingSeconds: row.rebench_working_seconds ?? timeLimitSeconds,
        scoreCalls: row.rebench_score_calls ?? null,
        ...(row.rebench_usage_by_kind ? { byKind: row.rebench_usage_by_kind } : {}),
      },
    });
  });
  if (errors.length > 0) {
    const shown = errors.slice(0, MAX_REPORTED_ERRORS).join("\n");
    const more = errors.length > MAX_REPORTED_ERRORS ? `\n... and ${errors.length - MAX_REPORTED_ERRORS} more` : "";
    throw new InvalidInputError(`${source} has ${errors.length} malformed line(s) of METR run records:\n${shown}${more}`, {
      hint: "each line must be one JSON object with run_id, task_id, alias, score and time_limit (docs/analysis.md)",
    });
  }
  return out;
}
