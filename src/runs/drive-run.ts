/**
 * @module
 * Drive one agent run to its end from whatever state its log is in: start it (queued, or an interrupted
 * start-up), or reconcile it after an orchestrator crash (running, paused, scoring), then hand the tool
 * API to the run's scaffold until the run ends. An agent that returns without submitting is scored as if
 * it had submitted; an agent or infrastructure failure fails the run, its score log kept. A run this process
 * cannot drive (its environment, sandbox backend or scaffold missing here) is left untouched: that throws.
 */
import { type Agent, isTerminal, type RunSummary } from "../core/index.js";
import { releaseRunGpus } from "../sandbox/gpu-leases.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import type { RunStore } from "../store/store.js";
import { type Clock, systemClock } from "./clock.js";
import { destroyRunSandbox } from "./destroy-run-sandbox.js";
import type { Allocation } from "./materialize.js";
import { claimRun } from "./ownership.js";
import { bookDowntime, recoverRun } from "./recover-run.js";
import { runEnvironment } from "./run-environment.js";
import { type RunGpuOptions, readoptRunGpus } from "./run-gpus.js";
import { RunLog } from "./run-log.js";
import { RunLeftForResumeError, RunSession, type RunSessionOptions } from "./run-session.js";
import { backendNameOf, sandboxBackend } from "./sandbox-backends.js";
import { agentFor } from "./scaffolds.js";
import { startRun } from "./start-run.js";

export interface DriveOptions extends RunSessionOptions {
  store: RunStore;
  clock?: Clock;
  /** Seconds to wait for the agent to return after its run ended (a limit hit mid-generation). Default 10. */
  agentGraceSeconds?: number;
  /** Build the agent here instead of from the scaffold registry (the human mode's terminal needs the sandbox). */
  makeAgent?: (sandbox: Sandbox) => Agent | Promise<Agent>;
  /** How a starting run leases its GPUs (the host's list, what to print while waiting for one; a scheduler's allocation). */
  gpus?: RunGpuOptions;
  /** A scheduler job's CPUs and memory, which a starting run's sandbox is held to. */
  allocation?: Allocation;
}

export async function driveRun(runId: string, options: DriveOptions): Promise<RunSummary> {
  const clock = options.clock ?? systemClock;
  const log = await RunLog.open(options.store, runId, clock);
  if (isTerminal(log.state)) return log.summary;
  const downSince = log.ledger.lastEventMs;
  // What this process lacks (the environment, the sandbox backend, the scaffold) is not the run's fault:
  // throw before touching the run, so that it stays resumable where they exist.
  const env = runEnvironment(log.summary.spec);
  const backend = sandboxBackend(backendNameOf(log.summary.spec));
  const registered = options.makeAgent ? undefined : await agentFor(log.summary.spec);
  let sandbox: Sandbox | undefined;
  try {
    if ((log.state === "running" || log.state === "paused") && downSince !== null) await bookDowntime(log, downSince);
    await claimRun(options.store, log.id);
    if (log.state === "queued" || log.state === "starting") {
      sandbox = await startRun(log, env, backend, {
        ...(options.gpus ? { gpus: options.gpus } : {}),
        ...(options.allocation ? { allocation: options.allocation } : {}),
      });
    } else {
      const recovered = await recoverRun(log, env, backend);
      if (recovered.kind === "ended") return log.summary;
      sandbox = recovered.sandbox;
      await readoptRunGpus(log, options.gpus?.allocated ? { allocated: options.gpus.allocated } : {});
    }
    const agent = registered ?? (await options.makeAgent!(sandbox));
    const session = new RunSession(log, { sandbox, env }, options);
    try {
      await session.checkLimits();
      if (!isTerminal(log.state)) await runAgent(agent, session, options.agentGraceSeconds ?? 10);
    } finally {
      session.close();
    }
  } catch (error) {
    // Left in `scoring` with its sandbox, for `rebench runs resume` (the note in its log says why).
    if (error instanceof RunLeftForResumeError) return log.summary;
    if (!isTerminal(log.state)) {
      const message = error instanceof Error ? error.message : String(error);
      await log.append({ type: "run_failed", error: message });
      await destroyRunSandbox(log, sandbox);
    }
  } finally {
    // However the run ended here (finished, failed, or failed in recovery with its sandbox gone), its GPUs are free.
    if (isTerminal(log.state)) await releaseRunGpus(log.id).catch(() => undefined);
  }
  return log.summary;
}

async function runAgent(agent: Agent, session: RunSession, graceSeconds: number): Promise<void> {
  let failure: unknown;
  const agentDone = agent.run(session).then(
    () => "returned" as const,
    (error: unknown) => {
      failure = error;
      return "threw" as const;
    },
  );
  const first = await Promise.race([agentDone, session.ended.then(() => "ended" as const)]);
  if (first === "ended") {
    // The run is over (submitted or a limit); give the agent a moment to notice and return.
    await Promise.race([agentDone, new Promise((resolve) => setTimeout(resolve, graceSeconds * 1000).unref())]);
    return;
  }
  if (isTerminal(session.log.state) || session.log.state === "scoring") {
    // The run is ending or has ended: wait for that end, which throws where it failed.
    await (session.ending ?? session.ended);
    return;
  }
  if (first === "threw") throw new Error(`the agent failed: ${failure instanceof Error ? failure.message : String(failure)}`);
  await session.note("the agent stopped without submitting; its solution is scored as submitted");
  await session.end({ reason: "submitted" });
}
