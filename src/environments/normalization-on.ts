/**
 * @module
 * Which normalization constants a run of an environment variant gets on a machine: the calibration.json
 * entry of the machine's class, the paper's constants for `paper` (the same on every machine), the
 * family's declared constants for a variant calibration.json has no entry for at all; otherwise none, with
 * the reason and the command that makes them. Never the constants of another class. A run that a Slurm job
 * drives learns its class when the job starts on a node (`nodeNormalization`).
 */
import { calibrationConstants, type MachineInfo, machineClass, type NormalizationConstants, type RunSpec } from "../core/index.js";
import type { VariantDefinition } from "./contract.js";

export interface NormalizationOn {
  /** The machine's class for the variant; null for a GPU variant on a machine without a GPU. */
  machineClass: string | null;
  constants?: NormalizationConstants;
  /** Why there are no constants, with the command that makes them (one line); set exactly when `constants` is not. */
  missing?: string;
}

/**
 * Whether the variant's constants depend on the machine class: calibration.json has entries for it and it
 * is not `paper` (whose constants are the paper's everywhere).
 */
export function calibratedPerClass(definition: VariantDefinition): boolean {
  return definition.variant !== "paper" && Object.keys(definition.calibrations).length > 0;
}

export function normalizationOn(environment: string, definition: VariantDefinition, machine: MachineInfo): NormalizationOn {
  const variant = definition.variant;
  const named = machineClass(machine, definition.classKind) ?? null;
  if (variant === "paper") {
    return definition.normalization
      ? { machineClass: named, constants: definition.normalization }
      : { machineClass: named, missing: `${environment}/paper has no paper constants` };
  }
  const command = `rebench calibrate ${environment} --variant ${variant} --write`;
  const classes = Object.keys(definition.calibrations);
  if (classes.length === 0) {
    return definition.normalization
      ? { machineClass: named, constants: definition.normalization }
      : { machineClass: named, missing: `${environment}/${variant} is not calibrated: run \`${command}\`` };
  }
  if (named === null) {
    return { machineClass: null, missing: `${environment}/${variant} is calibrated per GPU model and this machine has no GPU: run it on a GPU machine` };
  }
  const entry = definition.calibrations[named];
  if (entry) return { machineClass: named, constants: calibrationConstants(named, entry) };
  const described = classes.map((key) =>
    definition.classKind === "cpu" && definition.calibrations[key]?.machine.cpuGeneration === undefined ? `${key}, of a CPU generation not recorded` : key,
  );
  return {
    machineClass: named,
    missing: `${environment}/${variant} has no calibration for ${named} (only ${described.join("; ")}): run \`${command}\` on a machine of that class`,
  };
}

/** What a Slurm job's node makes of its run's normalization (the fields of its `job_started` event). */
export interface NodeNormalization {
  /** The node's class for the variant; absent for a GPU variant on a node without a GPU. */
  machineClass?: string;
  /** The constants the run gets now (its variant is calibrated per class and the node's class has an entry). */
  normalization?: NormalizationConstants;
  /** Why the run has no constants after all (set exactly when `normalization` is not, for a per-class variant). */
  normalizationMissing?: string;
}

/**
 * The node's class and, for a variant calibrated per class, its constants on this node: those of the node's
 * class's entry, or none and why. A run resumed on a node of another class than its first keeps none: its
 * scores were taken on machines of two classes, which no entry describes. Other variants' constants hold on
 * every machine and were recorded when the run was created.
 */
export function nodeNormalization(spec: RunSpec, definition: VariantDefinition, machine: MachineInfo): NodeNormalization {
  const on = normalizationOn(spec.environment, definition, machine);
  const node = on.machineClass === null ? {} : { machineClass: on.machineClass };
  if (!calibratedPerClass(definition)) return node;
  if (spec.machineClass !== undefined && spec.machineClass !== on.machineClass) {
    return {
      ...node,
      normalizationMissing: `${spec.environment}/${spec.variant} was scored on Slurm nodes of two machine classes (${spec.machineClass}, then ${on.machineClass ?? "a node without a GPU"}): no calibration entry describes its scores`,
    };
  }
  return { ...node, ...(on.constants ? { normalization: on.constants } : { normalizationMissing: on.missing! }) };
}
