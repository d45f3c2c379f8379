/**
 * @module
 * Materialize an environment variant as a run's sandbox: the workspace (the variant's folder, or a human's
 * directory), the protected directory (the variant's `grader/` and `reference/`, or the folders it names),
 * the assets it names under `assets/` there (src/runs/stage-assets.ts), what the variant's `prepare` hook
 * built on the host (more workspace and protected files, mounted tools), the manifest's resources as limits
 * and GPUs (leased host-wide: src/runs/run-gpus.ts), then the variant's set-up command as root. A failed
 * set-up destroys the sandbox and gives its GPUs back.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { cp, mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { corpusSourcePaths } from "../assets/hidden-sources.js";
import { derivedSecret, InfrastructureError, InvalidInputError, shellJoin } from "../core/index.js";
import type { VariantPreparation } from "../environments/contract.js";
import type { Sandbox, SandboxBackend } from "../sandbox/sandbox.js";
import type { RunEnvironment } from "./run-environment.js";
import { leaseRunGpus, type RunGpuOptions } from "./run-gpus.js";
import { stageAssets } from "./stage-assets.js";

/** Processes and threads the agent user may have at once, for every variant. */
export const SANDBOX_PROCESS_LIMIT = 1024;
const DEFAULT_PROTECTED = ["grader", "reference"] as const;
const STAGING_PREFIX = "rebench-";

export interface MaterializeOptions {
  /** Host folder to use as the workspace instead of the variant's (`rebench start --dir`). */
  workspaceFrom?: string;
  /** How GPUs are leased (the host's list, what to print while waiting); see RunGpuOptions. */
  gpus?: RunGpuOptions;
  /** Called with the leased GPU indices once the sandbox exists (the run logs them). */
  onGpus?: (gpus: readonly number[]) => Promise<void>;
  /** What a scheduler gave this process's job: the sandbox is held to it (CPUs as a quota, memory at most this). */
  allocation?: Allocation;
}

/** A scheduler job's CPUs and memory on this node (null: the scheduler did not say). */
export interface Allocation {
  cpus: number | null;
  memoryMb: number | null;
}

export async function createRunSandbox(id: string, env: RunEnvironment, backend: SandboxBackend, options: MaterializeOptions = {}): Promise<Sandbox> {
  const { family, implementation, manifest } = env;
  const prepared = await prepareVariant(env);
  // A `rebench start` run (a human's directory) outlives this process: its lease lives with its sandbox.
  const lease = await leaseRunGpus(id, manifest.resources.gpu?.countRange[0] ?? 0, options.gpus, options.workspaceFrom ? backend.name : undefined);
  // Named after the run, so that the run's teardown finds them after a crash here (runStagingDirs).
  const staging = await mkdtemp(path.join(os.tmpdir(), `${STAGING_PREFIX}protected-${id}-`));
  const workspaceStaging = await mkdtemp(path.join(os.tmpdir(), `${STAGING_PREFIX}workspace-${id}-`));
  let workspaceFrom = options.workspaceFrom ?? path.join(family.dir, implementation.workspace);
  let sandbox: Sandbox;
  try {
    for (const folder of implementation.protected ?? DEFAULT_PROTECTED) {
      const from = path.join(family.dir, folder);
      if (existsSync(from)) await cp(from, path.join(staging, folder), { recursive: true });
      else if (implementation.protected) {
        throw new InvalidInputError(`${family.name}: the protected folder "${folder}" does not exist in ${family.dir}`);
      }
    }
    await stageAssets(implementation.assets ?? [], staging);
    writeEnvironmentSecret(staging, family.name, env.definition.variant);
    if (prepared.protected) await cp(prepared.protected, staging, { recursive: true });
    if (prepared.workspace && !options.workspaceFrom) {
      // A human's directory already holds the prepared files (`rebench start` copied them there).
      await cp(workspaceFrom, workspaceStaging, { recursive: true });
      await cp(prepared.workspace, workspaceStaging, { recursive: true });
      workspaceFrom = workspaceStaging;
    }
    const isolation = implementation.isolation ?? {};
    sandbox = await backend.create({
      id,
      workspaceFrom,
      protectedFrom: staging,
      limits: {
        memoryMb: Math.min(Math.round(manifest.resources.memoryGb * 1024), options.allocation?.memoryMb ?? Infinity),
        processes: SANDBOX_PROCESS_LIMIT,
        ...(isolation.agentCpus === undefined ? {} : { agentCpus: isolation.agentCpus }),
        ...(options.allocation?.cpus ? { cpus: options.allocation.cpus } : {}),
      },
      gpus: lease.gpus,
      ...(isolation.agentGpus === false ? { agentGpus: false } : {}),
      ...(isolation.jail ? { jailAgentCalls: true } : {}),
      hide: corpusSourcePaths(),
      ...(prepared.mounts ? { mounts: prepared.mounts } : {}),
      ...(prepared.path ? { path: prepared.path } : {}),
      ...(prepared.env ? { env: prepared.env } : {}),
    });
  } catch (error) {
    await lease.release();
    throw error;
  } finally {
    await rm(staging, { recursive: true, force: true });
    await rm(workspaceStaging, { recursive: true, force: true });
  }
  try {
    if (lease.gpus.length > 0) await options.onGpus?.(lease.gpus);
    if (implementation.setup) {
      const setup = await sandbox.exec(shellJoin(implementation.setup.command), {
        user: "root",
        cwd: sandbox.paths.protected,
        timeoutMs: manifest.timeouts.startSeconds * 1000,
      });
      if (setup.exitCode !== 0) {
        const why = setup.timedOut ? `timed out after ${manifest.timeouts.startSeconds} s` : `exited with code ${setup.exitCode}`;
        throw new InfrastructureError(`the set-up of ${family.name} ${why}: ${setup.stderr.slice(-2000)}`);
      }
    }
  } catch (error) {
    // The caller's teardown (destroyRunSandbox) finds what this leaves, records it and gives the GPUs back.
    await sandbox.destroy().catch(() => undefined);
    await lease.release().catch(() => undefined);
    throw error;
  }
  return sandbox;
}

/**
 * The staging folders (a copy of the protected directory, of the workspace) that run `id`'s sandbox creation
 * left in the system's temporary folder: none, unless the process died while it created the sandbox.
 */
export async function runStagingDirs(id: string): Promise<string[]> {
  const names = await readdir(os.tmpdir()).catch(() => []);
  return names.filter((name) => name.startsWith(STAGING_PREFIX) && name.includes(`-${id}-`)).map((name) => path.join(os.tmpdir(), name));
}

/**
 * `$REBENCH_PROTECTED/.rebench/secret.json`: the run's environment secret, derived from the installation key
 * (src/core/installation-key.ts) and the environment variant; graders derive hidden seeds from it.
 */
function writeEnvironmentSecret(protectedStaging: string, environment: string, variant: string): void {
  const dir = path.join(protectedStaging, ".rebench");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const secret = derivedSecret(`environment/${environment}/${variant}`);
  writeFileSync(path.join(dir, "secret.json"), `${JSON.stringify({ environment, variant, secret })}\n`, { mode: 0o600 });
}

/** What the variant's `prepare` hook gives (nothing when it has none); its failure is broken infrastructure. */
export async function prepareVariant(env: RunEnvironment): Promise<VariantPreparation> {
  if (!env.implementation.prepare) return {};
  try {
    return await env.implementation.prepare();
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    throw new InfrastructureError(`${env.family.name}/${env.definition.variant}: preparing the variant failed: ${(error as Error).message}`);
  }
}
