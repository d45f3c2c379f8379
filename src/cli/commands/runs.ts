/**
 * @module
 * `rebench runs list|show|export`: the runs in the store, their state, usage and score logs; export
 * writes them in METR's run-record format (JSON Lines) or as Inspect eval logs (src/web/inspect-export.ts),
 * both of which `rebench report --runs-file` reads back.
 */
import { writeFile } from "node:fs/promises";
import type { Command } from "commander";
import { toMetrRecord } from "../../analysis/metr/to-metr-record.js";
import {
  budgetTokens,
  contentionOf,
  EnvironmentId,
  InvalidInputError,
  normalizationLabel,
  normalizationMissing,
  parseVariant,
  parseWith,
  RUN_STATES,
  RunState,
  type RunSummary,
  runRecord,
  type ScoreLogEntry,
} from "../../core/index.js";
import { orphanedRun, orphanedRuns } from "../../store/orphaned-run.js";
import { storedAnalysisRuns } from "../analysis-input.js";
import { COMMAND_SUMMARIES } from "../command-summaries.js";
import { formatCost, formatDuration, formatNumber, formatTokenKinds } from "../format.js";
import { type Io, printJson } from "../io.js";
import { dbOption, withStore } from "../store-option.js";
import { formatTable } from "../table.js";

/**
 * The Slurm state of the runs' jobs (runs of the Slurm executor), by job id, and why there is none where
 * Slurm's commands do not answer here (not a host of the cluster, no SLURM_CONF).
 */
async function jobStatesOf(runs: readonly RunSummary[]): Promise<{ states: Map<string, string>; unknown?: string }> {
  const ids = runs.flatMap((r) => (r.job ? [r.job.id] : []));
  if (ids.length === 0) return { states: new Map() };
  try {
    const { jobStates } = await import("../../slurm/index.js");
    return { states: new Map([...(await jobStates(ids))].map(([id, info]) => [id, info.state])) };
  } catch (error) {
    const why = error instanceof Error ? error.message.split("\n")[0] : String(error);
    return { states: new Map(), unknown: `Slurm's commands do not answer here (${why})` };
  }
}

/** The JOB column's text for a run: its Slurm job id and state, `unknown` where Slurm cannot be asked here. */
function jobCell(run: RunSummary, jobs: { states: Map<string, string> }): string {
  if (!run.job) return "-";
  return `${run.job.id} ${jobs.states.get(run.job.id) ?? "unknown"}`;
}

/** The score shown for a run: final when finished, else the aggregate so far. */
function rawOf(run: RunSummary): number | null {
  return run.finalRaw ?? run.currentRaw;
}

export function registerRuns(program: Command, io: Io): void {
  const runs = program.command("runs").description(COMMAND_SUMMARIES.runs);

  dbOption(
    runs
      .command("list")
      .description("list runs, oldest first")
      .option("--environment <name>", "only this environment")
      .option("--variant <variant>", "only this variant")
      .option("--participant <alias>", "only this participant (model alias or human)")
      .option("--state <states>", `only these states, comma-separated (${RUN_STATES.join(", ")})`)
      .option("--limit <n>", "only the newest n runs", (v) => Number.parseInt(v, 10))
      .option("--json", "print JSON")
      .addHelpText("after", "\nExample:\n  rebench runs list --environment optimize_kernel --state finished --json"),
  ).action(async (options: { db?: string; environment?: string; variant?: string; participant?: string; state?: string; limit?: number; json?: boolean }) => {
    const filter = runFilterOf(options);
    const { list, orphaned } = await withStore(
      options.db,
      async (store) => {
        const list = await store.listRuns(filter);
        return { list, orphaned: await orphanedRuns(store, list) };
      },
      { readOnly: true },
    );
    const jobs = await jobStatesOf(list);
    if (options.json)
      return printJson(
        io,
        list.map((r) => runRecord(r, { jobState: r.job ? (jobs.states.get(r.job.id) ?? null) : null, orphaned: orphaned.get(r.id) ?? null })),
      );
    if (list.length === 0) return io.out("no runs\n");
    const jobColumn = list.some((r) => r.job) ? [{ header: "JOB", value: (r: RunSummary) => jobCell(r, jobs) }] : [];
    io.out(
      formatTable(list, [
        { header: "RUN", value: (r) => r.id },
        { header: "ENVIRONMENT", value: (r) => `${r.spec.environment}/${r.spec.variant}` },
        { header: "PARTICIPANT", value: (r) => r.spec.participant.alias },
        { header: "STATE", value: (r) => (orphaned.has(r.id) ? `orphaned (${r.state})` : r.state) },
        ...jobColumn,
        { header: "WORKING", value: (r) => formatDuration(r.usage.workingSeconds), align: "right" },
        { header: "SCORES", value: (r) => `${r.validScores}/${r.scoreCalls}`, align: "right" },
        { header: "RAW", value: (r) => formatNumber(rawOf(r)), align: "right" },
        { header: "NORMALIZED", value: (r) => formatNumber(r.normalized), align: "right" },
        { header: "NORMALIZED BY", value: (r) => (r.spec.normalization ? normalizationLabel(r.spec.normalization) : "-") },
        { header: "CREATED", value: (r) => r.createdAt },
      ]),
    );
    if (jobs.unknown) {
      io.out(
        `JOB: the Slurm jobs' states are unknown: ${jobs.unknown}; on a host of the cluster (SLURM_CONF naming its slurm.conf where it is not in /etc/slurm) \`rebench runs list\` shows them\n`,
      );
    }
    if (orphaned.size > 0) {
      const db = options.db ? ` --db ${options.db}` : "";
      const [first] = orphaned.keys();
      io.out(
        orphaned.size === 1
          ? `\norphaned: run ${first}'s orchestrator is gone; \`rebench runs resume${db} --run ${first}\` continues it\n`
          : `\norphaned: ${orphaned.size} runs whose orchestrator is gone; \`rebench runs resume${db}\` continues them (\`--run ID\` for one)\n`,
      );
    }
  });

  dbOption(
    runs
      .command("show")
      .description("show one run: summary, usage and score log")
      .argument("<id>", "run id")
      .option("--events", "also print the whole event log")
      .option("--json", "print JSON")
      .addHelpText("after", "\nExample:\n  rebench runs show r0mfx3k2a9c1b7e --events"),
  ).action(async (id: string, options: { db?: string; events?: boolean; json?: boolean }) => {
    await withStore(
      options.db,
      async (store) => {
        const run = await store.getRun(id);
        const scoreLog = await store.scoreLog(run.id);
        const events = options.events ? await store.events(run.id) : undefined;
        const provenance = run.spec.provenance ?? null;
        const jobs = await jobStatesOf([run]);
        const jobState = run.job ? jobs.states.get(run.job.id) : undefined;
        const orphaned = await orphanedRun(store, run);
        if (options.json) {
          const record = runRecord(run, { jobState: jobState ?? null, orphaned: orphaned ?? null });
          return printJson(io, { run: record, spec: run.spec, provenance, scoreLog, ...(events ? { events } : {}) });
        }
        const { spec, usage } = run;
        io.out(
          [
            `run ${run.id}: ${spec.environment}/${spec.variant} (${spec.task}) by ${spec.participant.alias}` +
              (spec.participant.scaffold ? ` [${spec.participant.scaffold}]` : ""),
            `state:       ${run.state}${run.stopReason ? ` (${run.stopReason})` : ""}${run.error ? `: ${run.error}` : ""}${orphaned ? `; orphaned: ${orphaned}` : ""}`,
            `created:     ${run.createdAt}; started ${run.startedAt ?? "-"}; finished ${run.finishedAt ?? "-"}`,
            ...(run.job
              ? [
                  `job:         Slurm job ${run.job.id} ${jobState ?? `state unknown: ${jobs.unknown}`}, submitted ${run.job.submittedAt}${run.job.node ? `, started on ${run.job.node} ${run.job.startedAt}` : ", not started"}`,
                ]
              : []),
            `time:        working ${formatDuration(usage.workingSeconds)}, paused ${formatDuration(usage.pausedSeconds)}, wall ${formatDuration(usage.wallSeconds)}`,
            `tokens:      ${formatTokenKinds(usage)}; --tokens counts ${budgetTokens(usage).toLocaleString("en-US")} (every input kind + output)`,
            `cost:        ${formatCost(usage.costUsd, usage.costByKind)}`,
            `actions:     ${usage.actions}`,
            `score:       raw ${formatNumber(rawOf(run))}${run.finalRaw === null ? " (so far)" : ""}, ${normalizedText(run)}`,
            ...(spec.machineClass ? [`machine:     class ${spec.machineClass} (the calibration it is normalized with is this class's)`] : []),
            provenance
              ? `provenance:  rebench ${provenance.rebenchVersion} (${provenance.rebenchCommit ?? "no commit"}), environment ${provenance.environmentDigest.slice(0, 19)}, events v${provenance.eventSchemaVersion}`
              : "provenance:  not recorded (a run of an older rebench)",
            "",
            scoreLog.length === 0 ? "score log: empty\n" : `score log:\n${formatScoreLog(scoreLog)}`,
          ].join("\n"),
        );
        if (events) {
          io.out("\nevents:\n");
          for (const { seq, event } of events) io.out(`${String(seq).padStart(5)}  ${event.ts}  ${event.type}  ${summarizeEvent(event)}\n`);
        }
      },
      { readOnly: true },
    );
  });

  dbOption(
    runs
      .command("export")
      .description("write runs as METR-format JSON Lines, or as Inspect eval logs (both read back by `rebench report --runs-file`)")
      .option("--format <format>", "output format: metr (JSON Lines of finished runs) or inspect (Inspect eval logs)", "metr")
      .option("--out <path>", "metr: write to FILE instead of stdout; inspect: the folder for the logs (default ./inspect-logs)")
      .option("--json-log", "inspect: write Inspect's single-file .json logs instead of .eval")
      .option(
        "--include-hidden",
        "inspect: keep the score values of hidden-score runs, graders' details and the reference's code (left out by default, as in the viewer's export)",
      )
      .option("--environment <name>", "only this environment")
      .option("--variant <variant>", "only this variant")
      .option("--participant <alias>", "only this participant (model alias or human)")
      .option("--state <states>", `only these states, comma-separated (${RUN_STATES.join(", ")})`)
      .option("--limit <n>", "only the newest n runs", (v) => Number.parseInt(v, 10))
      .addHelpText(
        "after",
        "\nExamples:\n  rebench runs export --format metr --out runs.jsonl && rebench report --runs-file runs.jsonl\n  rebench runs export --format inspect --out logs/ --state finished && rebench report --runs-file logs/ --format inspect",
      ),
  ).action(
    async (options: {
      db?: string;
      format: string;
      out?: string;
      jsonLog?: boolean;
      includeHidden?: boolean;
      environment?: string;
      variant?: string;
      participant?: string;
      state?: string;
      limit?: number;
    }) => {
      if (options.format !== "metr" && options.format !== "inspect") {
        throw new InvalidInputError(`unknown export format "${options.format}"`, {
          hint: "use --format metr (JSON Lines) or --format inspect (Inspect eval logs)",
        });
      }
      const filter = runFilterOf(options);
      if (options.format === "inspect") {
        const dir = options.out ?? "inspect-logs";
        const { exportInspectLogs } = await import("../../web/inspect-export.js");
        const files = await withStore(
          options.db,
          (store) => exportInspectLogs(store, dir, { filter, includeHidden: options.includeHidden ?? false, json: options.jsonLog ?? false }),
          { readOnly: true },
        );
        const runCount = files.reduce((n, f) => n + f.runs, 0);
        for (const f of files) io.out(`${f.file}\t${f.runs} run(s)\t${formatNumber(f.bytes / 1e6)} MB\n`);
        io.err(`wrote ${files.length} Inspect log(s) of ${runCount} run(s) to ${dir}${options.includeHidden ? " (hidden scores included)" : ""}\n`);
        return;
      }
      if (options.jsonLog || options.includeHidden) {
        throw new InvalidInputError("--json-log and --include-hidden are options of --format inspect", { hint: "add --format inspect, or leave them out" });
      }
      const { pairs, skipped } = await withStore(options.db, (store) => storedAnalysisRuns(store, filter), { readOnly: true });
      const text = pairs.map(({ run, summary }) => `${JSON.stringify(toMetrRecord(run, summary))}\n`).join("");
      for (const [reason, n] of Object.entries(skipped)) io.err(`left out ${n} run(s): ${reason}\n`);
      if (!options.out) return io.out(text);
      await writeFile(options.out, text);
      io.err(`wrote ${pairs.length} run(s) to ${options.out}\n`);
    },
  );
}

function formatScoreLog(log: readonly ScoreLogEntry[]): string {
  return formatTable(log, [
    { header: "TIME", value: (e) => e.timestamp },
    { header: "ELAPSED", value: (e) => formatDuration(e.elapsedSeconds), align: "right" },
    {
      header: "OUTCOME",
      value: (e) => {
        const o = e.outcome;
        switch (o.kind) {
          case "scored":
            return formatNumber(o.value);
          case "invalid":
            return `invalid: ${o.reason}`;
          case "timedOut":
            return `timed out after ${formatDuration(o.afterSeconds)}`;
          case "error":
            return `error: ${o.message}`;
        }
      },
    },
    {
      // CPUs other work used while the grader ran (details.contention); "contended" where that flagged the entry.
      header: "OTHER CPUS",
      value: (e) => {
        const c = contentionOf(e);
        if (c === undefined || c.otherCpus === null) return "-";
        return `${c.otherCpus.toFixed(2)}/${c.cpus}${c.flagged ? " contended" : ""}`;
      },
      align: "right",
    },
    { header: "MESSAGE", value: (e) => JSON.stringify(e.message) },
  ]);
}

function summarizeEvent(event: object): string {
  const { type: _type, ts: _ts, ...rest } = event as Record<string, unknown>;
  const text = JSON.stringify(rest);
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

/** "normalized 0.374 by the calibration of AMD EPYC, 2 cores, 2026-11-29, N=5", or no normalized score and why. */
function normalizedText(run: RunSummary): string {
  const constants = run.spec.normalization;
  if (constants === undefined) return `no normalized score: ${normalizationMissing(run.spec)}`;
  const by = constants.entry
    ? `the calibration of ${normalizationLabel(constants)}`
    : `${constants.source} constants (start ${formatNumber(constants.start)}, reference ${formatNumber(constants.reference)})`;
  return `normalized ${formatNumber(run.normalized)} by ${by}`;
}

/** The filters of `runs list` (and of `runs export`) as a store's RunFilter, each option checked. */
function runFilterOf(options: { environment?: string; variant?: string; participant?: string; state?: string; limit?: number }) {
  return {
    environment: options.environment ? parseWith(EnvironmentId, options.environment, "--environment") : undefined,
    variant: options.variant ? parseVariant(options.variant) : undefined,
    participant: options.participant,
    states: options.state?.split(",").map((s) => parseWith(RunState, s.trim(), "--state")),
    limit: options.limit,
  };
}
