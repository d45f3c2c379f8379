/**
 * @module
 * `rebench runs export --format inspect`: the store's runs as UK AISI Inspect eval logs, one log per
 * environment variant × task × participant (Inspect's task × model), each run one epoch of the one sample
 * (the task), in Inspect's `.eval` layout (a zip of `header.json`, `samples/<id>_epoch_<n>.json`,
 * `summaries.json` and `_journal/start.json`) or, with `json`, the single-file `.json` log. What a published
 * copy leaves out is left out here too (src/web/publish.ts: hidden-score values, graders' details, the
 * protected reference's code) unless `includeHidden`. docs/inspect-logs.md is the mapping.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { compareText, type RunSummary, type StoredEvent, specIdentity } from "../core/index.js";
import {
  type EvalConfig,
  type EvalLog,
  type EvalLogHeader,
  type EvalSample,
  type EvalSpec,
  emptyGenerateConfig,
  INSPECT_SCHEMA_SOURCE,
  type ModelUsage,
} from "../core/inspect-log.js";
import { writeZip } from "../core/zip.js";
import type { RunFilter, RunStore } from "../store/index.js";
import { addUsage } from "./inspect-model-output.js";
import { inspectModel, inspectSample, NORMALIZED_SCORER, RAW_SCORER, sampleSummary } from "./inspect-sample.js";
import { publicEvent, publicSummary, scoresHidden } from "./publish.js";
import { recordingView } from "./recording.js";

export interface InspectExportOptions {
  /** Which runs (as `rebench runs list` filters them). Default: all. */
  filter?: RunFilter;
  /** Keep hidden-score values, graders' details and the reference's code. Default false (a published copy). */
  includeHidden?: boolean;
  /** Write the single-file `.json` log instead of `.eval`. Default false. */
  json?: boolean;
  /** The rebench version, for `packages`. */
  rebenchVersion?: string;
}

export interface InspectExportFile {
  file: string;
  runs: number;
  bytes: number;
}

/** One log: the header and its samples, before they are written. */
export interface InspectLogParts {
  name: string;
  header: EvalLogHeader;
  samples: EvalSample[];
}

function groupKey(s: RunSummary): string {
  const { spec } = s;
  return JSON.stringify([spec.environment, spec.variant, spec.task, spec.participant.kind, spec.participant.alias]);
}

function safe(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "") || "x";
}

/** The value every run shares, else null. */
function common<T>(values: readonly (T | undefined)[]): T | null {
  const first = values[0];
  return first !== undefined && values.every((v) => v === first) ? first : null;
}

function unique<T>(values: readonly (T | null | undefined)[]): T[] {
  return [...new Set(values.filter((v): v is T => v !== null && v !== undefined))];
}

function sumUsage(samples: readonly EvalSample[]): Record<string, ModelUsage> {
  const out: Record<string, ModelUsage> = {};
  for (const s of samples) for (const [model, u] of Object.entries(s.model_usage)) out[model] = addUsage(out[model], u);
  return out;
}

function meanScore(samples: readonly EvalSample[], scorer: string) {
  const values = samples.flatMap((s) => {
    const v = s.scores?.[scorer]?.value;
    return typeof v === "number" ? [v] : [];
  });
  if (values.length === 0) return [];
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return [
    {
      name: scorer,
      scorer,
      reducer: "mean",
      scored_samples: values.length,
      unscored_samples: samples.length - values.length,
      params: {},
      metrics: { mean: { name: "mean", value: mean, params: {}, metadata: null } },
      metadata: null,
    },
  ];
}

/** The header of the log of one group's runs (oldest first) and their samples. */
export function inspectHeader(
  runs: readonly RunSummary[],
  samples: readonly EvalSample[],
  options: InspectExportOptions & { withheld: boolean },
): EvalLogHeader {
  const first = runs[0]!;
  const { spec } = first;
  const id = createHash("sha256")
    .update(runs.map((r) => r.id).join(","))
    .digest("base64url")
    .slice(0, 22);
  const provenances = runs.map((r) => r.spec.provenance);
  const commit = common(provenances.map((p) => p?.rebenchCommit ?? undefined));
  const digest = common(provenances.map((p) => p?.environmentDigest));
  const round = (v: number | null) => (v === null ? null : Math.round(v));
  const config: EvalConfig = {
    limit: null,
    sample_id: null,
    sample_shuffle: null,
    epochs: runs.length,
    epochs_reducer: ["mean"],
    approval: null,
    fail_on_error: null,
    continue_on_fail: null,
    retry_on_error: null,
    message_limit: null,
    token_limit: round(common(runs.map((r) => r.spec.limits.tokens))),
    time_limit: round(common(runs.map((r) => r.spec.limits.wallSeconds))),
    working_limit: round(common(runs.map((r) => r.spec.timeLimitSeconds ?? r.spec.limits.workingSeconds))),
    max_samples: null,
    max_tasks: null,
    max_subprocesses: null,
    max_sandboxes: null,
    sandbox_cleanup: null,
    log_samples: true,
    log_realtime: null,
    log_images: null,
    log_buffer: null,
    log_shared: null,
    score_display: null,
  };
  const evalSpec: EvalSpec = {
    eval_set_id: null,
    eval_id: id,
    run_id: id,
    created: first.createdAt,
    task: spec.environment,
    task_id: createHash("sha256").update(`${spec.environment}/${spec.variant}/${spec.task}`).digest("base64url").slice(0, 22),
    task_version: digest ? digest.replace(/^sha256:/, "").slice(0, 16) : 0,
    task_file: null,
    task_display_name: `${spec.environment}/${spec.variant} (${spec.task})`,
    task_registry_name: `rebench/${spec.environment}`,
    task_attribs: {},
    task_args: { variant: spec.variant, task: spec.task },
    task_args_passed: { variant: spec.variant, task: spec.task },
    solver: spec.participant.kind === "human" ? "human" : (spec.participant.scaffold ?? null),
    solver_args: spec.config.agent ?? null,
    tags: ["rebench", spec.participant.kind],
    dataset: { name: spec.environment, location: null, samples: 1, sample_ids: [spec.task], shuffled: false },
    sandbox: { type: spec.config.sandbox ?? "local", config: null },
    model: inspectModel(first),
    model_generate_config: emptyGenerateConfig(),
    model_base_url: null,
    model_args: {},
    model_roles: null,
    config,
    revision: commit ? { type: "git", origin: "rebench", commit } : null,
    packages: { rebench: options.rebenchVersion ?? common(provenances.map((p) => p?.rebenchVersion)) ?? "unknown" },
    metadata: {
      rebench: {
        ...specIdentity(spec),
        runs: runs.map((r) => r.id),
        rebenchCommits: unique(provenances.map((p) => p?.rebenchCommit)),
        environmentDigests: unique(provenances.map((p) => p?.environmentDigest)),
        machineClasses: unique(runs.map((r) => r.spec.machineClass)),
        timeLimitSeconds: common(runs.map((r) => r.spec.timeLimitSeconds ?? r.spec.limits.workingSeconds)),
        costLimitUsd: common(runs.map((r) => r.spec.limits.costUsd)),
        actionLimit: common(runs.map((r) => r.spec.limits.actions)),
        scoresWithheld: options.withheld,
        inspectSchema: INSPECT_SCHEMA_SOURCE,
      },
    },
    scorers: [
      { name: NORMALIZED_SCORER, options: null, metrics: null, metadata: null },
      { name: RAW_SCORER, options: { aggregation: spec.aggregation, direction: spec.direction }, metrics: null, metadata: null },
    ],
    metrics: null,
  };
  const ended = (r: RunSummary) => r.state === "finished" || r.state === "failed" || r.state === "moved";
  const failed = runs.filter((r) => r.state === "failed");
  const times = (xs: (string | null)[]) => xs.filter((x): x is string => x !== null).sort(compareText);
  return {
    version: 2,
    status: !runs.every(ended) ? "started" : failed.length > 0 ? "error" : "success",
    eval: evalSpec,
    plan: {
      name: "plan",
      steps: [{ solver: evalSpec.solver ?? "rebench", params: spec.config.agent ?? {} }],
      finish: null,
      config: emptyGenerateConfig(),
    },
    results: {
      total_samples: samples.length,
      completed_samples: runs.filter((r) => r.state === "finished").length,
      scores: [...meanScore(samples, NORMALIZED_SCORER), ...meanScore(samples, RAW_SCORER)],
      metadata: null,
    },
    stats: {
      started_at: times(runs.map((r) => r.startedAt ?? r.createdAt))[0]!,
      completed_at: times(runs.map((r) => r.finishedAt ?? r.updatedAt)).at(-1)!,
      model_usage: sumUsage(samples),
    },
    error:
      failed.length > 0
        ? {
            message: `${failed.length} of ${runs.length} run(s) failed: ${failed.map((r) => `${r.id}: ${r.error ?? "failed"}`).join("; ")}`,
            traceback: "",
            traceback_ansi: "",
          }
        : null,
  };
}

async function terminalOf(events: readonly StoredEvent[]): Promise<{ text: string; tailOnly: boolean } | undefined> {
  const note = events.find(({ event }) => event.type === "note" && event.message.startsWith("human: terminal session recorded"));
  if (!note) return undefined;
  const view = await recordingView(note);
  return view ? { text: Buffer.from(view.output, "base64").toString("utf8"), tailOnly: view.tailOnly } : undefined;
}

/** The logs of the store's runs (read, not written), one per environment variant × task × participant. */
export async function inspectLogs(store: RunStore, options: InspectExportOptions = {}): Promise<InspectLogParts[]> {
  const groups = new Map<string, RunSummary[]>();
  for (const summary of await store.listRuns(options.filter ?? {})) {
    const key = groupKey(summary);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key)!.push(summary);
  }
  const logs: InspectLogParts[] = [];
  for (const stored of groups.values()) {
    stored.sort((a, b) => compareText(a.createdAt, b.createdAt) || compareText(a.id, b.id));
    const withheld = !options.includeHidden && scoresHidden(stored[0]!.spec);
    const runs = options.includeHidden ? stored : stored.map(publicSummary);
    const samples: EvalSample[] = [];
    for (const [i, summary] of runs.entries()) {
      const raw = await store.events(summary.id);
      const events = options.includeHidden ? raw : raw.map((e) => ({ ...e, event: publicEvent(e.event, summary.spec) }));
      const terminal = await terminalOf(raw);
      samples.push(inspectSample({ summary, events, epoch: i + 1, scoresWithheld: withheld, ...(terminal ? { terminal } : {}) }));
    }
    const header = inspectHeader(runs, samples, { ...options, withheld });
    const { spec } = runs[0]!;
    const created = header.eval.created.replace(/[:.]/g, "-");
    const name = `${created}_${safe(`${spec.environment}-${spec.variant}-${spec.task}`)}_${safe(spec.participant.alias)}_${header.eval.eval_id}`;
    logs.push({ name, header, samples });
  }
  return logs;
}

/** The bytes of one log: the `.eval` zip, or the `.json` log. */
export function inspectLogBytes(log: InspectLogParts, json: boolean): Buffer {
  if (json) {
    const whole: EvalLog = { ...log.header, samples: log.samples };
    return Buffer.from(JSON.stringify(whole, null, 2));
  }
  const text = (v: unknown) => Buffer.from(JSON.stringify(v));
  return writeZip(
    [
      { name: "_journal/start.json", data: text({ version: log.header.version, eval: log.header.eval, plan: log.header.plan }) },
      ...log.samples.map((s) => ({ name: `samples/${s.id}_epoch_${s.epoch}.json`, data: text(s) })),
      { name: "summaries.json", data: text(log.samples.map(sampleSummary)) },
      { name: "header.json", data: text(log.header) },
    ],
    { date: new Date(log.header.stats.completed_at) },
  );
}

/**
 * A log's entry in `listing.json`: what Inspect's viewer lists before it opens a log (its LogPreview), so
 * the folder can be served as it is to the viewer's static build (`inspect view bundle` writes the same).
 */
function logPreview(header: EvalLogHeader) {
  const primary = header.results?.scores[0];
  const metric = primary ? Object.values(primary.metrics)[0] : undefined;
  return {
    eval_id: header.eval.eval_id,
    run_id: header.eval.run_id,
    task: header.eval.task,
    task_id: header.eval.task_id,
    task_version: header.eval.task_version,
    version: header.version,
    status: header.status,
    error: header.error,
    model: header.eval.model,
    started_at: header.stats.started_at,
    completed_at: header.stats.completed_at,
    ...(metric ? { primary_metric: { ...metric, name: `${primary!.name}/${metric.name}` } } : {}),
  };
}

/** The name of the folder's listing for Inspect's viewer; not a log (`rebench report` skips it). */
export const LISTING = "listing.json";

/**
 * Write the logs into `dir` (created) with `listing.json` (the logs already there and these); the files
 * written.
 */
export async function exportInspectLogs(store: RunStore, dir: string, options: InspectExportOptions = {}): Promise<InspectExportFile[]> {
  const logs = await inspectLogs(store, options);
  await mkdir(dir, { recursive: true });
  const files: InspectExportFile[] = [];
  let listing: Record<string, unknown> = {};
  try {
    listing = JSON.parse(await readFile(path.join(dir, LISTING), "utf8")) as Record<string, unknown>;
  } catch {
    // none yet (or not ours): written anew
  }
  for (const log of logs) {
    const name = `${log.name}${options.json ? ".json" : ".eval"}`;
    const file = path.join(dir, name);
    const bytes = inspectLogBytes(log, Boolean(options.json));
    await writeFile(file, bytes);
    listing[name] = logPreview(log.header);
    files.push({ file, runs: log.samples.length, bytes: bytes.length });
  }
  await writeFile(path.join(dir, LISTING), JSON.stringify(listing, null, 2));
  return files;
}
