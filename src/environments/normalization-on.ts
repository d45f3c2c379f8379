/**
 * @module
 * Which normalization constants a run of an environment variant gets on a machine: the calibration.json
 * entry of the machine's class, the paper's constants for `paper` (the same on every machine), the
 * family's declared constants for a variant calibration.json has no entry for at all; otherwise none, with
 * the reason and the command that makes them. Never the constants of another class.
 */
import { calibrationConstants, type MachineInfo, machineClass, type NormalizationConstants } from "../core/index.js";
import type { VariantDefinition } from "./contract.js";

export interface NormalizationOn {
  /** The machine's class for the variant; null for a GPU variant on a machine without a GPU. */
  machineClass: string | null;
  constants?: NormalizationConstants;
  /** Why there are no constants, with the command that makes them (one line); set exactly when `constants` is not. */
  missing?: string;
}

export function normalizationOn(environment: string, definition: VariantDefinition, machine: MachineInfo): NormalizationOn {
  const variant = definition.variant;
  const named = machineClass(machine, definition.classKind) ?? null;
  if (variant === "paper") {
    return definition.normalization
      ? { machineClass: named, constants: definition.normalization }
      : { machineClass: named, missing: `${environment}/paper has no paper constants` };
  }
  const command = `rebench calibrate ${environment} --variant ${variant} --write`;
  const classes = Object.keys(definition.calibrations);
  if (classes.length === 0) {
    return definition.normalization
      ? { machineClass: named, constants: definition.normalization }
      : { machineClass: named, missing: `${environment}/${variant} is not calibrated: run \`${command}\`` };
  }
  if (named === null) {
    return { machineClass: null, missing: `${environment}/${variant} is calibrated per GPU model and this machine has no GPU: run it on a GPU machine` };
  }
  const entry = definition.calibrations[named];
  if (entry) return { machineClass: named, constants: calibrationConstants(named, entry) };
  return {
    machineClass: named,
    missing: `${environment}/${variant} has no calibration for ${named} (only ${classes.join("; ")}): run \`${command}\` on a machine of that class`,
  };
}
