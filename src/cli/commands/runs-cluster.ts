/**
 * @module
 * `rebench runs drive ID` (what each run's Slurm job runs: it drives the run on the job's node, held to
 * the job's allocation) and `rebench runs cancel ID` (cancel the run's job, end the run).
 */
import type { Command } from "commander";
import { InfrastructureError, type NewRunEvent } from "../../core/index.js";
import { cancelRun } from "../../runs/cancel-run.js";
import { driveInSlurmJob, mayBeTheStop, requireAllocation, stopInSlurmJob } from "../../runs/slurm-job.js";
import { jobStates, slurmAllocation } from "../../slurm/index.js";
import { openStore, type RunStore } from "../../store/index.js";
import { registerBuiltins } from "../builtins.js";
import { formatNumber } from "../format.js";
import { type Io, printJson } from "../io.js";
import { dbOption, withStore } from "../store-option.js";
import { RunsFailedError } from "./run.js";

/**
 * `store`, refusing writes once `stopped()` says so (reads go on). An event that may be the job's stop seen
 * from inside (a command or grader killed, a failed run: Slurm signals the sandbox's processes along with this
 * one, and their end can reach the run before this process's own SIGTERM handler runs) is written only after
 * `stillRunning()` has confirmed that the job is not being stopped.
 */
function writesUntil(store: RunStore, stopped: () => boolean, stillRunning: () => Promise<boolean>): RunStore {
  const refuse = () => Promise.reject(new InfrastructureError("this Slurm job is being stopped: it writes nothing more to the run"));
  const guarded = async <T>(events: readonly NewRunEvent[], write: () => Promise<T>): Promise<T> => {
    if (stopped()) return refuse();
    if (events.some(mayBeTheStop) && !(await stillRunning())) return refuse();
    return stopped() ? refuse() : write();
  };
  return {
    location: store.location,
    createRun: (spec, options) => (stopped() ? refuse() : store.createRun(spec, options)),
    append: (runId, event) => guarded([event], () => store.append(runId, event)),
    appendMany: (runId, events) => guarded(events, () => store.appendMany(runId, events)),
    importEvents: (runId, events) =>
      guarded(
        events.map((e) => e.event),
        () => store.importEvents(runId, events),
      ),
    getRun: (runId) => store.getRun(runId),
    findRun: (runId) => store.findRun(runId),
    listRuns: (filter) => store.listRuns(filter),
    events: (runId, query) => store.events(runId, query),
    pageRuns: (query) => store.pageRuns(query),
    runFacets: () => store.runFacets(),
    searchEvents: (runId, text, options) => store.searchEvents(runId, text, options),
    eventTypes: (runId) => store.eventTypes(runId),
    scoreLog: (runId) => store.scoreLog(runId),
    scoreLogs: (runIds) => store.scoreLogs(runIds),
    close: () => store.close(),
  };
}

export function registerRunsCluster(program: Command, io: Io): void {
  const runs = program.commands.find((c) => c.name() === "runs");
  if (!runs) throw new Error("register `runs` before `runs drive` and `runs cancel`");

  dbOption(
    runs
      .command("drive")
      .description("drive one run to its end in this process, held to this Slurm job's allocation (what each job of --executor slurm runs)")
      .argument("<id>", "run id")
      .addHelpText("after", "\nThe jobs that `rebench run ... --executor slurm` submits run it; the store comes from $REBENCH_DB."),
  ).action(async (id: string, options: { db?: string }) => {
    registerBuiltins();
    const allocation = requireAllocation(slurmAllocation());
    let stopping = false;
    // Slurm marks the job CANCELLED, PREEMPTED, ... before it signals the job's processes: a job whose state is
    // not RUNNING is being stopped. Without an answer from Slurm the write goes ahead, as it would have.
    const stillRunning = async (): Promise<boolean> => {
      const state = await jobStates([allocation.jobId]).then(
        (states) => states.get(allocation.jobId)?.state,
        () => "RUNNING",
      );
      if (state === "RUNNING") return true;
      onTerm();
      return false;
    };
    const store = writesUntil(await openStore(options.db, { mustExist: true }), () => stopping, stillRunning);
    // Slurm stops a job with SIGTERM (scancel, preemption, a node going down): leave the run as its log
    // has it for `rebench runs resume`, removing its sandbox only when `rebench runs cancel` asked for that.
    // From the signal on this process writes nothing: the run must not fail for the sandbox Slurm stops with it.
    function onTerm(): void {
      if (stopping) return;
      stopping = true;
      io.err(`rebench runs drive: Slurm job ${allocation.jobId} is being stopped\n`);
      void (async () => {
        let removed = false;
        try {
          removed = await stopInSlurmJob(store, id);
        } finally {
          await store.close().catch(() => undefined);
          io.err(removed ? "the run was cancelled: its sandbox is removed\n" : "the run stays as its log has it: `rebench runs resume` continues it\n");
          process.removeListener("SIGTERM", onTerm);
          process.kill(process.pid, "SIGTERM");
        }
      })();
    }
    process.on("SIGTERM", onTerm);
    try {
      const run = await driveInSlurmJob(id, allocation, { store });
      io.out(`run ${run.id} ${run.state}${run.error ? `: ${run.error}` : `, raw ${formatNumber(run.finalRaw)}`}\n`);
      if (run.state === "failed") throw new RunsFailedError(`run ${run.id} failed: ${run.error ?? "unknown error"}`);
    } finally {
      if (!stopping) {
        process.removeListener("SIGTERM", onTerm);
        await store.close();
      }
    }
  });

  dbOption(
    runs
      .command("cancel")
      .description("end a run for good: cancel its Slurm job (its sandbox is removed) and mark it failed, its score log kept")
      .argument("<id>", "run id")
      .option("--wait <seconds>", "how long to wait for the job to stop after scancel (default 120)", (v) => Number.parseInt(v, 10))
      .option("--json", "print JSON")
      .addHelpText("after", "\nExample:\n  rebench runs cancel r0mfx3k2a9c1b7e --db postgres://rebench@db.example/rebench"),
  ).action(async (id: string, options: { db?: string; wait?: number; json?: boolean }) => {
    registerBuiltins();
    const result = await withStore(options.db, (store) => cancelRun(store, id, options.wait === undefined ? {} : { waitMs: options.wait * 1000 }), {
      mustExist: true,
    });
    if (options.json) return printJson(io, result);
    io.out(`run ${result.run.id} ${result.run.state}: ${result.run.error ?? ""}${result.job ? ` (Slurm job ${result.job.id}: ${result.job.state})` : ""}\n`);
    for (const note of result.notes) io.out(`note: ${note}\n`);
  });
}
