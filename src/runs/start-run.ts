/**
 * @module
 * Start-up of a run: queued → starting → running. Creates the sandbox, runs the variant's set-up, logs the
 * starting score where the environment does, and starts the run's clock. A start-up that was interrupted
 * (the orchestrator died in `starting`) is simply done again: nothing the agent did can be lost yet. The
 * GPUs the sandbox got are logged in a note (`data.gpus`); a start-up that fails destroys its sandbox.
 */
import type { Sandbox, SandboxBackend } from "../sandbox/sandbox.js";
import { destroyRunSandbox } from "./destroy-run-sandbox.js";
import { createRunSandbox, type MaterializeOptions } from "./materialize.js";
import type { RunEnvironment } from "./run-environment.js";
import { noteLeasedGpus } from "./run-gpus.js";
import type { RunLog } from "./run-log.js";
import { takeScore } from "./take-score.js";

export async function startRun(log: RunLog, env: RunEnvironment, backend: SandboxBackend, options: MaterializeOptions = {}): Promise<Sandbox> {
  if (log.state === "queued") {
    await log.transition("starting");
  } else {
    await destroyRunSandbox(log, await backend.reattach(log.id));
    await log.append({ type: "note", message: "the start-up was interrupted; starting again with a fresh sandbox" });
  }
  const sandbox = await createRunSandbox(log.id, env, backend, {
    onGpus: noteLeasedGpus(log, options.gpus?.runsPerGpu),
    ...options,
  });
  try {
    if (env.manifest.scoring.logsStartingScore && !(await hasStartingScore(log))) {
      await takeScore(log, { sandbox, env }, "start", { pause: false });
    }
    await log.transition("running");
  } catch (error) {
    await destroyRunSandbox(log, sandbox);
    throw error;
  }
  return sandbox;
}

async function hasStartingScore(log: RunLog): Promise<boolean> {
  const events = await log.store.events(log.id, { types: ["score_logged"] });
  return events.some(({ event }) => event.type === "score_logged" && event.trigger === "start");
}
