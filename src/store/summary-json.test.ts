import { describe, expect, test } from "vitest";
import { RunSummary } from "../core/index.js";
import { decodeSummary, encodeSummary, summarySchemaId } from "./summary-json.js";

const summary = RunSummary.parse({
  id: "r0000000000001",
  spec: {
    participant: { kind: "agent", alias: "m", scaffold: "replay" },
    environment: "optimize_kernel",
    variant: "mini",
    task: "main",
    limits: { workingSeconds: 60 },
    direction: "min",
    aggregation: "min",
  },
  state: "queued",
  createdAt: "2026-12-07T00:00:00.000Z",
  updatedAt: "2026-12-07T00:00:00.000Z",
  startedAt: null,
  finishedAt: null,
  usage: { inputTokens: 0, outputTokens: 0, wallSeconds: 0, workingSeconds: 0, pausedSeconds: 0, costUsd: 0, actions: 0 },
  scoreCalls: 0,
  validScores: 0,
  currentRaw: null,
  finalRaw: null,
  normalized: null,
  stopReason: null,
  error: null,
  lastSeq: 1,
});

describe("stored summaries", () => {
  test("a summary this schema wrote reads back as it was, without its mark", () => {
    expect(decodeSummary(encodeSummary(summary))).toStrictEqual(summary);
  });

  test("a summary without the mark, or with another schema's, is checked and given the schema's defaults", () => {
    const { contendedScores: _c, job: _j, review: _r, ...older } = summary;
    expect(decodeSummary(JSON.stringify(older))).toStrictEqual(summary);
    expect(decodeSummary(JSON.stringify({ _schema: "0000000000000000", ...older }))).toStrictEqual(summary);
    expect(() => decodeSummary(JSON.stringify({ _schema: "0000000000000000", ...summary, scoreCalls: -1 }))).toThrow();
  });

  test("any change to the schema changes the id the mark must match", () => {
    const id = summarySchemaId(RunSummary);
    expect(summarySchemaId(RunSummary)).toBe(id);
    expect(summarySchemaId(RunSummary.extend({ added: RunSummary.shape.scoreCalls.default(0) }))).not.toBe(id);
    expect(summarySchemaId(RunSummary.extend({ scoreCalls: RunSummary.shape.scoreCalls.max(10) }))).not.toBe(id);
  });
});
