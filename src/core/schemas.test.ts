import { describe, expect, test } from "vitest";
import { InvalidInputError } from "./errors.js";
import { RunEvent, RunSpec } from "./events.js";
import { Manifest } from "./manifest.js";
import { parseWith } from "./parse.js";
import { ScoreLogEntry, ScoreOutcome } from "./score.js";

const goodManifest = {
  resources: { gpu: { countRange: [1, 1], models: ["h200", "h100"] }, cpus: 16, memoryGb: 100 },
  scoring: { direction: "min", aggregation: "min", visibleToAgent: true, scoreOnUsageLimits: true },
  canary: "ecca2186-2e7c-42f5-b36a-c361cba02702",
};

describe("Manifest", () => {
  test("accepts a well-formed manifest and fills documented defaults", () => {
    const m = parseWith(Manifest, goodManifest, "manifest");
    expect(m.timeouts).toEqual({ scoreSeconds: 600, startSeconds: 1800 });
    expect(m.scoring.logsStartingScore).toBe(false);
  });

  test("rejects a malformed manifest with one readable line per bad field", () => {
    const bad = {
      ...goodManifest,
      resources: { gpu: { countRange: [4, 2], models: ["tpu"] }, cpus: 0, memoryGb: 100 },
      scoring: { ...goodManifest.scoring, aggregation: "mean" },
    };
    let error: unknown;
    try {
      parseWith(Manifest, bad, "the manifest of optimize_kernel/gpu");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidInputError);
    const message = (error as Error).message;
    expect(message).toMatch(/^the manifest of optimize_kernel\/gpu is invalid:/);
    expect(message).toMatch(/resources\.gpu\.models\.0: .*h100/);
    expect(message).toMatch(/resources\.cpus: /);
    expect(message).toMatch(/scoring\.aggregation: .*"min"/);
  });

  test("rejects a GPU count range whose low end is above its high end", () => {
    const bad = { ...goodManifest, resources: { ...goodManifest.resources, gpu: { countRange: [4, 2], models: ["h100"] } } };
    expect(() => parseWith(Manifest, bad, "manifest")).toThrow(/resources\.gpu\.countRange: countRange must be \[low, high\]/);
  });

  test("rejects a manifest without a canary uuid", () => {
    expect(() => parseWith(Manifest, { ...goodManifest, canary: "none" }, "manifest")).toThrow(/canary/);
  });
});

describe("ScoreOutcome and ScoreLogEntry", () => {
  test("a scored outcome must carry a finite number", () => {
    expect(ScoreOutcome.safeParse({ kind: "scored", value: Number.NaN }).success).toBe(false);
    expect(ScoreOutcome.safeParse({ kind: "scored", value: Number.POSITIVE_INFINITY }).success).toBe(false);
    expect(ScoreOutcome.safeParse({ kind: "invalid", reason: "output differs at index 7" }).success).toBe(true);
  });

  test("an entry defaults message and details to empty objects", () => {
    const entry = ScoreLogEntry.parse({
      timestamp: "2026-11-29T12:00:00.000Z",
      elapsedSeconds: 12.5,
      outcome: { kind: "timedOut", afterSeconds: 20 },
    });
    expect(entry.message).toEqual({});
    expect(entry.details).toEqual({});
  });
});

describe("RunEvent", () => {
  test("unknown event types are rejected", () => {
    expect(RunEvent.safeParse({ type: "teleported", ts: "2026-11-29T12:00:00.000Z" }).success).toBe(false);
  });

  test("an action names one of the five tools, a finished run one of the limits", () => {
    const ts = "2026-11-29T12:00:00.000Z";
    expect(RunEvent.safeParse({ type: "action", ts, actionId: "a1", tool: "bash", input: {} }).success).toBe(true);
    expect(RunEvent.safeParse({ type: "action", ts, actionId: "a1", tool: "teleport", input: {} }).success).toBe(false);
    const finished = { type: "run_finished", ts, stopReason: "limit", finalRaw: null, normalized: null };
    expect(RunEvent.safeParse({ ...finished, limit: "tokens" }).success).toBe(true);
    expect(RunEvent.safeParse({ ...finished, limit: "patience" }).success).toBe(false);
  });
});

describe("RunSpec", () => {
  const spec = {
    participant: { kind: "agent", alias: "a", scaffold: "replay" },
    environment: "optimize_kernel",
    variant: "mini",
    task: "main",
    limits: {},
    direction: "min",
    aggregation: "min",
  };

  test("a spec written by an older rebench still reads: no provenance, config keys it no longer knows dropped", () => {
    const old = RunSpec.parse({ ...spec, config: { sandbox: "local", driver: "orchestrator", retired: 3 } });
    expect(old.config).toEqual({ sandbox: "local", driver: "orchestrator" });
    expect(old.provenance).toBeUndefined();
  });

  test("config is typed: a driver or replay actions it does not know are refused", () => {
    expect(RunSpec.safeParse({ ...spec, config: { driver: "robot" } }).success).toBe(false);
    expect(RunSpec.safeParse({ ...spec, config: { actions: "everything" } }).success).toBe(false);
    expect(RunSpec.parse({ ...spec, config: { agent: { anything: [1, 2] }, actions: [{ tool: "score" }] } }).config.agent).toEqual({ anything: [1, 2] });
  });
});
