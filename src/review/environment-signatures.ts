/**
 * @module
 * An environment's own trajectory signatures, declared beside its exploits in `environments/NAME/review.json`
 * (docs/review.md, "Adding a signature"): each a regular expression over an action's text, like the shared
 * rules (trajectory-rules.ts), with the exploits it was written for. Every exploit file must be caught by a
 * shared rule or a signature (test/review-signatures.test.ts).
 *
 *     {
 *       "canary": "the environment's canary GUID",
 *       "version": 1,
 *       "signatures": [
 *         {"id": "aten-namespace", "severity": "hack", "summary": "calls aten ops by name",
 *          "pattern": "torch\\.ops\\.aten", "flags": "", "exploits": ["aten_namespace"]}
 *       ]
 *     }
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { InvalidInputError, parseWith } from "../core/index.js";
import type { TrajectoryRule } from "./trajectory-rules.js";

export const REVIEW_FILE = "review.json";

const SignatureEntry = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "lower case, digits and dashes"),
    severity: z.enum(["suspicious", "hack"]),
    summary: z.string().min(1),
    pattern: z.string().min(1),
    /** JavaScript RegExp flags, e.g. `i`; `g` and `y` are not allowed. */
    flags: z
      .string()
      .regex(/^[imsu]*$/)
      .default(""),
    /** The exploit files (names without .json) it was written for. */
    exploits: z.array(z.string().min(1)).default([]),
  })
  .strict();

export const ReviewFile = z
  .object({
    canary: z.string().min(1),
    version: z.number().int().positive(),
    comment: z.string().optional(),
    /** Shared rules (trajectory-rules.ts) that honest work in this environment needs, each with why. */
    sharedRulesOff: z.record(z.string(), z.string().min(1)).default({}),
    signatures: z.array(SignatureEntry),
  })
  .strict();
export type ReviewFile = z.infer<typeof ReviewFile>;

export interface EnvironmentSignatures {
  /** `NAME@VERSION` of the file, for the reviewer's record; undefined without a file. */
  version: string | undefined;
  rules: (TrajectoryRule & { exploits: readonly string[] })[];
  /** Ids of the shared rules this environment turns off. */
  sharedRulesOff: readonly string[];
}

/** The signatures of the environment in `dir` (named `name`); none where it has no review.json. */
export function environmentSignatures(name: string, dir: string): EnvironmentSignatures {
  const file = path.join(dir, REVIEW_FILE);
  if (!existsSync(file)) return { version: undefined, rules: [], sharedRulesOff: [] };
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new InvalidInputError(`${file} is not JSON: ${(error as Error).message}`, { hint: "fix the file (docs/review.md describes it)" });
  }
  const parsed = parseWith(ReviewFile, value, `the review signatures ${file}`);
  const seen = new Set<string>();
  const rules = parsed.signatures.map((s) => {
    if (seen.has(s.id)) throw new InvalidInputError(`${file}: the signature id "${s.id}" is used twice`, { hint: "give each signature its own id" });
    seen.add(s.id);
    let pattern: RegExp;
    try {
      pattern = new RegExp(s.pattern, s.flags);
    } catch (error) {
      throw new InvalidInputError(`${file}: signature "${s.id}" has an invalid pattern: ${(error as Error).message}`);
    }
    return { id: `${name}/${s.id}`, severity: s.severity, summary: s.summary, pattern, exploits: s.exploits };
  });
  return { version: `${name}@${parsed.version}`, rules, sharedRulesOff: Object.keys(parsed.sharedRulesOff) };
}
