/**
 * @module
 * From a run's spec to what drives it: the environment family, variant, implementation and manifest, and
 * the spec of a new run built from an environment variant (so direction, aggregation and normalization
 * constants, those of the calibration.json entry of this machine's class, are copied into the run when it
 * is created).
 */
import {
  EVENT_SCHEMA_VERSION,
  type MachineInfo,
  type Manifest,
  type Participant,
  probeMachine,
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
import { calibratedPerClass, normalizationOn } from "../environments/normalization-on.js";
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
  /** The machine the run is scored on, whose class picks the calibration (default: this one, `probeMachine()`). */
  machine?: MachineInfo;
}

/**
 * The spec of a new run of an available environment variant (throws if it is unknown or unavailable, or
 * if this machine lacks the GPU its manifest needs, unless a Slurm job will run it elsewhere). Its
 * normalization constants are those of this machine's class; a run a Slurm job drives is scored on a node
 * whose class is not known here, so it gets here only constants that hold on every machine (the paper's, or
 * those a family declares for a variant without calibration entries), and its job records the node's class
 * and that class's constants when it starts (slurm-job.ts).
 */
export async function newRunSpec(options: NewRunOptions): Promise<RunSpecInput> {
  const env = runEnvironment(options);
  const slurm = options.config?.executor === "slurm";
  // A run on a cluster gets its GPUs from the scheduler on a node; its job checks what it was given.
  if (!slurm) requireResources(env.family.name, options.variant, env.manifest.resources);
  const on = normalizationOn(env.family.name, env.definition, options.machine ?? (await probeMachine()));
  // A Slurm run's node, and so its class, is known when its job starts there (slurm-job.ts records it).
  const normalization = slurm
    ? calibratedPerClass(env.definition)
      ? {
          normalizationMissing:
            `a Slurm job scores ${env.family.name}/${options.variant} on a node whose machine class is known only when the job starts there: ` +
            `no normalized score until then (docs/runs.md, "Machine classes")`,
        }
      : on.constants
        ? { normalization: on.constants }
        : { normalizationMissing: on.missing! }
    : {
        ...(on.machineClass === null ? {} : { machineClass: on.machineClass }),
        ...(on.constants ? { normalization: on.constants } : {}),
        ...(on.missing ? { normalizationMissing: on.missing } : {}),
      };
  return {
    participant: options.participant,
    environment: env.family.name,
    variant: options.variant,
    task: options.task,
    limits: options.limits,
    ...(options.timeLimitSeconds === undefined ? {} : { timeLimitSeconds: options.timeLimitSeconds }),
    direction: env.manifest.scoring.direction,
    aggregation: env.manifest.scoring.aggregation,
    ...normalization,
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
