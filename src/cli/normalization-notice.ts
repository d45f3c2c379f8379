/**
 * @module
 * The one line `rebench run`, `main` and `exploits` print before their runs when this machine's class has
 * no calibration of the variant: those runs get no normalized score (never the constants of another
 * class), and the line says which command makes one.
 */
import { probeMachine, type Variant } from "../core/index.js";
import { getVariant } from "../environments/index.js";
import { normalizationOn } from "../environments/normalization-on.js";
import type { Io } from "./io.js";

/** Print the notice to stderr when the variant has no constants on this machine, and return it (for `--json`); undefined otherwise. */
export async function noteUnnormalized(io: Io, environment: string, variant: Variant): Promise<string | undefined> {
  const on = normalizationOn(environment, getVariant(environment, variant), await probeMachine());
  if (on.missing === undefined) return undefined;
  const notice = `no normalized scores on this machine: ${on.missing}`;
  io.err(`rebench: ${notice}\n`);
  return notice;
}
