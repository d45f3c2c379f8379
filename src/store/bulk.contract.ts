/**
 * @module
 * The contract of `RunStore.appendMany` (several events of one run in one transaction), beside the
 * store contract (`store.contract.ts`): each store implementation's test file calls `bulkStoreContract`.
 */
import { describe, expect, test } from "vitest";
import type { NewRunEvent } from "../core/index.js";
import { sampleSpec } from "./store.contract.js";
import type { RunStore } from "./store.js";

const note = (message: string): NewRunEvent => ({ type: "note", message });

export function bulkStoreContract(name: string, open: () => Promise<RunStore>): void {
  describe(`RunStore bulk contract: ${name}`, () => {
    test("numbers the events in order, folds each into the summary, and writes them as appends would", async () => {
      const store = await open();
      const batched = await store.createRun(sampleSpec);
      const single = await store.createRun(sampleSpec);
      const events: NewRunEvent[] = [
        { type: "state_changed", to: "running", ts: "2026-12-07T10:00:00.000Z" },
        { type: "action", actionId: "a1", tool: "bash", input: { command: "ls" }, ts: "2026-12-07T10:00:01.000Z" },
        { type: "observation", actionId: "a1", tool: "bash", output: { exitCode: 0, stdout: "x", stderr: "" }, ts: "2026-12-07T10:00:02.000Z" },
        { type: "time_reported", wallSeconds: 2, workingSeconds: 2, pausedSeconds: 0, ts: "2026-12-07T10:00:02.000Z" },
      ];
      const results = await store.appendMany(batched.id, events);
      expect(results.map((r) => r.stored.seq)).toEqual([2, 3, 4, 5]);
      expect(results.map((r) => r.summary.lastSeq)).toEqual([2, 3, 4, 5]);
      expect(results[0]?.summary.state).toBe("running");
      expect(results[1]?.summary.usage.actions).toBe(1);
      for (const event of events) await store.append(single.id, event);
      const strip = (id: string) => async () => (await store.events(id)).slice(1).map(({ seq, event }) => ({ seq, event }));
      expect(await strip(batched.id)()).toEqual(await strip(single.id)());
      const { id: _a, createdAt: _b, updatedAt: _c, spec: _d, ...summary } = await store.getRun(batched.id);
      const { id: _e, createdAt: _f, updatedAt: _g, spec: _h, ...same } = await store.getRun(single.id);
      expect(summary).toEqual(same);
      expect(await store.getRun(batched.id)).toEqual(results.at(-1)?.summary);
      // Appends continue after the batch; an empty batch writes nothing.
      expect((await store.append(batched.id, note("after"))).stored.seq).toBe(6);
      expect(await store.appendMany(batched.id, [])).toEqual([]);
      expect((await store.getRun(batched.id)).lastSeq).toBe(6);
      await store.close();
    });

    test("writes all or nothing: an invalid event or an unknown run leaves the log as it was", async () => {
      const store = await open();
      const run = await store.createRun(sampleSpec);
      await expect(store.appendMany(run.id, [note("fine"), { type: "state_changed", to: "sleeping" } as never])).rejects.toThrow(/event of run .* is invalid/);
      expect((await store.getRun(run.id)).lastSeq).toBe(1);
      expect((await store.events(run.id)).map((e) => e.event.type)).toEqual(["run_created"]);
      await expect(store.appendMany("r00000000nope", [note("x")])).rejects.toThrow(/no run/);
      await store.close();
    });

    test("scoreLogs() reads many runs' score logs at once, each in order, as scoreLog() does", async () => {
      const store = await open();
      const entry = (value: number | null, elapsedSeconds: number) => ({
        timestamp: new Date(Date.UTC(2026, 11, 7, 12, 0, elapsedSeconds)).toISOString(),
        elapsedSeconds,
        outcome: value === null ? { kind: "invalid" as const, reason: "wrong" } : { kind: "scored" as const, value },
        message: {},
        details: { kept: elapsedSeconds },
      });
      const a = await store.createRun(sampleSpec);
      const b = await store.createRun(sampleSpec);
      const none = await store.createRun(sampleSpec);
      await store.append(a.id, { type: "score_logged", trigger: "start", entry: entry(2, 1) });
      await store.append(b.id, { type: "score_logged", trigger: "action", entry: entry(null, 2) });
      await store.appendMany(a.id, [note("between"), { type: "score_logged", trigger: "submit", entry: entry(1.5, 3) }]);
      await store.append(b.id, { type: "score_logged", trigger: "action", entry: entry(1.25, 4) });
      const logs = await store.scoreLogs([b.id, a.id, none.id, "r00000000nope"]);
      expect([...logs.keys()]).toEqual([b.id, a.id, none.id, "r00000000nope"]);
      for (const run of [a, b, none]) expect(logs.get(run.id)).toEqual(await store.scoreLog(run.id));
      expect(logs.get(a.id)?.map((e) => e.elapsedSeconds)).toEqual([1, 3]);
      expect(logs.get(none.id)).toEqual([]);
      expect(logs.get("r00000000nope")).toEqual([]);
      expect((await store.scoreLogs([])).size).toBe(0);
      await store.close();
    });

    test("batches and single appends of one run issued at once commit in the order they were called", async () => {
      const store = await open();
      const run = await store.createRun(sampleSpec);
      await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? store.append(run.id, note(`n${i}`)) : store.appendMany(run.id, [note(`n${i}a`), note(`n${i}b`)]))),
      );
      const notes = (await store.events(run.id, { types: ["note"] })).map(({ event }) => (event.type === "note" ? event.message : ""));
      expect(notes).toEqual(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? [`n${i}`] : [`n${i}a`, `n${i}b`])).flat());
      expect((await store.getRun(run.id)).lastSeq).toBe(16);
      await store.close();
    });
  });
}
