/**
 * @module
 * From a run's spec to what drives it: the environment family, variant, implementation and manifest, and
 * the spec of a new run built from an environment variant (so direction, aggregation and normalization
 * constants are copied into the run when it is created).
 */
import {
  EVENT_SCHEMA_VERSION,
  type Manifest,
  type Participant,
  type RunConfig,
  type RunSpec,
  type RunSpecInput,
  rebenchBuild,
  type TaskId,
  type UsageLimits,
  type Variant,
} from "../core/index.js";
import type { EnvironmentFamily, VariantDefinition, VariantImplementation } from "../environments/contract.js";
import { environmentDigest } from "../environments/environment-digest.js";
import { checkTask, getEnvironment, getVariant, requireImplementation } from "../environments/registry.js";
import { scoreVisible } from "../scoring/score-view.js";
import { requireResources } from "./resource-check.js";

export interface RunEnvironment {
  family: EnvironmentFamily;
  definition: VariantDefinition;
  implementation: VariantImplementation;
  manifest: Manifest;
  /** Whether the agent sees score values (not for hidden_score, not where the environment hides them). */
  visible: boolean;
  instructions: string;
}

export function runEnvironment(spec: Pick<RunSpec, "environment" | "variant" | "task">): RunEnvironment {
  const family = getEnvironment(spec.environment);
  const task = checkTask(family, spec.task);
  const definition = getVariant(spec.environment, spec.variant);
  const implementation = requireImplementation(family.name, spec.variant);
  return {
    family,
    definition,
    implementation,
    manifest: definition.manifest,
    visible: scoreVisible(definition.manifest, task),
    instructions: implementation.instructions(task),
  };
}

export interface NewRunOptions {
  environment: string;
  variant: Variant;
  task: TaskId;
  participant: Participant;
  limits: UsageLimits;
  timeLimitSeconds?: number;
  batchId?: string;
  /** How the run is carried out: backend, driver, scaffold settings (RunConfig). */
  config?: RunConfig;
}

/**
 * The spec of a new run of an available environment variant (throws if it is unknown or unavailable, or
 * if this machine lacks the GPU its manifest needs, unless a Slurm job will run it elsewhere).
 */
export function newRunSpec(options: NewRunOptions): RunSpecInput {
  const env = runEnvironment(options);
  // A run on a cluster gets its GPUs from the scheduler on a node; its job checks what it was given.
  if (options.config?.executor !== "slurm") requireResources(env.family.name, options.variant, env.manifest.resources);
  return {
    participant: options.participant,
    environment: env.family.name,
    variant: options.variant,
    task: options.task,
    limits: options.limits,
    ...(options.timeLimitSeconds === undefined ? {} : { timeLimitSeconds: options.timeLimitSeconds }),
    direction: env.manifest.scoring.direction,
    aggregation: env.manifest.scoring.aggregation,
    ...(env.definition.normalization ? { normalization: env.definition.normalization } : {}),
    ...(options.batchId === undefined ? {} : { batchId: options.batchId }),
    config: options.config ?? {},
    provenance: {
      rebenchVersion: rebenchBuild().version,
      rebenchCommit: rebenchBuild().commit,
      environmentDigest: environmentDigest(env.family.dir, env.implementation),
      eventSchemaVersion: EVENT_SCHEMA_VERSION,
    },
  };
}
