/**
 * @module
 * Calibration: an environment variant's starting and reference solutions run N times on one machine, the
 * mean and standard deviation of their final raw scores, and the rule that makes the numbers usable as
 * normalization constants: the gap between the two means is at least ten times the larger standard
 * deviation. `environments/<name>/calibration.json` holds one `VariantCalibration` per variant
 * (`CalibrationFile`); `rebench calibrate --write` writes it and `defineEnvironment` reads it.
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
});
export type VariantCalibration = z.infer<typeof VariantCalibration>;

/** `environments/<name>/calibration.json`: the environment's canary, then one calibration per variant. */
export const CalibrationFile = z
  .object({
    canary: z.string().uuid().optional(),
    mini: VariantCalibration.optional(),
    gpu: VariantCalibration.optional(),
    paper: VariantCalibration.optional(),
  })
  .strict();
export type CalibrationFile = z.infer<typeof CalibrationFile>;

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

/** The normalization constants a calibration gives: the two means. */
export function calibrationConstants(calibration: VariantCalibration): NormalizationConstants {
  const date = calibration.date.slice(0, 10);
  return {
    start: calibration.start.mean,
    reference: calibration.reference.mean,
    source: "calibration",
    note: `rebench calibrate, ${calibration.runs} runs each on ${calibration.machine.gpu ?? calibration.machine.cpuModel}, ${date}`,
  };
}
