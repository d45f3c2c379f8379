/**
 * @module
 * Synthetic runs in METR's JSON Lines format for benchmarks and tests: a human participant with 8-hour
 * attempts (time_limit 0), several agents at 30-minute, 2-hour and 8-hour limits on all seven families,
 * a few null scores and a few rows of other families (which the importer skips). Deterministic for a seed.
 * The participants and scores are invented; they are not METR's results.
 */
import { METR_FAMILIES } from "../src/analysis/metr/metr-families.js";
import { seededRandom } from "../src/analysis/seeded-random.js";

export interface GenerateMetrRunsOptions {
  /** About how many rows to write. Default 2,000. */
  rows?: number;
  /** Default 1. */
  seed?: number;
}

const AGENTS = ["model-a (modular)", "model-a (AIDE)", "model-b (modular)", "model-b (AIDE)", "model-c (modular)", "model-d (modular)"];
/** Runs per family at each agent time limit, relative weights. */
const AGENT_LIMITS: [number, number][] = [
  [1800, 32],
  [7200, 10],
  [28800, 4],
];
const HUMAN_RUNS_PER_FAMILY = 9;

export function generateMetrRuns(options: GenerateMetrRunsOptions = {}): string {
  const { rows = 2000, seed = 1 } = options;
  const source = seededRandom(seed, "generate-metr-runs");
  const random = () => source.next();
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const families = Object.keys(METR_FAMILIES);
  const perAgentFamily = AGENT_LIMITS.reduce((sum, [, n]) => sum + n, 0);
  const scale = Math.max(0.05, (rows - HUMAN_RUNS_PER_FAMILY * families.length) / (AGENTS.length * families.length * perAgentFamily));
  const lines: string[] = [];
  let id = 100000;
  const write = (fields: Record<string, unknown>) => lines.push(JSON.stringify({ run_id: id++, ...fields }));
  const record = (family: string, alias: string, timeLimit: number, score: number | null) => {
    const started = 1_720_000_000_000 + id * 60_000;
    const human = alias === "human";
    const hours = (timeLimit || 28800) / 3600;
    write({
      task_id: `${family}/main`,
      task_family: family,
      alias,
      model: human ? "human" : alias.split(" ")[0],
      score,
      score_binarized: score === null ? null : score >= 1 ? 1 : 0,
      time_limit: timeLimit,
      started_at: started,
      completed_at: started + hours * 3_600_000,
      fatal_error_from: score === null ? "agent" : null,
      human_minutes: 480,
      human_score: null,
      human_source: human ? "baseline" : null,
      dollar_equivalent: human ? null : Math.round(hours * (2 + 6 * random()) * 100) / 100,
      total_tokens: human ? null : Math.round(hours * (2e5 + 8e5 * random())),
      equal_task_weight: 1 / families.length,
      invsqrt_task_weight: 1 / families.length,
    });
  };
  families.forEach((family, f) => {
    const difficulty = 0.3 + 0.1 * f;
    for (let i = 0; i < HUMAN_RUNS_PER_FAMILY; i++) {
      record(family, "human", 0, random() < 0.15 ? 0 : Math.max(0, 0.9 - difficulty / 2 + 0.45 * normal()));
    }
    AGENTS.forEach((alias, a) => {
      const skill = 0.15 + 0.08 * a;
      for (const [limit, weight] of AGENT_LIMITS) {
        const count = Math.max(1, Math.round(weight * scale));
        const bonus = 0.12 * Math.log2(limit / 1800);
        for (let i = 0; i < count; i++) {
          const fails = random() < 0.3;
          const score = random() < 0.01 ? null : fails ? 0 : Math.max(0, skill + bonus - difficulty / 3 + 0.35 * normal());
          record(family, alias, limit, score);
        }
      }
    });
  });
  for (let i = 0; i < 12; i++) record(i % 2 ? "crypto_puzzle" : "swe_tasks", AGENTS[i % AGENTS.length]!, 1800, random());
  return `${lines.join("\n")}\n`;
}

// Run directly: write the file. `npx tsx bench/generate-metr-runs.ts OUT.jsonl [ROWS] [SEED]`
if (process.argv[1]?.endsWith("generate-metr-runs.ts")) {
  const [out, rows, seed] = process.argv.slice(2);
  if (!out || out.startsWith("-")) {
    console.error("usage: npx tsx bench/generate-metr-runs.ts OUT.jsonl [ROWS] [SEED]");
    process.exitCode = out === "--help" || out === "-h" ? 0 : 2;
  } else {
    const { writeFileSync } = await import("node:fs");
    writeFileSync(out, generateMetrRuns({ rows: rows ? Number(rows) : undefined, seed: seed ? Number(seed) : undefined }));
  }
}
