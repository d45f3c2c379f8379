/**
 * @module
 * The contract every RunStore passes. Each store implementation's own test file calls `runStoreContract`.
 */
import { describe, expect, test } from "vitest";
import { type RunSpecInput, RunSummary } from "../core/index.js";
import type { RunStore } from "./store.js";

export const sampleSpec: RunSpecInput = {
  participant: { kind: "agent", alias: "test-model", scaffold: "replay", model: "local:test" },
  environment: "optimize_kernel",
  variant: "mini",
  task: "main",
  limits: { workingSeconds: 1800, tokens: 1000 },
  timeLimitSeconds: 1800,
  direction: "min",
  aggregation: "min",
  normalization: { start: 2, reference: 1, source: "shipped" },
};

const entry = (value: number | null, elapsedSeconds: number) => ({
  timestamp: new Date(Date.UTC(2026, 10, 29, 12, 0, elapsedSeconds)).toISOString(),
  elapsedSeconds,
  outcome: value === null ? { kind: "invalid" as const, reason: "wrong output" } : { kind: "scored" as const, value },
  message: { time_ms: value },
  details: { secret: "only stored" },
});

/** A run as a store of schema 1 or 2 held it: its summary has no `job` (tests of the migration to schema 3). */
export function schemaOneRun() {
  const ts = "2026-11-01T10:00:00.000Z";
  const spec = { ...sampleSpec, config: {} };
  const summary = {
    id: "r0schemaone00000",
    spec,
    state: "queued",
    createdAt: ts,
    updatedAt: ts,
    startedAt: null,
    finishedAt: null,
    usage: { inputTokens: 0, outputTokens: 0, costUsd: 0, actions: 0, wallSeconds: 0, workingSeconds: 0, pausedSeconds: 0 },
    scoreCalls: 0,
    validScores: 0,
    currentRaw: null,
    finalRaw: null,
    normalized: null,
    stopReason: null,
    error: null,
    lastSeq: 1,
  };
  return { summary, event: { type: "run_created", ts, spec } };
}

export function runStoreContract(name: string, open: () => Promise<RunStore>): void {
  describe(`RunStore contract: ${name}`, () => {
    test("createRun() stores the run as queued with a run_created event", async () => {
      const store = await open();
      const run = await store.createRun(sampleSpec);
      expect(run.state).toBe("queued");
      expect(run.lastSeq).toBe(1);
      expect(await store.getRun(run.id)).toEqual(run);
      const events = await store.events(run.id);
      expect(events.map((e) => e.event.type)).toEqual(["run_created"]);
      await store.close();
    });

    test("append() numbers events and updates the summary in the same step", async () => {
      const store = await open();
      const run = await store.createRun(sampleSpec);
      await store.append(run.id, { type: "state_changed", to: "running" });
      const a = await store.append(run.id, { type: "score_logged", trigger: "action", entry: entry(1.8, 10) });
      expect(a.stored.seq).toBe(3);
      expect(a.summary.currentRaw).toBe(1.8);
      await store.append(run.id, { type: "score_logged", trigger: "action", entry: entry(null, 20) });
      await store.append(run.id, { type: "score_logged", trigger: "action", entry: entry(1.2, 30) });
      const summary = await store.getRun(run.id);
      expect(summary).toMatchObject({ state: "running", scoreCalls: 3, validScores: 2, currentRaw: 1.2, lastSeq: 5 });
      const log = await store.scoreLog(run.id);
      expect(log.map((e) => e.outcome.kind)).toEqual(["scored", "invalid", "scored"]);
      expect(log[0]?.details).toEqual({ secret: "only stored" });
      const later = await store.events(run.id, { afterSeq: 3 });
      expect(later.map((e) => e.seq)).toEqual([4, 5]);
      await store.close();
    });

    test("a summary read back is exactly what the schema makes of it, after every kind of event that changes it", async () => {
      // The stores read summaries they wrote themselves without checking them again (summary-json.ts): that
      // is only right while a fold never leaves a key, a default or a type the schema would change.
      const store = await open();
      const run = await store.createRun({ ...sampleSpec, config: { executor: "slurm" }, normalizationMissing: "known when the job starts" });
      const events = [
        { type: "job_submitted", executor: "slurm", jobId: "7", request: ["--gpus=1"] },
        {
          type: "job_started",
          jobId: "7",
          node: "n1",
          allocation: { gpus: [0], cpus: 2, memoryMb: 1024 },
          machineClass: "AMD EPYC, 2 cores",
          normalization: {
            start: 2,
            reference: 1,
            source: "calibration",
            entry: { machineClass: "AMD EPYC, 2 cores", date: "2026-12-07T00:00:00.000Z", runs: 3 },
          },
        },
        { type: "state_changed", to: "running" },
        { type: "generation", model: "m", inputTokens: 10, cacheReadTokens: 5, outputTokens: 3, reasoningTokens: 1, costUsd: 0.01 },
        { type: "action", actionId: "a1", tool: "bash", input: { command: "true" } },
        { type: "score_logged", trigger: "action", entry: entry(1.5, 10) },
        { type: "time_reported", wallSeconds: 12, workingSeconds: 10, pausedSeconds: 2 },
        { type: "pause_started", reason: "human" },
        { type: "pause_ended", reason: "human" },
        { type: "run_finished", stopReason: "submitted", finalRaw: 1.5, normalized: 0.5 },
        { type: "review", review: { verdict: "suspicious", findings: [], reviewer: { rules: "1" } } },
      ] as const;
      for (const event of events) {
        await store.append(run.id, event as never);
        const read = await store.getRun(run.id);
        expect(RunSummary.parse(JSON.parse(JSON.stringify(read)))).toStrictEqual(read);
        expect((await store.listRuns()).find((r) => r.id === run.id)).toStrictEqual(read);
      }
      expect(await store.getRun(run.id)).toMatchObject({ state: "finished", job: { node: "n1" }, review: { verdict: "suspicious" } });
      await store.close();
    });

    test("append() rejects malformed events and unknown runs without writing", async () => {
      const store = await open();
      const run = await store.createRun(sampleSpec);
      await expect(store.append(run.id, { type: "state_changed", to: "sleeping" } as never)).rejects.toThrow(/event of run .* is invalid/);
      await expect(store.append("r00000000nope", { type: "note", message: "x" })).rejects.toThrow(/no run/);
      expect((await store.getRun(run.id)).lastSeq).toBe(1);
      await store.close();
    });

    test("listRuns() filters by environment, state and participant", async () => {
      const store = await open();
      const a = await store.createRun(sampleSpec);
      const b = await store.createRun({ ...sampleSpec, environment: "scaling_law", aggregation: "last", direction: "max" });
      const c = await store.createRun({ ...sampleSpec, participant: { kind: "human", alias: "human" } });
      await store.append(c.id, { type: "run_finished", stopReason: "submitted", finalRaw: 1.5, normalized: 0.5 });
      const ids = (runs: { id: string }[]) => runs.map((r) => r.id);
      expect(ids(await store.listRuns({ environment: "scaling_law" }))).toContain(b.id);
      expect(ids(await store.listRuns({ environment: "scaling_law" }))).not.toContain(a.id);
      expect(ids(await store.listRuns({ states: ["finished"] }))).toEqual(expect.arrayContaining([c.id]));
      expect(ids(await store.listRuns({ states: ["finished"] }))).not.toContain(a.id);
      expect(ids(await store.listRuns({ participant: "human" }))).toEqual(expect.arrayContaining([c.id]));
      expect((await store.listRuns({ limit: 1 })).length).toBe(1);
      await store.close();
    });

    test("appends of one run issued at once commit in the order they were called", async () => {
      const store = await open();
      const run = await store.createRun(sampleSpec);
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.append(run.id, { type: "note", message: `n${i}` })));
      expect(results.map((r) => r.stored.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
      const notes = (await store.events(run.id, { types: ["note"] })).map(({ event }) => (event.type === "note" ? event.message : ""));
      expect(notes).toEqual(Array.from({ length: 20 }, (_, i) => `n${i}`));
      expect((await store.getRun(run.id)).lastSeq).toBe(21);
      await store.close();
    });

    test("importEvents() copies a run's log with its own numbers and times, and only where it continues the log", async () => {
      const source = await open();
      const target = await open();
      const run = await source.createRun(sampleSpec, { ts: "2026-11-29T12:00:00.000Z" });
      await source.append(run.id, { type: "state_changed", to: "running", ts: "2026-11-29T12:00:01.000Z" });
      await source.append(run.id, { type: "score_logged", trigger: "action", entry: entry(1.5, 10) });
      const first = await source.events(run.id);
      const copied = await target.importEvents(run.id, first.slice(0, 2));
      expect(copied).toMatchObject({ id: run.id, state: "running", lastSeq: 2, createdAt: "2026-11-29T12:00:00.000Z" });
      // A gap, or events the target already holds, are refused and change nothing.
      await expect(
        target.importEvents(
          run.id,
          first.slice(2).map((e) => ({ ...e, seq: 4 })),
        ),
      ).rejects.toThrow(/ends at event 2/);
      await expect(target.importEvents(run.id, first)).rejects.toThrow(/start at 1, not 3/);
      expect((await target.getRun(run.id)).lastSeq).toBe(2);
      await target.importEvents(run.id, first.slice(2));
      expect(await target.events(run.id)).toEqual(first);
      expect(await target.getRun(run.id)).toEqual(await source.getRun(run.id));
      expect(await target.listRuns()).toEqual([await source.getRun(run.id)]);
      // Appends continue the imported log.
      const next = await target.append(run.id, { type: "note", message: "after the copy" });
      expect(next.stored.seq).toBe(4);
      await expect(target.importEvents("r00000000nope", first)).rejects.toThrow(/imported as run r00000000nope/);
      // The imported run's sortable columns are written as an append writes them.
      const other = await target.createRun(sampleSpec);
      await target.append(other.id, { type: "score_logged", trigger: "action", entry: entry(1.0, 10) });
      expect((await target.pageRuns({ sort: "raw", descending: true })).runs.map((r) => r.id)).toEqual([run.id, other.id]);
      await source.close();
      await target.close();
    });

    test("pageRuns() filters by score range, sorts by any column with missing values last, and counts every page", async () => {
      const store = await open();
      const finished = async (alias: string, raw: number, normalized: number | null) => {
        const run = await store.createRun({ ...sampleSpec, participant: { kind: "agent", alias } });
        await store.append(run.id, { type: "time_reported", wallSeconds: raw * 10, workingSeconds: raw * 10, pausedSeconds: 0 });
        await store.append(run.id, { type: "run_finished", stopReason: "submitted", finalRaw: raw, normalized });
        return run.id;
      };
      const low = await finished("b-model", 1.9, 0.1);
      const high = await finished("a-model", 1.1, 0.9);
      const none = await finished("c-model", 3, null);
      const queued = (await store.createRun({ ...sampleSpec, environment: "scaling_law", aggregation: "last", direction: "max" })).id;
      const ids = (page: { runs: { id: string }[] }) => page.runs.map((r) => r.id);
      expect(ids(await store.pageRuns({ sort: "normalized" }))).toEqual([low, high, none, queued]);
      expect(ids(await store.pageRuns({ sort: "normalized", descending: true }))).toEqual([high, low, none, queued]);
      expect(ids(await store.pageRuns({ sort: "participant" }))).toEqual([high, low, none, queued]);
      expect(ids(await store.pageRuns({ sort: "working", descending: true }))).toEqual([none, low, high, queued]);
      expect(ids(await store.pageRuns({ sort: "raw" }))).toEqual([high, low, none, queued]);
      const page = await store.pageRuns({ sort: "normalized", descending: true, offset: 1, limit: 2 });
      expect(page.total).toBe(4);
      expect(ids(page)).toEqual([low, none]);
      const ranged = await store.pageRuns({ minScore: 0.5 });
      expect([ranged.total, ...ids(ranged)]).toEqual([1, high]);
      expect(ids(await store.pageRuns({ maxScore: 0.5, states: ["finished"] }))).toEqual([low]);
      expect((await store.pageRuns({ environment: "scaling_law" })).total).toBe(1);
      expect(await store.runFacets()).toEqual({
        environments: ["optimize_kernel", "scaling_law"],
        variants: ["mini"],
        participants: ["a-model", "b-model", "c-model", "test-model"],
        states: ["finished", "queued"],
      });
      await store.close();
    });

    test("events() pages with limit, and searchEvents() finds text as written, ignoring case", async () => {
      const store = await open();
      const run = await store.createRun(sampleSpec);
      for (let i = 0; i < 5; i++) await store.append(run.id, { type: "note", message: i === 3 ? 'Two lines\nwith "quotes" <b>' : `note ${i}` });
      expect((await store.events(run.id, { afterSeq: 1, limit: 2 })).map((e) => e.seq)).toEqual([2, 3]);
      expect(await store.searchEvents(run.id, 'lines\nWITH "quotes" <B>')).toEqual([5]);
      expect(await store.searchEvents(run.id, "note")).toEqual([2, 3, 4, 6]);
      expect(await store.searchEvents(run.id, "note", { limit: 2 })).toEqual([2, 3]);
      expect(await store.searchEvents(run.id, "absent")).toEqual([]);
      // Case is ignored for ASCII letters only; other text matches as written.
      await store.append(run.id, { type: "note", message: "Über naïve" });
      expect(await store.searchEvents(run.id, "über NAÏVE")).toEqual([]);
      expect(await store.searchEvents(run.id, "Über NAïVE")).toEqual([7]);
      // A control character in an event (binary output) does not stop the search.
      await store.append(run.id, { type: "note", message: "bin\u0000ary \u001b[1m" });
      expect(await store.searchEvents(run.id, "BIN")).toEqual([8]);
      expect(await store.searchEvents(run.id, "\u001b[1m")).toEqual([8]);
      await store.close();
    });

    test("eventTypes() lists each event's type in the run's order, without the events", async () => {
      const store = await open();
      const run = await store.createRun(sampleSpec);
      const other = await store.createRun(sampleSpec);
      await store.append(run.id, { type: "state_changed", to: "running" });
      await store.append(run.id, { type: "action", actionId: "a1", tool: "bash", input: { command: "ls" } });
      await store.append(other.id, { type: "note", message: "another run's event" });
      await store.append(run.id, { type: "observation", actionId: "a1", tool: "bash", output: { exitCode: 0, stdout: "", stderr: "" } });
      await store.append(run.id, { type: "action", actionId: "a2", tool: "bash", input: { command: "pwd" } });
      expect(await store.eventTypes(run.id)).toEqual(["run_created", "state_changed", "action", "observation", "action"]);
      expect(await store.eventTypes(other.id)).toEqual(["run_created", "note"]);
      await store.close();
    });

    test("pageRuns() and runFacets() order text by its bytes, whatever the database's locale", async () => {
      const store = await open();
      const lower = await store.createRun({ ...sampleSpec, participant: { kind: "agent", alias: "alpha" } });
      const upper = await store.createRun({ ...sampleSpec, participant: { kind: "agent", alias: "Zed" } });
      const dashed = await store.createRun({ ...sampleSpec, participant: { kind: "agent", alias: "a-z" } });
      expect((await store.pageRuns({ sort: "participant" })).runs.map((r) => r.id)).toEqual([upper.id, dashed.id, lower.id]);
      expect((await store.runFacets()).participants).toEqual(["Zed", "a-z", "alpha"]);
      await store.close();
    });

    test("getRun() of an unknown id says so and how to list runs", async () => {
      const store = await open();
      await expect(store.getRun("r0000000000000")).rejects.toThrow(/no run r0000000000000/);
      await store.close();
    });
  });
}
