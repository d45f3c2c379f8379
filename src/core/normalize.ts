/**
 * @module
 * Normalization: the starting solution scores 0, the reference solution 1.
 */
import { z } from "zod";
import { InvalidInputError } from "./errors.js";

export const NormalizationConstants = z
  .object({
    /** Raw score of the starting solution. */
    start: z.number().finite(),
    /** Raw score of the reference solution. */
    reference: z.number().finite(),
    /** Where the constants come from. */
    source: z.enum(["paper", "calibration", "shipped"]),
    note: z.string().optional(),
    /**
     * The calibration.json entry the constants are (source `calibration`): its machine class, when it was
     * measured and how many runs of each solution. Absent in runs created before machine classes.
     */
    entry: z
      .object({
        machineClass: z.string().min(1),
        date: z.string().datetime({ offset: true }),
        runs: z.number().int().min(1),
      })
      .optional(),
  })
  .refine((c) => c.start !== c.reference, { message: "start and reference raw scores must differ" });
export type NormalizationConstants = z.infer<typeof NormalizationConstants>;

/**
 * `max(0, (raw - start) / (reference - start))`, uncapped above. Works for both directions: for
 * lower-is-better scores numerator and denominator are both negative.
 */
export function normalize(raw: number, constants: Pick<NormalizationConstants, "start" | "reference">): number {
  const { start, reference } = constants;
  if (!Number.isFinite(raw)) throw new InvalidInputError(`cannot normalize a non-finite raw score (${raw})`);
  if (start === reference) throw new InvalidInputError("cannot normalize: start and reference raw scores are equal");
  return Math.max(0, (raw - start) / (reference - start));
}
