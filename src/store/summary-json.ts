/**
 * @module
 * A run summary as the stores keep it: JSON marked with the id of the summary schema that wrote it. Reading
 * a row written under the current schema is `JSON.parse` alone; any other row (older rebench, another
 * schema, hand-made) goes through `RunSummary.parse`, which fills defaults and checks it. Checking every
 * row took most of a large read: 100,000 summaries took 3.3 s to check and 0.9 s to parse, on a 2-core VM.
 * The id is a hash of the schema's JSON Schema, so any change to RunSummary's fields, defaults or checks
 * changes it without anyone having to remember to.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { RunSummary } from "../core/index.js";

/** The key the mark is kept under, in the stored JSON only (never in a RunSummary: parsing strips it). */
const MARK = "_schema";

/** The id of `schema`: what a stored summary's mark must equal for it to be read without checking. */
export function summarySchemaId(schema: z.ZodType): string {
  const described = JSON.stringify(z.toJSONSchema(schema, { unrepresentable: "any" }));
  return createHash("sha256").update(described).digest("hex").slice(0, 16);
}

let current: string | undefined;
function currentId(): string {
  current ??= summarySchemaId(RunSummary);
  return current;
}

/** The JSON a store writes for `summary` (a RunSummary this process made or checked). */
export function encodeSummary(summary: RunSummary): string {
  return JSON.stringify({ [MARK]: currentId(), ...summary });
}

/** A stored summary's JSON as a RunSummary: unchecked when this schema wrote it, else parsed. */
export function decodeSummary(text: string): RunSummary {
  const value = JSON.parse(text) as Record<string, unknown>;
  if (value[MARK] === currentId()) {
    delete value[MARK];
    return value as RunSummary;
  }
  return RunSummary.parse(value);
}
