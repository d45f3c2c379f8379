/**
 * @module
 * What a run is reviewed against, from its spec: the shared trajectory rules with its environment's
 * signatures (review.json), and the score basis: the current calibration entry of the run's machine class
 * (the best-known start and reference on that machine, with their spread), else the run's own constants.
 * The current entry, not the run's, because a run normalized with an entry made before its environment's
 * score changed (fix_embedding's runs of 2026-12-07) would otherwise look far better than the reference.
 */
import type { RunSpec } from "../core/index.js";
import { readCalibrationFile } from "../environments/calibration-file.js";
import { listEnvironments } from "../environments/registry.js";
import { environmentSignatures } from "./environment-signatures.js";
import type { ReviewContext } from "./review-events.js";
import type { ScoreBasis } from "./score-signals.js";
import { TRAJECTORY_RULES } from "./trajectory-rules.js";

/** The version of the shared rules and score signals; raise it with every change to what they flag. */
export const SHARED_RULES_VERSION = "shared@1";

export function reviewContext(spec: Pick<RunSpec, "environment" | "variant" | "machineClass" | "normalization">): ReviewContext {
  const family = listEnvironments().find((f) => f.name === spec.environment);
  const signatures = family ? environmentSignatures(family.name, family.dir) : { version: undefined, rules: [], sharedRulesOff: [] };
  const rules = [...TRAJECTORY_RULES.filter((r) => !signatures.sharedRulesOff.includes(r.id)), ...signatures.rules];
  return {
    rules,
    rulesVersion: signatures.version ? `${SHARED_RULES_VERSION} + ${signatures.version}` : SHARED_RULES_VERSION,
    basis: scoreBasis(spec, family?.dir),
  };
}

function scoreBasis(spec: Pick<RunSpec, "variant" | "machineClass" | "normalization">, dir: string | undefined): ScoreBasis | undefined {
  const entry = dir && spec.machineClass ? readCalibrationFile(dir)?.[spec.variant]?.[spec.machineClass] : undefined;
  if (entry && entry.start.mean !== entry.reference.mean) {
    return {
      start: entry.start.mean,
      reference: entry.reference.mean,
      std: Math.max(entry.start.std, entry.reference.std),
      source: `calibration of ${spec.machineClass}, ${entry.date.slice(0, 10)}`,
    };
  }
  const own = spec.normalization;
  return own ? { start: own.start, reference: own.reference, std: 0, source: `the run's constants (${own.source})` } : undefined;
}
