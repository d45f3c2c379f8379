/**
 * @module
 * Which constants normalized a score, in a few words, for every place that prints a normalized score.
 * Free of zod, so the METR importer's fast path can use it.
 */

/** The fields of NormalizationConstants (normalize.ts) a label reads. */
export interface LabelledConstants {
  source: string;
  entry?: { machineClass: string; date: string; runs: number } | undefined;
}

/**
 * The calibration entry ("AMD EPYC, 2 cores, 2026-11-29, N=5"), "paper", "shipped", or "calibration" for a
 * run created before entries were recorded.
 */
export function normalizationLabel(constants: LabelledConstants): string {
  if (constants.entry) return `${constants.entry.machineClass}, ${constants.entry.date.slice(0, 10)}, N=${constants.entry.runs}`;
  return constants.source;
}
