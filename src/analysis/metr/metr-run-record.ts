/**
 * @module
 * One line of METR's published run records (JSON Lines), as the importer reads it and the exporter
 * writes it. `score` is already normalized; `time_limit` is in seconds (`0` for humans, whose attempts
 * were 8 hours); times are epoch milliseconds. Optional `rebench_*` fields carry what rebench records and
 * METR's format has no column for, so an export reads back without loss.
 */
import { z } from "zod";
import { NormalizationConstants, Provenance } from "../../core/index.js";

const num = z.number().finite().nullable().optional();
const str = z.string().nullable().optional();

export const MetrRunRecord = z.object({
  run_id: z.union([z.string(), z.number()]),
  task_id: z.string().min(1),
  task_family: str,
  alias: z.string().min(1),
  model: str,
  score: num,
  score_binarized: num,
  time_limit: num,
  started_at: num,
  completed_at: num,
  fatal_error_from: str,
  human_minutes: num,
  human_score: num,
  human_source: str,
  dollar_equivalent: num,
  total_tokens: num,
  equal_task_weight: num,
  invsqrt_task_weight: num,
  /** rebench: the variant the run used (`mini`, `gpu`, `paper`); METR's runs are `paper`. */
  rebench_variant: str,
  /** rebench: working seconds the run used (pauses excluded). */
  rebench_working_seconds: num,
  /** rebench: protected scoring calls the run made. */
  rebench_score_calls: num,
  /**
   * rebench: the constants `score` was normalized with (RunSpec.normalization; `entry` names the
   * calibration.json entry: machine class, date, runs), and the class of the machine the run was scored on.
   */
  rebench_normalization: NormalizationConstants.nullish(),
  rebench_machine_class: str,
  /** rebench: the run's provenance (RunSpec.provenance: version, commit, environment digest, event schema). */
  rebench_provenance: Provenance.nullish(),
  /** rebench: tokens by kind (reasoning is part of output) and dollars by kind, where the run recorded them. */
  rebench_usage_by_kind: z
    .object({
      input: z.number(),
      cacheRead: z.number(),
      cacheWrite: z.number(),
      output: z.number(),
      reasoning: z.number(),
      dollars: z.object({ input: z.number(), cacheRead: z.number(), cacheWrite: z.number(), output: z.number() }).nullable(),
    })
    .nullish(),
});
export type MetrRunRecord = z.infer<typeof MetrRunRecord>;
