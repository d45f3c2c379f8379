/**
 * @module
 * `calibration.json` beside an environment's `family.ts`: read synchronously when the family is defined
 * (its `mini` and `gpu` entries, one per machine class, become the normalization constants of runs on
 * machines of that class), written by `rebench calibrate --write` one entry at a time. A malformed file, or
 * one of the form before machine classes, fails loudly with its path, never silently falls back to other
 * constants.
 */
import { existsSync, readFileSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  CALIBRATION_MIGRATION,
  CalibrationFile,
  InvalidInputError,
  isSingleEntryCalibrationFile,
  parseWith,
  VARIANTS,
  type Variant,
  type VariantCalibration,
} from "../core/index.js";

export const CALIBRATION_FILE = "calibration.json";

export function calibrationPath(dir: string): string {
  return path.join(dir, CALIBRATION_FILE);
}

/** The environment's calibration file, or undefined when it has none. */
export function readCalibrationFile(dir: string): CalibrationFile | undefined {
  const file = calibrationPath(dir);
  if (!existsSync(file)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new InvalidInputError(`${file} is not JSON: ${(error as Error).message}`, {
      hint: "fix or delete it, then run `rebench calibrate NAME --variant V --write` again",
    });
  }
  if (isSingleEntryCalibrationFile(value)) {
    throw new InvalidInputError(
      `${file} has one calibration per variant, the form before machine classes: convert it, every number kept, with \`${CALIBRATION_MIGRATION} ${file}\``,
    );
  }
  return parseWith(CalibrationFile, value, file);
}

/**
 * Record `calibration` as the entry of `machineClass` under `variant` in the environment's calibration file,
 * replacing that class's entry only and keeping the other classes and variants.
 */
export async function writeVariantCalibration(
  dir: string,
  variant: Variant,
  machineClass: string,
  calibration: VariantCalibration,
  canary: string,
): Promise<string> {
  const current = readCalibrationFile(dir) ?? {};
  const merged: CalibrationFile = { ...current, canary, [variant]: { ...current[variant], [machineClass]: calibration } };
  return writeCalibrationFile(calibrationPath(dir), merged);
}

/** Write a calibration file atomically: the canary, then the variants in order, each with its classes sorted. */
export async function writeCalibrationFile(file: string, calibrations: CalibrationFile): Promise<string> {
  const ordered: Record<string, unknown> = { canary: calibrations.canary };
  for (const v of VARIANTS) {
    const classes = calibrations[v];
    if (classes)
      ordered[v] = Object.fromEntries(
        Object.keys(classes)
          .sort()
          .map((key) => [key, classes[key]]),
      );
  }
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(ordered, null, 2)}\n`);
  await rename(temporary, file);
  return file;
}
