/**
 * @module
 * The end of a run's sandbox, wherever a run ends (finished, failed, cancelled, a start-up that failed): the
 * sandbox is destroyed (its workspace, whatever the agent left there; its protected directory with the
 * hidden data), or, where the run has none in hand, whatever is left of it is found by id and removed (a
 * creation cut off half-way); the run's staging folders and GPU leases go too. It never throws: the run keeps
 * the end state and score it has, and a teardown that leaves something behind is a `note` event in the run's
 * log (`data.teardown`) saying what is left where and how to remove it.
 */
import { rm } from "node:fs/promises";
import { type NewRunEvent, type RunSpec, UnavailableError } from "../core/index.js";
import { releaseRunGpus } from "../sandbox/gpu-leases.js";
import { type Sandbox, type SandboxBackend, SandboxTeardownError } from "../sandbox/sandbox.js";
import { runStagingDirs } from "./materialize.js";
import { backendNameOf, sandboxBackend } from "./sandbox-backends.js";

/** What the teardown did: everything removed, or what is left where and how to remove it. */
export type Teardown = { kind: "removed" } | { kind: "left"; error: string; left: string[]; hint: string };

/** Where the teardown is recorded: a RunLog, or a run's store (`rebench runs cancel`). */
export interface TeardownLog {
  readonly id: string;
  readonly summary: { readonly spec: RunSpec };
  append(event: NewRunEvent): Promise<unknown>;
}

export async function destroyRunSandbox(log: TeardownLog, sandbox: Sandbox | undefined): Promise<Teardown> {
  let teardown: Teardown = { kind: "removed" };
  try {
    if (sandbox) await sandbox.destroy();
    else await backendHere(log.summary.spec)?.remove?.(log.id);
  } catch (error) {
    teardown = leftBehind(error, log);
  }
  const problems: string[] = [];
  for (const dir of await runStagingDirs(log.id)) {
    await rm(dir, { recursive: true, force: true }).catch((error: unknown) => problems.push(`its staging folder ${dir}: ${message(error)}`));
  }
  await releaseRunGpus(log.id).catch((error: unknown) => problems.push(`its GPU leases: ${message(error)}`));
  if (teardown.kind === "left") {
    const { error, left, hint } = teardown;
    await record(log, `the run's sandbox was not removed: ${error}. Left: ${left.join(", ")}. To remove it: ${hint}`, { teardown: { error, left, hint } });
  }
  if (problems.length > 0) await record(log, `after the run, ${problems.join("; ")}`, { teardown: { problems } });
  return teardown;
}

/** The run's backend, or undefined where this process has none of that name (then it made no sandbox of it). */
function backendHere(spec: RunSpec): SandboxBackend | undefined {
  try {
    return sandboxBackend(backendNameOf(spec));
  } catch (error) {
    if (error instanceof UnavailableError) return undefined;
    throw error;
  }
}

function leftBehind(error: unknown, log: TeardownLog): Teardown {
  if (error instanceof SandboxTeardownError) return { kind: "left", error: error.message, left: [...error.left], hint: error.hint ?? "" };
  const backend = backendNameOf(log.summary.spec);
  return {
    kind: "left",
    error: message(error),
    left: [`sandbox ${log.id} (backend ${backend})`],
    hint:
      backend === "local"
        ? `as root: rm -rf --one-file-system $REBENCH_HOME/sandboxes/${log.id} (REBENCH_HOME: ~/.rebench), after its processes are gone`
        : `remove the sandbox ${log.id} of backend ${backend} by hand (the container backend: podman or docker rm -f -v rebench-${log.id})`,
  };
}

/** A note in the run's log; a store that refuses it must not turn the run's end into an error. */
async function record(log: TeardownLog, text: string, data: unknown): Promise<void> {
  await log.append({ type: "note", message: text, data }).catch(() => undefined);
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
