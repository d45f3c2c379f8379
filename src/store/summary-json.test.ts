import { describe, expect, test } from "vitest";
import { RunSummary } from "../core/index.js";
import { schemaOneRun } from "./store.contract.js";
import { decodeSummary, encodeSummary, summarySchemaId } from "./summary-json.js";

// An old store's summary (no job, review or token kinds), with the schema's defaults.
const summary = RunSummary.parse(schemaOneRun().summary);

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
