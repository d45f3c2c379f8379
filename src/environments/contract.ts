/**
 * @module
 * The environment contract: what an environment family declares so that rebench can start it, score
 * it, calibrate it and compare participants on it. One family per folder `environments/<name>/`, each
 * with its three variants (`mini`, `gpu`, `paper`).
 */
import type {
  EnvironmentName,
  Manifest,
  NormalizationConstants,
  TaskId,
  Variant,
} from "../core/index.js";

/**
 * What an implemented variant provides. Paths are relative to the environment's folder.
 * The sandbox copies `workspace` into the agent's working directory, keeps `grader` and `reference`
 * in the protected directory, and runs `grader.command` as the grader user for every `score` action.
 */
export interface VariantImplementation {
  /** The text the agent (or human) starts from, for a task. */
  instructions(task: TaskId): string;
  /** Folder whose contents become the agent's workspace. */
  workspace: string;
  /** The hidden scorer: argv run from the protected directory; writes its result to the path in `REBENCH_RESULT`. */
  grader: { command: readonly string[] };
  /** The hidden reference solution, applied by the `replay` agent through the tool API. */
  reference: { actions: string };
  /** Optional set-up run as root/grader before the agent starts (unpacking assets, warm-up runs). */
  setup?: { command: readonly string[] };
  /** Asset names (see `rebench assets`) the variant needs built first. */
  assets?: readonly string[];
}

export type Availability =
  | { status: "available"; implementation: VariantImplementation }
  | { status: "unavailable"; reason: string };

export interface VariantDefinition {
  variant: Variant;
  /** One line on the scale: hardware, data and model sizes. */
  scale: string;
  manifest: Manifest;
  /** Start and reference raw scores; undefined until the variant is calibrated. */
  normalization: NormalizationConstants | undefined;
  availability: Availability;
}

export interface EnvironmentFamily {
  name: EnvironmentName;
  title: string;
  /** What the environment measures, in a sentence or two. */
  summary: string;
  /** Task ids the family offers (`main`, and `hidden_score` except Scaling Law). */
  tasks: readonly TaskId[];
  /** Absolute path of `environments/<name>/`. */
  dir: string;
  variants: Readonly<Record<Variant, VariantDefinition>>;
}

/** The manifest a task sees: `hidden_score` withholds the score value from the agent. */
export function manifestForTask(manifest: Manifest, task: TaskId): Manifest {
  if (task === "main") return manifest;
  return { ...manifest, scoring: { ...manifest.scoring, visibleToAgent: false } };
}
