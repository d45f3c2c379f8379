/**
 * @module
 * The suite score: the equal-weight mean over environments, with the environments it covers said
 * explicitly (a missing environment is left out, never counted as zero).
 */

export interface SuiteMean {
  /** Mean over the covered environments; null when none is covered. */
  score: number | null;
  /** How many environments have a score. */
  coverage: number;
}

/** Equal-weight mean of the non-missing per-environment scores. */
export function suiteMean(scores: Readonly<Record<string, number | null>>): SuiteMean {
  let sum = 0;
  let coverage = 0;
  for (const value of Object.values(scores)) {
    if (value === null) continue;
    sum += value;
    coverage += 1;
  }
  return { score: coverage === 0 ? null : sum / coverage, coverage };
}
