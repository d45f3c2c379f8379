/**
 * @module
 * Slurm through its own commands (sbatch, scontrol, scancel, squeue, sacct, sinfo), as a user's shell
 * calls them: the cluster is whatever `SLURM_CONF` (or the machine's /etc/slurm) names. A job's state comes
 * from squeue while Slurm still holds the job, then from sacct (the accounting database, or with accounting
 * off, the job completion file: `sacct --completion`); a job neither knows is `UNKNOWN`. An element of a job
 * array is named `ARRAYJOB_INDEX` (`1234_5`): squeue (with `-r`, one element a row), scancel, scontrol and
 * sacct take that; the job completion file does not (sacct --completion finds elements under their own job
 * ids), so without accounting an element that slurmctld no longer holds (MinJobAge after its end) is `UNKNOWN`.
 */
import { execFile } from "node:child_process";
import { InfrastructureError, UnavailableError } from "../core/index.js";

/** Slurm's job states (squeue's and sacct's long names); `UNKNOWN`: neither squeue nor sacct knows the job. */
export type JobState = string;

/** States in which the job may still run (or run again): the run's driver is alive or will be. */
const ACTIVE: ReadonlySet<string> = new Set([
  "PENDING",
  "CONFIGURING",
  "RUNNING",
  "COMPLETING",
  "SUSPENDED",
  "REQUEUED",
  "REQUEUE_FED",
  "REQUEUE_HOLD",
  "RESIZING",
  "SIGNALING",
  "STAGE_OUT",
  "STOPPED",
]);

export function jobActive(state: JobState): boolean {
  return ACTIVE.has(state);
}

export interface JobInfo {
  id: string;
  state: JobState;
  /** The node(s) it ran on, when Slurm says. */
  nodes: string | null;
  /** Why a pending job waits (squeue's reason: `Resources`, `JobHeldUser`, ...), when Slurm says. */
  reason: string | null;
}

export interface SubmitRequest {
  /** sbatch options, each one argument. */
  args: readonly string[];
  /** The batch script, passed on stdin. */
  script: string;
  /** The job's environment at submission (sbatch exports it to the job: --export=ALL is Slurm's default). */
  env: NodeJS.ProcessEnv;
}

interface Output {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: readonly string[], options: { input?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Output> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      command,
      [...args],
      { env: options.env ?? process.env, timeout: options.timeoutMs ?? 60_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error && (error as NodeJS.ErrnoException).code === "ENOENT") {
          reject(
            new UnavailableError(`Slurm's ${command} is not installed or not on PATH`, {
              hint: "run rebench with --executor slurm on a host of the cluster (a login node), or install Slurm's client commands (Debian: slurm-client)",
            }),
          );
          return;
        }
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

function failed(what: string, out: Output): InfrastructureError {
  const detail = (out.stderr || out.stdout).trim().split("\n").slice(-3).join("; ");
  return new InfrastructureError(`${what} failed (exit ${out.code}): ${detail || "no output"}`, {
    hint: "check the cluster with `sinfo` and `squeue`; SLURM_CONF names the cluster's slurm.conf when it is not in /etc/slurm",
  });
}

/** Submit a batch job (held when `args` has `--hold`); returns its job id (a job array's: its elements are `ID_INDEX`). */
export async function sbatch(request: SubmitRequest): Promise<string> {
  const out = await run("sbatch", ["--parsable", ...request.args], { input: request.script, env: request.env });
  if (out.code !== 0) throw failed("sbatch", out);
  const id = out.stdout.trim().split(";")[0] ?? "";
  if (!/^\d+(_\d+)?$/.test(id)) throw failed("sbatch (no job id in its output)", out);
  return id;
}

/** Let a held job be scheduled (a job array's id: all its elements; `ID_INDEX`: that element). */
export async function releaseJob(jobId: string): Promise<void> {
  const out = await run("scontrol", ["release", jobId]);
  if (out.code !== 0) throw failed(`scontrol release ${jobId}`, out);
}

/** Cancel a job (SIGTERM to its processes, SIGKILL after the cluster's KillWait). A job already gone is no error. */
export async function cancelJob(jobId: string): Promise<void> {
  const out = await run("scancel", [jobId]);
  if (out.code !== 0 && !/Invalid job id|already completing or completed/i.test(out.stderr)) throw failed(`scancel ${jobId}`, out);
}

/** The states of these jobs, by id (every id present: `UNKNOWN` for a job Slurm no longer knows). */
export async function jobStates(ids: readonly string[]): Promise<Map<string, JobInfo>> {
  const found = new Map<string, JobInfo>();
  const unique = [...new Set(ids)];
  if (unique.length === 0) return found;
  const queued = await run("squeue", ["-h", "-r", "-t", "all", "-j", unique.join(","), "-o", "%i|%T|%N|%r"]);
  if (queued.code !== 0 && !/Invalid job id/i.test(queued.stderr)) throw failed("squeue", queued);
  for (const info of parseRows(queued.stdout)) found.set(info.id, info);
  const missing = unique.filter((id) => !found.has(id));
  if (missing.length > 0) {
    const columns = ["-X", "-n", "-P", "-j", missing.join(","), "-o", "JobID,State,NodeList"];
    let accounted = await run("sacct", columns);
    if (accounted.code !== 0 && /accounting storage is disabled/i.test(accounted.stderr + accounted.stdout)) {
      accounted = await run("sacct", ["--completion", ...columns.filter((c) => c !== "-X")]);
    }
    if (accounted.code === 0) {
      // Several rows for a job (requeued, or job steps): the last one is its latest state.
      for (const info of parseRows(accounted.stdout)) if (missing.includes(info.id)) found.set(info.id, info);
    }
  }
  for (const id of unique) if (!found.has(id)) found.set(id, { id, state: "UNKNOWN", nodes: null, reason: null });
  return found;
}

function parseRows(text: string): JobInfo[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [id = "", state = "", nodes = "", reason = ""] = line.split("|");
      // sacct writes "CANCELLED by 0"; squeue the bare state.
      return {
        id: id.trim(),
        state: state.trim().split(/\s+/)[0] ?? "UNKNOWN",
        nodes: nodes.trim() && nodes.trim() !== "None assigned" ? nodes.trim() : null,
        reason: reason.trim() && reason.trim() !== "None" ? reason.trim() : null,
      };
    });
}

/** Whether Slurm would start a job on `node` now or later (it is up: idle, mixed or allocated), as sinfo says. */
export async function nodeUsable(node: string): Promise<boolean> {
  const out = await run("sinfo", ["-h", "-N", "-n", node, "-o", "%T"]);
  if (out.code !== 0) return false;
  return out.stdout.split("\n").some((state) => /^(idle|mix|mixed|alloc|allocated|completing)\b/.test(state.trim()));
}
