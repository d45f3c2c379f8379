/**
 * @module
 * `calibration.json` beside an environment's `family.ts`: read synchronously when the family is defined
 * (its `mini` and `gpu` numbers become the normalization constants), written by `rebench calibrate --write`.
 * A malformed file fails loudly with its path, never silently falls back to other constants.
 */
import { existsSync, readFileSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { CalibrationFile, InvalidInputError, parseWith, VARIANTS, type Variant, type VariantCalibration } from "../core/index.js";

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
  return parseWith(CalibrationFile, value, file);
}

/** Record `calibration` under `variant` in the environment's calibration file, keeping the other variants. */
export async function writeVariantCalibration(dir: string, variant: Variant, calibration: VariantCalibration, canary: string): Promise<string> {
  const file = calibrationPath(dir);
  const merged: CalibrationFile = { ...readCalibrationFile(dir), canary, [variant]: calibration };
  const ordered: Record<string, unknown> = { canary: merged.canary };
  for (const v of VARIANTS) if (merged[v]) ordered[v] = merged[v];
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(ordered, null, 2)}\n`);
  await rename(temporary, file);
  return file;
}
