/**
 * @module
 * The environment manifest: the hardware a variant needs and how its scores are read.
 * Mirrors the Task Standard's `manifest.yaml` (resources, scoring) in camelCase.
 */
import { z } from "zod";

export const GPU_MODELS = ["v100", "a10", "a100", "h100", "h200"] as const;
export const GpuModel = z.enum(GPU_MODELS);
export type GpuModel = z.infer<typeof GpuModel>;

export const GpuRequirement = z
  .object({
    countRange: z.tuple([z.number().int().min(1), z.number().int().min(1)]),
    /** Acceptable models; the first is the one calibration numbers refer to. */
    models: z.array(GpuModel).min(1),
  })
  .refine((g) => g.countRange[0] <= g.countRange[1], {
    message: "countRange must be [low, high] with low <= high",
    path: ["countRange"],
  });
export type GpuRequirement = z.infer<typeof GpuRequirement>;

export const Resources = z.object({
  gpu: GpuRequirement.optional(),
  cpus: z.number().int().min(1),
  memoryGb: z.number().positive(),
  storageGb: z.number().positive().optional(),
});
export type Resources = z.infer<typeof Resources>;

/** `min`: lower raw scores are better (ln seconds, ln loss); `max`: higher is better. */
export const Direction = z.enum(["min", "max"]);
export type Direction = z.infer<typeof Direction>;

/** How a score log becomes the final raw score: best (min/max) or last valid entry. */
export const Aggregation = z.enum(["min", "max", "last"]);
export type Aggregation = z.infer<typeof Aggregation>;

export const ScoringConfig = z.object({
  direction: Direction,
  aggregation: Aggregation,
  /** Whether the agent sees the score value of its `score` actions. */
  visibleToAgent: z.boolean(),
  /** Whether a run stopped by a usage limit is still scored (true for every RE-Bench environment). */
  scoreOnUsageLimits: z.boolean(),
  /** Whether the environment logs the starting solution's score when a run starts. */
  logsStartingScore: z.boolean().default(false),
  /**
   * Whether the score depends on how fast things run on this machine: a time (ln seconds), or time limits a
   * solution must meet (rust_codecontests' per-test limits). Scorings of such a variant are flagged when other
   * work shared the machine (src/core/contention.ts), and `rebench calibrate` refuses a busy machine.
   */
  timingSensitive: z.boolean().default(false),
  /**
   * Set where the reference solution works to a wall-clock budget although the scoring calls time nothing
   * (restricted_mlm: its reference trains for a fixed number of minutes): what it does, in a few words. Other
   * work on the machine costs such a reference steps and moves its score, so `rebench calibrate` refuses a busy
   * machine, and --runs-per-gpu, as for a timing-sensitive variant; its scorings are not flagged.
   */
  timedReference: z.string().min(1).optional(),
});
export type ScoringConfig = z.infer<typeof ScoringConfig>;

/**
 * Why a variant's runs need a machine, or a GPU, to themselves, or undefined where they do not: its scorings are
 * timed (`timingSensitive`), or its reference works to a wall-clock budget (`timedReference`). `why` completes
 * "VARIANT …"; `cost` says what runs sharing the hardware would cost each other.
 */
export function quietNeed(scoring: ScoringConfig): { kind: "timing" | "reference"; why: string; cost: string } | undefined {
  if (scoring.timingSensitive) return { kind: "timing", why: "is timing-sensitive", cost: "would slow each other's scored code" };
  if (scoring.timedReference !== undefined) {
    return { kind: "reference", why: `needs a quiet machine (${scoring.timedReference})`, cost: "would cost each other's training steps" };
  }
  return undefined;
}

/** Every timeout is a per-environment setting with a documented default. */
export const Timeouts = z.object({
  /** One protected scoring call, grader start to result file (default 600 s, upstream's global timeout). */
  scoreSeconds: z.number().positive().default(600),
  /** Environment start-up (asset unpacking, warm-up runs). */
  startSeconds: z.number().positive().default(1800),
});
export type Timeouts = z.infer<typeof Timeouts>;

export const Manifest = z.object({
  resources: Resources,
  scoring: ScoringConfig,
  timeouts: Timeouts.default({ scoreSeconds: 600, startSeconds: 1800 }),
  /** Contamination guard: appears in the environment's files so training pipelines can filter them. */
  canary: z.string().uuid(),
});
export type Manifest = z.infer<typeof Manifest>;
export type ManifestInput = z.input<typeof Manifest>;
