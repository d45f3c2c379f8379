/**
 * @module
 * A real Slurm cluster of one node for the tests (scripts/slurm-one-node: munged, slurmctld and slurmd as
 * root, in a temporary folder, on free ports), started on first use and stopped after the test file. Its
 * SLURM_CONF is set in this process's environment, so the commands the tests run and the processes they
 * spawn use it. Without root or without slurm-wlm and munge the tests skip, except on a machine that
 * scripts/bootstrap set up as root, where they must work (skipOrFail).
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll } from "vitest";
import { REPO_ROOT } from "./cli.js";
import { skipOrFail } from "./required.js";

const run = promisify(execFile);

function missing(): string | undefined {
  if (process.getuid?.() !== 0) return "a one-node Slurm cluster needs root";
  for (const program of ["slurmctld", "slurmd", "munged", "sbatch"]) {
    try {
      execFileSync("sh", ["-c", `command -v ${program}`], { stdio: "ignore" });
    } catch {
      return `${program} is not installed (apt-get install slurm-wlm munge; scripts/install-system does it)`;
    }
  }
  return undefined;
}

/** Why the Slurm tests cannot run here (a failing test where they must), or undefined. */
export const slurmSkip: string | undefined = skipOrFail("Slurm", missing());

let cluster: Promise<string> | undefined;
let clusterDir: string | undefined;

afterAll(async () => {
  if (clusterDir === undefined) return;
  await run(path.join(REPO_ROOT, "scripts/slurm-one-node"), ["stop", clusterDir]).catch(() => undefined);
  rmSync(clusterDir, { recursive: true, force: true });
}, 60_000);

/**
 * Start this file's cluster (once) and point SLURM_CONF at it; returns the folder. `args`: the node's size,
 * as scripts/slurm-one-node takes it (`--cpus 8 --memory-mb 40000`).
 */
export function slurmCluster(args: readonly string[] = []): Promise<string> {
  cluster ??= (async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "rebench-slurm-"));
    clusterDir = dir;
    rmSync(dir, { recursive: true });
    const { stdout } = await run(path.join(REPO_ROOT, "scripts/slurm-one-node"), ["start", dir, ...args], { timeout: 120_000 });
    const conf = /export SLURM_CONF=(\S+)/.exec(stdout)?.[1];
    if (!conf) throw new Error(`scripts/slurm-one-node printed no SLURM_CONF: ${stdout}`);
    process.env.SLURM_CONF = conf;
    return dir;
  })();
  return cluster;
}
