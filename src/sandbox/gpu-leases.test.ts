import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { tempDir } from "../../test/helpers/tmp.js";
import { InvalidInputError } from "../core/index.js";
import { acquireGpus, adoptRunGpus, type HeldGpu, releaseRunGpus } from "./gpu-leases.js";

const root = tempDir("rebench-gpu-leases-");
let n = 0;
/** A fresh lease folder per test. */
const leaseDir = () => path.join(root, `leases-${++n}`);
const TWO = [0, 1];
const repo = fileURLToPath(new URL("../..", import.meta.url));
const leaseModule = fileURLToPath(new URL("./gpu-leases.ts", import.meta.url));

/** Whether `promise` is still pending after `ms`. */
async function pendingAfter(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const marker = Symbol("pending");
  return (await Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve(marker), ms))])) === marker;
}

function leaseFiles(dir: string): string[] {
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((name) => name.endsWith(".json"))
        .sort()
    : [];
}

/** A real node process that leases `count` GPUs of `hostGpus` in `dir`, prints "held" and sleeps. */
async function holderProcess(dir: string, count: number, hostGpus: number[]): Promise<ChildProcess> {
  const script = `
    const { acquireGpus } = await import(${JSON.stringify(leaseModule)});
    const lease = await acquireGpus(${count}, { hostGpus: ${JSON.stringify(hostGpus)}, runId: "child-run", dir: ${JSON.stringify(dir)}, pollMs: 50 });
    process.stdout.write("held " + lease.gpus.join(",") + "\\n");
    setInterval(() => undefined, 1000);
  `;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: repo, stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("held")) resolve();
    });
    child.on("exit", (code) => reject(new Error(`the lease holder exited with ${code} before leasing`)));
  });
  return child;
}

async function killed(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}

describe("acquireGpus()", () => {
  test("two runs of one GPU each on a 2-GPU host get different GPUs; each lease file names its pid and run", async () => {
    const dir = leaseDir();
    const a = await acquireGpus(1, { hostGpus: TWO, runId: "run-a", dir });
    const b = await acquireGpus(1, { hostGpus: TWO, runId: "run-b", dir });
    expect([a.gpus, b.gpus]).toEqual([[0], [1]]);
    expect(leaseFiles(dir)).toEqual(["0.json", "1.json"]);
    expect(JSON.parse(readFileSync(path.join(dir, "1.json"), "utf8"))).toMatchObject({ pid: process.pid, runId: "run-b", since: expect.any(String) });
    await a.release();
    await b.release();
    await b.release();
    expect(leaseFiles(dir)).toEqual([]);
  });

  test("a third run waits, saying once who holds the GPUs, until one is released, then gets that GPU", async () => {
    const dir = leaseDir();
    const a = await acquireGpus(1, { hostGpus: TWO, runId: "run-a", dir });
    const b = await acquireGpus(1, { hostGpus: TWO, runId: "run-b", dir });
    const waits: HeldGpu[][] = [];
    const c = acquireGpus(1, { hostGpus: TWO, runId: "run-c", dir, pollMs: 20, onWait: (held) => waits.push([...held]) });
    expect(await pendingAfter(c, 300)).toBe(true);
    expect(waits).toHaveLength(1);
    expect(waits[0]!.map((h) => [h.gpu, h.lease.runId])).toEqual([
      [0, "run-a"],
      [1, "run-b"],
    ]);
    await b.release();
    expect((await c).gpus).toEqual([1]);
    await a.release();
    await (await c).release();
  });

  test("all or none: asking for 2 while 1 is held waits without holding the free one", async () => {
    const dir = leaseDir();
    const a = await acquireGpus(1, { hostGpus: TWO, runId: "run-a", dir });
    const both = acquireGpus(2, { hostGpus: TWO, runId: "run-both", dir, pollMs: 20 });
    expect(await pendingAfter(both, 200)).toBe(true);
    // GPU 1 stays free for anyone: the waiting request holds nothing.
    const other = await acquireGpus(1, { hostGpus: TWO, runId: "run-other", dir });
    expect(other.gpus).toEqual([1]);
    await other.release();
    await a.release();
    const lease = await both;
    expect(lease.gpus).toEqual([0, 1]);
    await lease.release();
  });

  test("count 0 returns at once and touches nothing; more GPUs than the host has is an input error", async () => {
    const dir = leaseDir();
    expect((await acquireGpus(0, { hostGpus: [], runId: "cpu", dir })).gpus).toEqual([]);
    expect(existsSync(dir)).toBe(false);
    await expect(acquireGpus(3, { hostGpus: TWO, runId: "big", dir })).rejects.toThrow(InvalidInputError);
    await expect(acquireGpus(1, { hostGpus: [], runId: "none", dir })).rejects.toThrow(/1 GPU asked for and this machine has none/);
  });

  test("waiting stops when the signal aborts", async () => {
    const dir = leaseDir();
    const a = await acquireGpus(2, { hostGpus: TWO, runId: "run-a", dir });
    const controller = new AbortController();
    const waiting = acquireGpus(1, { hostGpus: TWO, runId: "run-b", dir, pollMs: 20, signal: controller.signal });
    controller.abort(new Error("cancelled"));
    await expect(waiting).rejects.toThrow("cancelled");
    await a.release();
  });

  test("the lease of a process that died is reclaimed", async () => {
    const dir = leaseDir();
    mkdirSync(dir, { recursive: true });
    const child = spawn(process.execPath, ["-e", "setInterval(() => undefined, 1000)"], { stdio: "ignore" });
    writeFileSync(path.join(dir, "0.json"), JSON.stringify({ pid: child.pid, runId: "crashed", since: new Date().toISOString() }));
    const live = acquireGpus(1, { hostGpus: [0], runId: "run-a", dir, pollMs: 20 });
    expect(await pendingAfter(live, 200)).toBe(true);
    await killed(child);
    const lease = await live;
    expect(lease.gpus).toEqual([0]);
    expect(JSON.parse(readFileSync(path.join(dir, "0.json"), "utf8"))).toMatchObject({ runId: "run-a", pid: process.pid });
    await lease.release();
  });

  test("a lease held by another live rebench process blocks this one until that process dies", async () => {
    const dir = leaseDir();
    const child = await holderProcess(dir, 1, TWO);
    try {
      const mine = await acquireGpus(1, { hostGpus: TWO, runId: "run-a", dir });
      expect(mine.gpus).toEqual([1]);
      const blocked = acquireGpus(1, { hostGpus: TWO, runId: "run-b", dir, pollMs: 20 });
      expect(await pendingAfter(blocked, 300)).toBe(true);
      expect(JSON.parse(readFileSync(path.join(dir, "0.json"), "utf8"))).toMatchObject({ pid: child.pid, runId: "child-run" });
      await killed(child);
      expect((await blocked).gpus).toEqual([0]);
      await mine.release();
      await (await blocked).release();
    } finally {
      if (child.exitCode === null && child.signalCode === null) await killed(child);
    }
  });

  test("many acquirers racing in two processes never share a GPU", async () => {
    const dir = leaseDir();
    const host = [0, 1, 2, 3];
    const child = await holderProcess(dir, 2, host);
    try {
      const leases = await Promise.all(["r1", "r2"].map((runId) => acquireGpus(1, { hostGpus: host, runId, dir, pollMs: 10 })));
      const gpus = leases.flatMap((l) => l.gpus).sort();
      expect(gpus).toEqual([2, 3]);
      for (const lease of leases) await lease.release();
    } finally {
      await killed(child);
    }
  });
});

describe("acquireGpus() with slots (runs sharing GPUs)", () => {
  test("every GPU's first lease goes before any GPU's second; the slot after the last waits", async () => {
    const dir = leaseDir();
    const leases = [];
    for (const runId of ["a", "b", "c", "d"]) leases.push(await acquireGpus(1, { hostGpus: TWO, runId, dir, slots: 2 }));
    expect(leases.map((l) => l.gpus)).toEqual([[0], [1], [0], [1]]);
    expect(leaseFiles(dir)).toEqual(["0.1.json", "0.json", "1.1.json", "1.json"]);
    const fifth = acquireGpus(1, { hostGpus: TWO, runId: "e", dir, slots: 2, pollMs: 20 });
    expect(await pendingAfter(fifth, 150)).toBe(true);
    await leases[3]!.release(); // GPU 1's second slot
    expect((await fifth).gpus).toEqual([1]);
    expect(await releaseRunGpus("e", dir)).toEqual([1]);
    for (const lease of leases) await lease.release();
    expect(leaseFiles(dir)).toEqual([]);
  });

  test("a run of two GPUs never gets two slots of one GPU", async () => {
    const dir = leaseDir();
    const first = await acquireGpus(1, { hostGpus: TWO, runId: "one", dir, slots: 3 });
    const pair = await acquireGpus(2, { hostGpus: TWO, runId: "pair", dir, slots: 3 });
    expect(pair.gpus).toEqual([0, 1]);
    expect(leaseFiles(dir)).toEqual(["0.1.json", "0.json", "1.json"]);
    // One GPU with three slots cannot give a run two GPUs.
    await expect(acquireGpus(2, { hostGpus: [0], runId: "big", dir, slots: 3 })).rejects.toThrow(InvalidInputError);
    await expect(acquireGpus(1, { hostGpus: [0], runId: "bad", dir, slots: 0 })).rejects.toThrow(/runs per GPU must be a positive integer/);
    await first.release();
    await pair.release();
  });

  test("a lease of slot 1 whose holder died is reclaimed, and a continuing run takes back its own slot", async () => {
    const dir = leaseDir();
    mkdirSync(dir, { recursive: true });
    const dead = spawn(process.execPath, ["-e", "setInterval(() => undefined, 1000)"], { stdio: "ignore" });
    await killed(dead);
    const stale = (runId: string) => JSON.stringify({ pid: dead.pid, runId, since: new Date().toISOString() });
    const holder = await acquireGpus(1, { hostGpus: [0], runId: "live", dir, slots: 2 });
    writeFileSync(path.join(dir, "0.1.json"), stale("gone"));
    const taker = await acquireGpus(1, { hostGpus: [0], runId: "taker", dir, slots: 2 });
    expect(JSON.parse(readFileSync(path.join(dir, "0.1.json"), "utf8"))).toMatchObject({ pid: process.pid, runId: "taker" });
    await taker.release();
    writeFileSync(path.join(dir, "0.1.json"), stale("resumed"));
    expect(await adoptRunGpus("resumed", [0], { dir })).toEqual([]);
    expect(JSON.parse(readFileSync(path.join(dir, "0.1.json"), "utf8"))).toMatchObject({ pid: process.pid, runId: "resumed" });
    expect(JSON.parse(readFileSync(path.join(dir, "0.json"), "utf8"))).toMatchObject({ runId: "live" });
    await holder.release();
    expect(await releaseRunGpus("resumed", dir)).toEqual([0]);
    expect(leaseFiles(dir)).toEqual([]);
  });
});

describe("releaseRunGpus()", () => {
  test("releases every GPU of one run, whichever process leased it, and leaves other runs' leases", async () => {
    const dir = leaseDir();
    const run = await acquireGpus(2, { hostGpus: [0, 1, 2], runId: "human-run", dir, sandbox: "local" });
    const other = await acquireGpus(1, { hostGpus: [0, 1, 2], runId: "agent-run", dir });
    expect(JSON.parse(readFileSync(path.join(dir, "0.json"), "utf8"))).toMatchObject({ runId: "human-run", sandbox: "local" });
    expect(await releaseRunGpus("human-run", dir)).toEqual([0, 1]);
    expect(leaseFiles(dir)).toEqual(["2.json"]);
    // The holder's own release afterwards leaves the GPUs others took since alone.
    const next = await acquireGpus(1, { hostGpus: [0, 1, 2], runId: "next", dir });
    await run.release();
    expect(leaseFiles(dir)).toEqual(["0.json", "2.json"]);
    await next.release();
    await other.release();
    expect(await releaseRunGpus("nobody", path.join(root, "missing"))).toEqual([]);
  });
});

describe("adoptRunGpus()", () => {
  test("a continuing run takes back its GPUs from its dead orchestrator, and reports one another live run took", async () => {
    const dir = leaseDir();
    mkdirSync(dir, { recursive: true });
    const dead = spawn(process.execPath, ["-e", "setInterval(() => undefined, 1000)"], { stdio: "ignore" });
    await killed(dead);
    writeFileSync(path.join(dir, "0.json"), JSON.stringify({ pid: dead.pid, runId: "resumed", since: new Date().toISOString() }));
    const other = await acquireGpus(1, { hostGpus: [1], runId: "newcomer", dir });
    const clashes = await adoptRunGpus("resumed", [0, 1, 2], { dir });
    expect(clashes.map((c) => [c.gpu, c.lease.runId])).toEqual([[1, "newcomer"]]);
    expect(JSON.parse(readFileSync(path.join(dir, "0.json"), "utf8"))).toMatchObject({ pid: process.pid, runId: "resumed" });
    expect(JSON.parse(readFileSync(path.join(dir, "2.json"), "utf8"))).toMatchObject({ pid: process.pid, runId: "resumed" });
    expect(await adoptRunGpus("resumed", [0], { dir })).toEqual([]);
    expect(await releaseRunGpus("resumed", dir)).toEqual([0, 2]);
    await other.release();
  });
});
