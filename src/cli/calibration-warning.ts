/**
 * @module
 * The one-line warning `rebench run`, `calibrate` and `main` print when this machine is not the one an
 * environment variant was calibrated on: its normalization constants (timings, above all) then do not
 * describe this machine, and the variant should be calibrated here.
 */
import { machineDifference, probeMachine, type Variant } from "../core/index.js";
import { getVariant } from "../environments/index.js";
import type { Io } from "./io.js";

/** Print the warning to stderr when it applies, and return it (for `--json` output); undefined otherwise. */
export async function warnIfCalibratedElsewhere(io: Io, environment: string, variant: Variant): Promise<string | undefined> {
  const calibration = getVariant(environment, variant).calibration;
  if (!calibration || variant === "paper") return undefined;
  const difference = machineDifference(calibration.machine, await probeMachine());
  if (difference === undefined) return undefined;
  const warning =
    `warning: ${environment}/${variant} was calibrated on another machine (${difference}); its normalized scores ` +
    `do not hold here until you run \`rebench calibrate ${environment} --variant ${variant} --write\` on this machine`;
  io.err(`rebench: ${warning}\n`);
  return warning;
}
