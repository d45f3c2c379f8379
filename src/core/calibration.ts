/**
 * @module
 * Calibration: an environment variant's starting and reference solutions run N times on one machine, the
 * mean and standard deviation of their final raw scores, and the rule that makes the numbers usable as
 * normalization constants: the gap between the two means is at least ten times the larger standard
 * deviation. `environments/<name>/calibration.json` holds, per variant, one `VariantCalibration` per machine
 * class (`CalibrationFile`, machine-class.ts); `rebench calibrate --write` writes the entry of the class it
 * ran on and `defineEnvironment` reads them all.
 */
import { z } from "zod";
import { InvalidInputError } from "./errors.js";
import { MachineInfo } from "./machine.js";
import type { Direction } from "./manifest.js";
import type { NormalizationConstants } from "./normalize.js";

/** The gap between start and reference must be at least this many times the larger standard deviation. */
export const CALIBRATION_GAP_FACTOR = 10;

export const ScoreStats = z.object({
  mean: z.number().finite(),
  /** Sample standard deviation (n − 1 in the denominator). */
  std: z.number().finite().nonnegative(),
  n: z.number().int().min(2),
  /** Each run's final raw score, in run order. */
  values: z.array(z.number().finite()).min(2),
});
export type ScoreStats = z.infer<typeof ScoreStats>;

export const VariantCalibration = z.object({
  machine: MachineInfo,
  /** When the runs ended (ISO 8601). */
  date: z.string().datetime({ offset: true }),
  /** Runs of each solution. */
  runs: z.number().int().min(2),
  start: ScoreStats,
  reference: ScoreStats,
  /** |reference.mean − start.mean| / max(start.std, reference.std); null when both deviations are 0. */
  gapOverStd: z.number().finite().nonnegative().nullable(),
  /** Free text: conditions of the measurement worth knowing. */
  note: z.string().optional(),
  /** Mean wall-clock minutes of one run of each solution (set-up to end): what `rebench calibrate --all` expects a calibration to take. */
  minutes: z.object({ start: z.number().nonnegative(), reference: z.number().nonnegative() }).optional(),
});
export type VariantCalibration = z.infer<typeof VariantCalibration>;

/** A variant's calibrations, one per machine class (the key: "AMD EPYC, 2 cores", "NVIDIA H200"). */
export const ClassCalibrations = z.record(z.string().min(1), VariantCalibration);
export type ClassCalibrations = z.infer<typeof ClassCalibrations>;

/** `environments/<name>/calibration.json`: the environment's canary, then per variant its calibrations by machine class. */
export const CalibrationFile = z
  .object({
    canary: z.string().uuid().optional(),
    mini: ClassCalibrations.optional(),
    gpu: ClassCalibrations.optional(),
    paper: ClassCalibrations.optional(),
  })
  .strict();
export type CalibrationFile = z.infer<typeof CalibrationFile>;

/** The script that turns a calibration.json of one entry per variant (before machine classes) into this form. */
export const CALIBRATION_MIGRATION = "npx tsx scripts/migrate-calibration.ts";

/** Whether `value` is a calibration.json of the form before machine classes: a variant's key holds one calibration. */
export function isSingleEntryCalibrationFile(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  return ["mini", "gpu", "paper"].some((variant) => {
    const entry = (value as Record<string, unknown>)[variant];
    return typeof entry === "object" && entry !== null && "machine" in entry && "start" in entry;
  });
}

/** Mean, sample standard deviation and count of at least two final raw scores. */
export function scoreStats(values: readonly number[]): ScoreStats {
  if (values.length < 2) throw new InvalidInputError(`calibration needs at least 2 scores per solution, got ${values.length}`);
  const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
  const variance = values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (values.length - 1);
  return { mean, std: Math.sqrt(variance), n: values.length, values: [...values] };
}

export interface CalibrationVerdict {
  /** |reference.mean − start.mean|. */
  gap: number;
  largerStd: number;
  /** gap / largerStd; null when both deviations are 0. */
  gapOverStd: number | null;
  /** Whether the reference's mean beats the start's in the environment's direction. */
  referenceBetter: boolean;
  /** The gap is positive, at least CALIBRATION_GAP_FACTOR × largerStd, and the reference is better. */
  pass: boolean;
}

export function calibrationVerdict(start: ScoreStats, reference: ScoreStats, direction: Direction): CalibrationVerdict {
  const gap = Math.abs(reference.mean - start.mean);
  const largerStd = Math.max(start.std, reference.std);
  const referenceBetter = direction === "min" ? reference.mean < start.mean : reference.mean > start.mean;
  return {
    gap,
    largerStd,
    gapOverStd: largerStd === 0 ? null : gap / largerStd,
    referenceBetter,
    pass: referenceBetter && gap > 0 && gap >= CALIBRATION_GAP_FACTOR * largerStd,
  };
}

/** The normalization constants the calibration of `machineClass` gives: the two means, and which entry they are. */
export function calibrationConstants(machineClass: string, calibration: VariantCalibration): NormalizationConstants {
  const date = calibration.date.slice(0, 10);
  return {
    start: calibration.start.mean,
    reference: calibration.reference.mean,
    source: "calibration",
    note: `rebench calibrate, ${calibration.runs} runs each on ${calibration.machine.gpu ?? calibration.machine.cpuModel}, ${date}`,
    entry: { machineClass, date: calibration.date, runs: calibration.runs },
  };
}
