/**
 * @module
 * Where `rebench report` and `rebench runs export` get runs to compare: a METR-format runs file, or the
 * run store (finished runs with a time limit and normalization constants; the rest counted by reason).
 */
import { readFile } from "node:fs/promises";
import type { AnalysisRun } from "../analysis/analysis-run.js";
import type { InspectLogFile } from "../analysis/inspect/parse-inspect-logs.js";
import { parseMetrRuns } from "../analysis/metr/parse-metr-runs.js";
import { normalizedByNotes } from "../analysis/normalized-by-notes.js";
import { compareText } from "../core/compare-text.js";
import { InvalidInputError, NotFoundError } from "../core/errors.js";
import type { NormalizationConstants, RunSummary } from "../core/index.js";
import type { RunFilter, RunStore } from "../store/index.js";

export interface LoadedRuns {
  runs: AnalysisRun[];
  /** Where they came from, for the report header. */
  source: string;
  /** What was left out and why, one line each. */
  notes: string[];
}

/** The store's comparable runs with their summaries, and how many were left out for each reason. */
export async function storedAnalysisRuns(
  store: RunStore,
  filter: RunFilter = {},
): Promise<{ pairs: { run: AnalysisRun; summary: RunSummary }[]; skipped: Record<string, number> }> {
  const { analysisRunFromStore } = await import("../analysis/analysis-run-from-store.js"); // its helpers load zod
  const pairs: { run: AnalysisRun; summary: RunSummary }[] = [];
  const skipped: Record<string, number> = {};
  const summaries = await store.listRuns(filter);
  const logs = await store.scoreLogs(summaries.filter((s) => s.state === "finished").map((s) => s.id));
  for (const summary of summaries) {
    const log = logs.get(summary.id) ?? [];
    const result = analysisRunFromStore(summary, log);
    if (result.kind === "run") pairs.push({ run: result.run, summary });
    else skipped[result.reason] = (skipped[result.reason] ?? 0) + 1;
  }
  return { pairs, skipped };
}

export async function loadRunsFile(file: string, format: string): Promise<LoadedRuns> {
  if (format === "inspect") return loadInspectLogs(file);
  if (format !== "metr") {
    throw new InvalidInputError(`unknown runs-file format "${format}"`, {
      hint: "use --format metr (METR's JSON Lines) or --format inspect (Inspect eval logs: a .eval or .json file, or a folder of them)",
    });
  }
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new NotFoundError(`cannot read the runs file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, {
      hint: "pass the path of a METR-format JSON Lines file, or leave out --runs-file to use the run store",
    });
  }
  const imported = await parseMetrRuns(text, { source: file });
  const notes: string[] = [];
  const families = Object.entries(imported.skippedFamilies);
  if (families.length > 0) notes.push(`Skipped ${families.map(([f, n]) => `${n} ${f}`).join(", ")} row(s): not RE-Bench families.`);
  if (imported.skippedNoTimeLimit > 0) notes.push(`Skipped ${imported.skippedNoTimeLimit} agent row(s) without a time limit.`);
  if (imported.nullScores > 0) notes.push(`${imported.nullScores} row(s) had no score and count as 0.`);
  if (imported.usageLimitEndings > 0) {
    notes.push(`${imported.usageLimitEndings} run(s) ended at their usage limit (fatal_error_from "usageLimits"), as RE-Bench runs normally do.`);
  }
  const fatal = Object.entries(imported.fatalErrors).sort(([a, x], [b, y]) => y - x || compareText(a, b));
  const fatalCount = fatal.reduce((sum, [, n]) => sum + n, 0);
  if (fatalCount > 0) {
    const kinds = fatal.map(([kind, n]) => `${n} ${kind}`).join(", ");
    notes.push(`Warning: ${fatalCount} run(s) ended in a fatal error (fatal_error_from: ${kinds}); their scores are used as recorded.`);
  }
  return { runs: imported.runs, source: `${file} (METR format, ${imported.lines} rows)`, notes };
}

/** Inspect eval logs: one `.eval` or `.json` log, or every one in a folder (docs/inspect-logs.md). */
async function loadInspectLogs(file: string): Promise<LoadedRuns> {
  const { readdir, stat } = await import("node:fs/promises");
  const path = await import("node:path");
  let names: string[];
  try {
    names = (await stat(file)).isDirectory()
      ? (await readdir(file))
          .filter((n) => (n.endsWith(".eval") || n.endsWith(".json")) && n !== "listing.json")
          .sort(compareText)
          .map((n) => path.join(file, n))
      : [file];
  } catch (error) {
    throw new NotFoundError(`cannot read the runs file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, {
      hint: "pass an Inspect log (.eval or .json) or a folder of them, or leave out --runs-file to use the run store",
    });
  }
  const files = await Promise.all(names.map(async (name) => ({ name, bytes: await readFile(name) })));
  const imported = await parseWithConstants(files);
  const notes = Object.entries(imported.skipped)
    .sort(([a], [b]) => compareText(a, b))
    .map(([reason, n]) => `Left out ${n} sample(s): ${reason}.`);
  notes.push(...normalizedByNotes(imported.runs));
  return { runs: imported.runs, source: `${file} (Inspect logs: ${imported.logs} log(s), ${imported.samples} sample(s))`, notes };
}

/**
 * Parse the logs; where a log rebench did not write needs an environment's constants, load the environment
 * registry (every environment: only then) and parse again with the constants it declares.
 */
async function parseWithConstants(files: InspectLogFile[]) {
  const { parseInspectLogs } = await import("../analysis/inspect/parse-inspect-logs.js");
  const wanted = new Set<string>();
  const first = parseInspectLogs(files, {
    constantsFor: (environment, variant) => {
      wanted.add(`${environment}/${variant}`);
      return undefined;
    },
  });
  if (wanted.size === 0) return first;
  const { getVariant } = await import("../environments/registry.js");
  const constants = new Map<string, NormalizationConstants | undefined>();
  for (const key of wanted) {
    const [environment, variant] = key.split("/") as [string, string];
    try {
      constants.set(key, getVariant(environment, variant).normalization);
    } catch {
      constants.set(key, undefined);
    }
  }
  return parseInspectLogs(files, { constantsFor: (environment, variant) => constants.get(`${environment}/${variant}`) });
}

/** How `loadStoreRuns` treats runs that `rebench review` flagged (verdict suspicious or hack). */
export interface LoadStoreOptions {
  /** Leave them out of the comparison (`report --exclude-flagged`). Default false: they count, and a warning names them. */
  excludeFlagged?: boolean;
}

export async function loadStoreRuns(store: RunStore, options: LoadStoreOptions = {}): Promise<LoadedRuns> {
  const stored = await storedAnalysisRuns(store);
  const { skipped } = stored;
  const flagged = stored.pairs.filter((p) => p.summary.review !== null && p.summary.review.verdict !== "clean");
  const pairs = options.excludeFlagged ? stored.pairs.filter((p) => !flagged.includes(p)) : stored.pairs;
  // Sorted by reason: the store lists runs created in the same millisecond in no fixed order.
  const notes = Object.entries(skipped)
    .sort(([a], [b]) => compareText(a, b))
    .map(([reason, n]) => `Left out ${n} run(s): ${reason}.`);
  const contended = pairs.filter((p) => p.summary.contendedScores > 0);
  if (contended.length > 0) {
    const entries = contended.reduce((n, p) => n + p.summary.contendedScores, 0);
    notes.push(
      `Warning: ${contended.length} of ${pairs.length} run(s) have score entries taken while other work used the machine ` +
        `(${entries} entr${entries === 1 ? "y" : "ies"} of timing-sensitive variants, flagged as contended): their timings are not comparable.`,
    );
  }
  notes.push(...reviewNotes(stored.pairs, flagged, options.excludeFlagged === true));
  notes.push(...normalizedByNotes(pairs.map((p) => p.run)));
  return { runs: pairs.map((p) => p.run), source: `run store ${store.location}`, notes };
}

/** What the report says of reviews (docs/review.md): the flagged runs by id with their verdicts. */
function reviewNotes(all: readonly { summary: RunSummary }[], flagged: readonly { summary: RunSummary }[], excluded: boolean): string[] {
  const notes: string[] = [];
  if (flagged.length > 0) {
    const list = flagged
      .map((p) => `${p.summary.id} (${p.summary.review!.verdict}, ${p.summary.spec.participant.alias}, ${p.summary.spec.environment})`)
      .join(", ");
    notes.push(
      excluded
        ? `Left out ${flagged.length} run(s) flagged by \`rebench review\` (--exclude-flagged): ${list}.`
        : `Warning: ${flagged.length} of ${all.length} run(s) were flagged by \`rebench review\` and their scores count here: ${list}; read them (\`rebench runs show ID --events\`, the viewer) or leave them out with --exclude-flagged.`,
    );
  }
  return notes;
}

/** A note for every environment whose runs mix variants (their normalized scores are not comparable). */
export function mixedVariantNotes(runs: readonly AnalysisRun[]): string[] {
  const variants = new Map<string, Set<string>>();
  for (const r of runs) {
    if (!variants.has(r.environment)) variants.set(r.environment, new Set());
    variants.get(r.environment)!.add(r.variant ?? "unknown");
  }
  return [...variants]
    .filter(([, set]) => set.size > 1)
    .map(([environment, set]) => `Warning: ${environment} mixes variants ${[...set].join(", ")}; their scores are pooled.`);
}
