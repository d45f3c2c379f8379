/**
 * @module
 * Host-wide GPU leases, so that concurrent runs on one machine (in one rebench process or several) get
 * different GPUs. A lease is a file `<dir>/<index>.json` (default dir `$REBENCH_HOME/gpu-leases`) holding
 * `{pid, runId, since}`, created atomically and exclusively (written to a temporary file, then hard-linked
 * into place: `link` fails when the lease exists, and a lease is never seen half-written).
 *
 * `acquireGpus` takes the lowest free indices, all at once or none: when fewer than asked are free it holds
 * nothing and polls until enough are (so two runs each wanting two GPUs cannot deadlock holding one each).
 * With `slots` above 1 a GPU may be leased to that many runs at once (`rebench calibrate --runs-per-gpu`: runs
 * that use little of a GPU's memory and whose score does not time anything): slot 0 is `<index>.json`, slot s
 * `<index>.<s>.json`; every GPU's first slot is taken before any GPU's second, and one run never gets two slots
 * of one GPU.
 * A lease whose holder is gone is stale and reclaimed: by default when its pid no longer exists; a caller
 * may widen "alive" (`isLive`: a human run's lease lives as long as its sandbox, see src/runs/run-gpus.ts).
 * Every removal of a lease file (release or reclaim) first takes a guard file named after the lease's exact
 * contents, then checks the contents again, so a reclaimer can never remove a lease someone just took.
 */
import { createHash, randomBytes } from "node:crypto";
import { link, mkdir, readdir, readFile, stat, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { InvalidInputError, pidAlive, rebenchHome } from "../core/index.js";

/** What a lease file holds. */
export interface GpuLeaseRecord {
  /** The process holding the lease. */
  pid: number;
  /** The run (sandbox id) the GPU is leased to. */
  runId: string;
  /** ISO time the lease was taken. */
  since: string;
  /** Sandbox backend whose sandbox `runId` keeps the lease after `pid` exits (runs started by `rebench start`). */
  sandbox?: string;
}

export interface HeldGpu {
  gpu: number;
  /** Which of the GPU's leases (0 unless runs share GPUs: AcquireGpusOptions.slots). */
  slot: number;
  lease: GpuLeaseRecord;
}

export interface AcquireGpusOptions {
  /** The host's GPU indices (nvidia-smi's numbering); lower ones are taken first. */
  hostGpus: readonly number[];
  /** The run the GPUs are for; recorded in the lease so another process can release it (`releaseRunGpus`). */
  runId: string;
  /** Called once, on the first wait, with the leases that block (to print "waiting for a free GPU"). */
  onWait?: (held: readonly HeldGpu[]) => void;
  /** Milliseconds between attempts while waiting, jittered ±50%; default 1000. */
  pollMs?: number;
  /** Stop waiting: the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Where the lease files live; default `$REBENCH_HOME/gpu-leases`. */
  dir?: string;
  /** How many runs may hold one GPU at once; default 1. */
  slots?: number;
  /** Recorded in the lease (see GpuLeaseRecord.sandbox). */
  sandbox?: string;
  /** Whether a lease's holder is still there; default: its pid is a live process. False reclaims it. */
  isLive?: (lease: GpuLeaseRecord) => boolean | Promise<boolean>;
}

export interface GpuLease {
  /** The leased GPU indices, ascending (empty for a count of 0). */
  readonly gpus: readonly number[];
  /** Give the GPUs back (idempotent; leaves leases others took since alone). */
  release(): Promise<void>;
}

/** The default test of a lease's holder: its process exists. */
const holderProcessAlive = (lease: GpuLeaseRecord): boolean => pidAlive(lease.pid);

/** A guard left by a process that died mid-removal is ignored after this long. */
const GUARD_STALE_MS = 30_000;

export function gpuLeaseDir(): string {
  return path.join(rebenchHome(), "gpu-leases");
}

/** Lease `count` GPUs of the host for `options.runId`, waiting until that many are free. */
export async function acquireGpus(count: number, options: AcquireGpusOptions): Promise<GpuLease> {
  if (!Number.isInteger(count) || count < 0) throw new InvalidInputError(`a GPU count must be a non-negative integer, got ${count}`);
  if (count === 0) return { gpus: [], release: async () => undefined };
  const slots = options.slots ?? 1;
  if (!Number.isInteger(slots) || slots < 1) throw new InvalidInputError(`runs per GPU must be a positive integer, got ${slots}`);
  const host = [...new Set(options.hostGpus)].sort((a, b) => a - b);
  if (count > host.length) {
    throw new InvalidInputError(`${count} GPU${count === 1 ? "" : "s"} asked for and this machine has ${host.length === 0 ? "none" : host.length}`, {
      hint: "run it on a machine with enough GPUs (`rebench environments show` lists the resources)",
    });
  }
  const dir = options.dir ?? gpuLeaseDir();
  await mkdir(dir, { recursive: true });
  const text = leaseText(options.runId, options.sandbox);
  const isLive = options.isLive ?? holderProcessAlive;
  const pollMs = options.pollMs ?? 1000;
  let waited = false;
  for (;;) {
    options.signal?.throwIfAborted();
    const attempt = await tryAcquire(dir, host, slots, count, text, isLive);
    if (attempt.taken) {
      const taken = attempt.taken;
      let released = false;
      return {
        gpus: taken.map((t) => t.gpu).sort((a, b) => a - b),
        release: async () => {
          if (released) return;
          released = true;
          for (const t of taken) await removeLease(dir, t, text);
        },
      };
    }
    if (!waited) {
      waited = true;
      options.onWait?.(attempt.held);
    }
    await sleep(pollMs * (0.5 + Math.random()), undefined, options.signal ? { signal: options.signal } : {});
  }
}

/**
 * Lease `gpus` to `runId` for this process again: a run that continues after its orchestrator died keeps
 * the GPUs its sandbox was given. A lease of the run whose holder is gone (or no lease) becomes this
 * process's; returns the GPUs another live run leased meanwhile (the two now share them).
 */
export async function adoptRunGpus(
  runId: string,
  gpus: readonly number[],
  options: Pick<AcquireGpusOptions, "dir" | "isLive" | "sandbox"> = {},
): Promise<HeldGpu[]> {
  if (gpus.length === 0) return [];
  const dir = options.dir ?? gpuLeaseDir();
  await mkdir(dir, { recursive: true });
  const isLive = options.isLive ?? holderProcessAlive;
  const text = leaseText(runId, options.sandbox);
  const clashes: HeldGpu[] = [];
  const before = await heldGpus(dir);
  for (const gpu of gpus) {
    // The run's own lease where it has one (any slot, when runs share GPUs), else slot 0.
    const at = { gpu, slot: before.find((h) => h.gpu === gpu && h.lease.runId === runId)?.slot ?? 0 };
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await createLease(dir, at, text)) break;
      const current = await readLease(leaseFile(dir, at));
      if (!current) continue;
      const live = await isLive(current.lease);
      if (live && current.lease.runId === runId) break;
      if (live) {
        clashes.push({ ...at, lease: current.lease });
        break;
      }
      await removeLease(dir, at, current.text);
    }
  }
  return clashes;
}

/** Release every GPU leased to `runId` (by any process): the run's sandbox is gone. Returns the indices. */
export async function releaseRunGpus(runId: string, dir: string = gpuLeaseDir()): Promise<number[]> {
  const released = new Set<number>();
  for (const held of await heldGpus(dir)) {
    if (held.lease.runId === runId && (await removeLease(dir, held, held.text))) released.add(held.gpu);
  }
  return [...released].sort((a, b) => a - b);
}

/** The leases in `dir` now (live or stale), by GPU index and slot. */
export async function heldGpus(dir: string = gpuLeaseDir()): Promise<Array<HeldGpu & { text: string }>> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const held: Array<HeldGpu & { text: string }> = [];
  for (const name of names) {
    const match = /^(\d+)(?:\.(\d+))?\.json$/.exec(name);
    if (!match) continue;
    const read = await readLease(path.join(dir, name));
    if (read) held.push({ gpu: Number(match[1]), slot: Number(match[2] ?? 0), ...read });
  }
  return held.sort((a, b) => a.gpu - b.gpu || a.slot - b.slot);
}

async function tryAcquire(
  dir: string,
  host: readonly number[],
  slots: number,
  count: number,
  text: string,
  isLive: (lease: GpuLeaseRecord) => boolean | Promise<boolean>,
): Promise<{ taken?: Slot[]; held: HeldGpu[] }> {
  const taken: Slot[] = [];
  const held: HeldGpu[] = [];
  for (let slot = 0; slot < slots && taken.length < count; slot++) {
    for (const gpu of host) {
      if (taken.length === count) break;
      if (taken.some((t) => t.gpu === gpu)) continue;
      const at = { gpu, slot };
      if (await createLease(dir, at, text)) {
        taken.push(at);
        continue;
      }
      const current = await readLease(leaseFile(dir, at));
      if (!current) {
        // Released between our attempt and the read: try once more.
        if (await createLease(dir, at, text)) taken.push(at);
        continue;
      }
      if (!(await isLive(current.lease)) && (await removeLease(dir, at, current.text)) && (await createLease(dir, at, text))) {
        taken.push(at);
        continue;
      }
      held.push({ ...at, lease: current.lease });
    }
  }
  if (taken.length === count) return { taken, held };
  // All or none: never hold part of a set while waiting for the rest.
  for (const at of taken) await removeLease(dir, at, text);
  return { held };
}

/** One lease file's place: a GPU and which of its leases. */
interface Slot {
  gpu: number;
  slot: number;
}

/** This process's lease for `runId`, as the file's text. */
function leaseText(runId: string, sandbox: string | undefined): string {
  const record: GpuLeaseRecord = { pid: process.pid, runId, since: new Date().toISOString(), ...(sandbox ? { sandbox } : {}) };
  return `${JSON.stringify(record)}\n`;
}

function leaseFile(dir: string, { gpu, slot }: Slot): string {
  return path.join(dir, slot === 0 ? `${gpu}.json` : `${gpu}.${slot}.json`);
}

/** Create the lease file with `text`, atomically; false when it exists. */
async function createLease(dir: string, at: Slot, text: string): Promise<boolean> {
  const tmp = path.join(dir, `.${at.gpu}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  await writeFile(tmp, text, { flag: "wx" });
  try {
    await link(tmp, leaseFile(dir, at));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

async function readLease(file: string): Promise<{ lease: GpuLeaseRecord; text: string } | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    const lease = JSON.parse(text) as GpuLeaseRecord;
    if (Number.isInteger(lease.pid) && typeof lease.runId === "string") return { lease, text };
  } catch {
    // not ours, or damaged: reported as held by pid 0 (never alive), so it is reclaimed
  }
  return { lease: { pid: 0, runId: "?", since: "" }, text };
}

/** Remove the lease at `at` if it still holds exactly `text`; true when this call removed it. */
async function removeLease(dir: string, at: Slot, text: string): Promise<boolean> {
  const guard = path.join(dir, `.${at.gpu}.${at.slot}.${createHash("sha256").update(text).digest("hex").slice(0, 16)}.removing`);
  try {
    await writeFile(guard, `${process.pid}\n`, { flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const age = await stat(guard).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (age > GUARD_STALE_MS) await unlink(guard).catch(() => undefined);
    return false;
  }
  try {
    const current = await readLease(leaseFile(dir, at));
    if (current?.text !== text) return false;
    await unlink(leaseFile(dir, at));
    return true;
  } finally {
    await unlink(guard).catch(() => undefined);
  }
}
