/**
 * @module
 * Where an agent's score@k falls among human experts: per environment, the percentile rank of the
 * agent's score among the human final scores of that environment, then the mean over the environments
 * where both exist.
 */

export interface HumanPercentileOptions {
  /**
   * How ties with human scores count: `mean` (default) counts half of the tied humans as beaten (the
   * average of `strict` and `weak`), `strict` counts humans strictly below, `weak` those at or below.
   */
  kind?: "mean" | "strict" | "weak";
}

export interface HumanPercentile {
  /** Mean over `environments`, in percent (0 to 100); null when no environment has both scores. */
  percentile: number | null;
  /** Percentile rank per environment where the agent has a score and humans have at least one. */
  environments: Record<string, number>;
}

/** Percentile rank (0 to 100) of `score` among `humanScores` (non-empty). */
function percentileRank(score: number, humanScores: readonly number[], kind: HumanPercentileOptions["kind"] = "mean"): number {
  let below = 0;
  let tied = 0;
  for (const h of humanScores) {
    if (h < score) below += 1;
    else if (h === score) tied += 1;
  }
  const beaten = kind === "strict" ? below : kind === "weak" ? below + tied : below + tied / 2;
  return (100 * beaten) / humanScores.length;
}

export function humanPercentile(
  agentScores: Readonly<Record<string, number | null>>,
  humanScores: Readonly<Record<string, readonly number[]>>,
  options: HumanPercentileOptions = {},
): HumanPercentile {
  const environments: Record<string, number> = {};
  for (const [environment, score] of Object.entries(agentScores)) {
    const humans = humanScores[environment];
    if (score === null || !humans || humans.length === 0) continue;
    environments[environment] = percentileRank(score, humans, options.kind);
  }
  const values = Object.values(environments);
  return {
    percentile: values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length,
    environments,
  };
}
