/**
 * @module
 * Inspect eval logs (`.eval` zips or `.json` logs) as analysis runs, so `rebench report --format inspect`
 * compares runs kept as Inspect logs. A log rebench wrote (`rebench runs export --format inspect`) carries
 * each run's record in its sample's `metadata.rebench` and its score log in its score events: the run comes
 * back as the store would give it (the same score, normalization, usage and score-over-time curve). Any
 * other Inspect log counts where its task is a RE-Bench environment (ours or METR's family names, such as
 * `ai_rd_triton_cumsum`) and each sample carries a numeric score, read as the raw score and normalized with the
 * constants `constantsFor` gives (the paper variant's); the working limit is the log's `working_limit` (or
 * `time_limit`). Samples that cannot be compared are counted with the reason, never dropped silently.
 */
import { InvalidInputError } from "../../core/errors.js";
import { normalizationLabel } from "../../core/normalization-label.js";
import type { NormalizationConstants } from "../../core/normalize.js";
import { normalize } from "../../core/normalize.js";
import { PAPER_ENVIRONMENTS } from "../../core/paper-environments.js";
import type { ScoreOutcome } from "../../core/score.js";
import { readZip } from "../../core/zip.js";
import type { AnalysisRun } from "../analysis-run.js";
import { METR_FAMILIES } from "../metr/metr-families.js";
import { scoreCurve } from "../score-curve.js";

export interface InspectLogFile {
  name: string;
  bytes: Buffer;
}

export interface ParseInspectOptions {
  /** The constants of an environment's variant, for logs rebench did not write (their raw scores). */
  constantsFor?: (environment: string, variant: string) => NormalizationConstants | undefined;
}

export interface InspectImport {
  runs: AnalysisRun[];
  logs: number;
  samples: number;
  /** Samples left out, by reason. */
  skipped: Record<string, number>;
}

type Json = Record<string, unknown>;

function rec(value: unknown): Json {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

function num(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/** The header and samples of one log file. */
function readLog(file: InspectLogFile): { header: Json; samples: Json[] } {
  const parse = (text: string, what: string): Json => {
    try {
      return rec(JSON.parse(text));
    } catch (error) {
      throw new InvalidInputError(`${file.name}: ${what} is not JSON (${(error as Error).message})`, { hint: "pass Inspect eval logs (.eval or .json)" });
    }
  };
  if (file.name.endsWith(".eval")) {
    const members = readZip(file.bytes, file.name);
    const headerBytes = members.get("header.json") ?? members.get("_journal/start.json");
    if (!headerBytes)
      throw new InvalidInputError(`${file.name} has no header.json: not an Inspect .eval log`, { hint: "pass Inspect eval logs (.eval or .json)" });
    const samples = [...members].filter(([name]) => name.startsWith("samples/") && name.endsWith(".json")).map(([name, b]) => parse(b.toString("utf8"), name));
    return { header: parse(headerBytes.toString("utf8"), "header.json"), samples };
  }
  const log = parse(file.bytes.toString("utf8"), "the log");
  if (!("eval" in log)) throw new InvalidInputError(`${file.name} has no "eval": not an Inspect eval log`, { hint: "pass Inspect eval logs (.eval or .json)" });
  return { header: log, samples: Array.isArray(log.samples) ? log.samples.map(rec) : [] };
}

const ENVIRONMENTS = new Set<string>(PAPER_ENVIRONMENTS);

/** Our environment of an Inspect task name (`optimize_kernel`, `ai_rd_triton_cumsum`, `inspect_evals/ai_rd_triton_cumsum`). */
export function environmentOfTask(task: string): string | undefined {
  const name = task.split("/").at(-1) ?? task;
  return METR_FAMILIES[name] ?? (ENVIRONMENTS.has(name) ? name : undefined);
}

/** A sample of a log rebench wrote: the run as the store gives it (analysisRunFromStore). */
function rebenchRun(sample: Json, skip: (reason: string) => undefined): AnalysisRun | undefined {
  const r = rec(rec(sample.metadata).rebench);
  if (r.state !== "finished") return skip(`not finished (${String(r.state)})`);
  if (r.scoresWithheld === true) return skip("scores withheld (a hidden-score run exported without --include-hidden)");
  const timeLimitSeconds = num(r.timeLimitSeconds);
  if (timeLimitSeconds === null) return skip("no per-run time limit");
  const normalization = r.normalization as NormalizationConstants | null;
  if (!normalization) return skip(`no normalized score: ${String(r.normalizationMissing ?? "no normalization constants")}`);
  const human = r.participantKind === "human";
  const entries = (Array.isArray(sample.events) ? sample.events.map(rec) : [])
    .filter((e) => e.event === "score")
    .map((e) => rec(rec(e.score).metadata))
    .filter((m) => typeof m.elapsedSeconds === "number" && typeof rec(m.outcome).kind === "string")
    .map((m) => ({ elapsedSeconds: m.elapsedSeconds as number, outcome: m.outcome as ScoreOutcome }));
  const aggregation = r.aggregation === "min" || r.aggregation === "max" || r.aggregation === "last" ? r.aggregation : "last";
  const byKind = rec(r.tokensByKind);
  return {
    id: String(r.runId),
    participant: human ? "human" : String(r.participant),
    kind: human ? "human" : "agent",
    environment: String(r.environment),
    variant: String(r.variant),
    task: String(r.task),
    timeLimitSeconds,
    // As the store's runs: the final raw score normalized with the run's constants; 0 without a valid score.
    score: num(r.rawScore) === null ? 0 : normalize(num(r.rawScore)!, normalization),
    normalizedBy: normalizationLabel(normalization),
    curve: entries.length > 0 ? scoreCurve(entries, { aggregation, normalization }) : undefined,
    usage: {
      tokens: human ? null : num(r.tokens),
      dollars: human ? null : num(r.costUsd),
      workingSeconds: num(r.workingSeconds),
      scoreCalls: num(r.scoreCalls),
      ...(human
        ? {}
        : {
            byKind: {
              input: num(byKind.input) ?? 0,
              cacheRead: num(byKind.cacheRead) ?? 0,
              cacheWrite: num(byKind.cacheWrite) ?? 0,
              output: num(byKind.output) ?? 0,
              reasoning: num(byKind.reasoning) ?? 0,
              dollars: (r.costByKind as NonNullable<AnalysisRun["usage"]["byKind"]>["dollars"]) ?? null,
            },
          }),
    },
  };
}

/** A sample of another Inspect log of a RE-Bench task: its first numeric score as the raw score. */
function foreignRun(header: Json, sample: Json, index: number, options: ParseInspectOptions, skip: (reason: string) => undefined): AnalysisRun | undefined {
  const evalSpec = rec(header.eval);
  const task = String(evalSpec.task ?? "");
  const environment = environmentOfTask(task) ?? environmentOfTask(String(evalSpec.task_registry_name ?? ""));
  if (!environment) return skip(`task ${task || "(none)"} is not a RE-Bench environment`);
  const raw = Object.values(rec(sample.scores))
    .map((s) => num(rec(s).value))
    .find((v) => v !== null);
  if (raw === undefined) return skip("no numeric score");
  const variant = "paper";
  const constants = options.constantsFor?.(environment, variant);
  if (!constants) return skip(`no normalization constants for ${environment}/${variant}`);
  const config = rec(evalSpec.config);
  const timeLimitSeconds = num(config.working_limit) ?? num(config.time_limit);
  if (timeLimitSeconds === null) return skip("no working_limit or time_limit in the log's config");
  const model = String(evalSpec.model ?? "unknown");
  const human = model.startsWith("human/");
  const usage = Object.values(rec(sample.model_usage)).map(rec);
  const tokens = usage.length > 0 ? usage.reduce((n, u) => n + (num(u.total_tokens) ?? 0), 0) : null;
  return {
    id: String(sample.uuid ?? `${String(evalSpec.eval_id ?? task)}:${String(sample.id)}:${String(sample.epoch ?? index + 1)}`),
    participant: human ? "human" : model,
    kind: human ? "human" : "agent",
    environment,
    variant,
    task: "main",
    timeLimitSeconds,
    score: normalize(raw, constants),
    normalizedBy: normalizationLabel(constants),
    curve: undefined,
    usage: {
      tokens: human ? null : tokens,
      dollars: null,
      workingSeconds: num(sample.working_time),
      scoreCalls: Array.isArray(sample.events) ? sample.events.filter((e) => rec(e).event === "score").length : null,
    },
  };
}

export function parseInspectLogs(files: readonly InspectLogFile[], options: ParseInspectOptions = {}): InspectImport {
  const out: InspectImport = { runs: [], logs: 0, samples: 0, skipped: {} };
  const seen = new Set<string>();
  for (const file of files) {
    const { header, samples } = readLog(file);
    out.logs += 1;
    const ours = rec(rec(rec(header.eval).metadata).rebench).environment !== undefined;
    samples.forEach((sample, index) => {
      out.samples += 1;
      const skip = (reason: string) => {
        out.skipped[reason] = (out.skipped[reason] ?? 0) + 1;
        return undefined;
      };
      const run = ours ? rebenchRun(sample, skip) : foreignRun(header, sample, index, options, skip);
      // The same run in two files (a folder with both the .eval and the .json export) counts once.
      if (run && seen.has(run.id)) skip("the same run again (in another log file)");
      else if (run) {
        seen.add(run.id);
        out.runs.push(run);
      }
    });
  }
  return out;
}
