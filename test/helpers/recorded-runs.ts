/**
 * @module
 * A store's worth of recorded runs for the tests of reports, exports and store copies: agents and humans on
 * three environments, finished and not, one without normalization constants; `record` writes one through
 * the RunStore interface as a run would.
 */
import { type Aggregation, aggregateScoreLog, type Direction, type NormalizationConstants, type ScoreOutcome } from "../../src/core/index.js";
import type { RunStore } from "../../src/store/index.js";

export interface Recorded {
  alias: string;
  kind?: "agent" | "human";
  environment: "optimize_kernel" | "scaling_law" | "fix_embedding";
  limit: number;
  /** [elapsed seconds, raw score or null for an invalid entry] */
  log: [number, number | null][];
  tokens?: number;
  finish?: boolean;
  constants?: boolean;
}

const SCORING: Record<Recorded["environment"], { direction: Direction; aggregation: Aggregation; start: number; reference: number }> = {
  optimize_kernel: { direction: "min", aggregation: "min", start: 2, reference: 1 },
  fix_embedding: { direction: "min", aggregation: "min", start: 2.2, reference: 0.3 },
  scaling_law: { direction: "max", aggregation: "last", start: 0.2, reference: 0.8 },
};

/** The calibration.json entry fix_embedding's recorded runs are normalized with. */
export const FIX_EMBEDDING_ENTRY = { machineClass: "AMD EPYC, 2 cores", date: "2026-12-01T17:44:35.892Z", runs: 3 };

/** The constants a recorded run of `environment` gets: shipped ones, or fix_embedding's calibration entry. */
export function constantsOf(environment: Recorded["environment"]): NormalizationConstants {
  const { start, reference } = SCORING[environment];
  return environment === "fix_embedding" ? { start, reference, source: "calibration", entry: FIX_EMBEDDING_ENTRY } : { start, reference, source: "shipped" };
}

export async function record(store: RunStore, r: Recorded): Promise<void> {
  const scoring = SCORING[r.environment];
  const run = await store.createRun({
    participant: { kind: r.kind ?? "agent", alias: r.alias, ...(r.kind === "human" ? {} : { scaffold: "modular", model: `${r.alias}-model` }) },
    environment: r.environment,
    variant: "mini",
    task: "main",
    limits: { workingSeconds: r.limit },
    timeLimitSeconds: r.limit,
    direction: scoring.direction,
    aggregation: scoring.aggregation,
    ...(r.constants === false ? {} : { normalization: constantsOf(r.environment) }),
    // fix_embedding's runs are normalized as today's are: by the calibration entry of their machine's class.
    ...(r.environment === "fix_embedding" && r.constants !== false ? { machineClass: FIX_EMBEDDING_ENTRY.machineClass } : {}),
  });
  await store.append(run.id, { type: "state_changed", to: "running" });
  const outcomes = r.log.map(([, raw]): ScoreOutcome => (raw === null ? { kind: "invalid", reason: "wrong" } : { kind: "scored", value: raw }));
  for (const [i, [elapsedSeconds]] of r.log.entries()) {
    const entry = {
      timestamp: new Date(Date.UTC(2026, 10, 29, 12, 0, 0) + elapsedSeconds * 1000).toISOString(),
      elapsedSeconds,
      outcome: outcomes[i]!,
      message: {},
      details: {},
    };
    await store.append(run.id, { type: "score_logged", trigger: "action", entry });
  }
  if (r.kind !== "human") {
    await store.append(run.id, { type: "generation", model: "m", inputTokens: r.tokens ?? 1000, outputTokens: 100, costUsd: (r.tokens ?? 1000) / 1e5 });
  }
  const working = Math.min(r.limit, (r.log[r.log.length - 1]?.[0] ?? 0) + 60);
  await store.append(run.id, { type: "time_reported", wallSeconds: working + 5, workingSeconds: working, pausedSeconds: 5 });
  if (r.finish === false) return;
  const final = aggregateScoreLog(
    outcomes.map((outcome) => ({ outcome })),
    scoring.aggregation,
  );
  const finalRaw = final.kind === "scored" ? final.raw : null;
  await store.append(run.id, { type: "run_finished", stopReason: "limit", limit: "workingSeconds", finalRaw, normalized: null });
}

export const RUNS: Recorded[] = [
  {
    alias: "agent-a",
    environment: "optimize_kernel",
    limit: 1800,
    log: [
      [60, 1.8],
      [600, 1.4],
      [900, null],
    ],
  },
  {
    alias: "agent-a",
    environment: "optimize_kernel",
    limit: 1800,
    log: [
      [120, 1.9],
      [1500, 1.1],
    ],
    tokens: 5000,
  },
  { alias: "agent-a", environment: "optimize_kernel", limit: 1800, log: [[300, null]] },
  {
    alias: "agent-a",
    environment: "scaling_law",
    limit: 1800,
    log: [
      [1000, 0.5],
      [1700, 0.4],
    ],
  },
  { alias: "agent-a", environment: "scaling_law", limit: 1800, log: [[1700, 0.62]] },
  {
    alias: "agent-a",
    environment: "fix_embedding",
    limit: 3600,
    log: [
      [200, 1.5],
      [3000, 0.9],
    ],
  },
  { alias: "agent-b", environment: "optimize_kernel", limit: 3600, log: [[100, 1.5]] },
  { alias: "agent-b", environment: "fix_embedding", limit: 3600, log: [[1000, 2.5]] },
  {
    alias: "alice",
    kind: "human",
    environment: "optimize_kernel",
    limit: 7200,
    log: [
      [3600, 1.3],
      [7000, 1.05],
    ],
  },
  { alias: "bob", kind: "human", environment: "scaling_law", limit: 7200, log: [[7100, 0.7]] },
  { alias: "bob", kind: "human", environment: "fix_embedding", limit: 7200, log: [[5000, 1.0]] },
  // Left out of comparisons: still running, and no normalization constants.
  { alias: "agent-a", environment: "optimize_kernel", limit: 1800, log: [[60, 1.2]], finish: false },
  { alias: "agent-b", environment: "scaling_law", limit: 3600, log: [[60, 0.3]], constants: false },
];
