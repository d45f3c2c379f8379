/**
 * @module
 * `defineEnvironment` builds an EnvironmentFamily from a compact declaration: the scoring rules shared by
 * every variant, and per variant its resources, scale, constants and implementation. The manifest is
 * validated here, so a malformed declaration fails with a readable message when the registry loads.
 * A `calibration.json` beside the family file (`rebench calibrate --write`) supplies the `mini` and `gpu`
 * normalization constants (source `calibration`), one entry per machine class; each entry's key must be the
 * class of the machine it names. `paper` keeps the paper's constants on every machine.
 */
import {
  type Aggregation,
  type ClassCalibrations,
  type Direction,
  type EnvironmentId,
  InvalidInputError,
  Manifest,
  machineClass,
  type NormalizationConstants,
  NormalizationConstants as NormalizationSchema,
  parseWith,
  type Resources,
  type TaskId,
  type Timeouts,
  VARIANTS,
  type Variant,
} from "../core/index.js";
import { readCalibrationFile } from "./calibration-file.js";
import type { Availability, EnvironmentFamily, VariantDefinition, VariantImplementation } from "./contract.js";
import { sourceDir } from "./source-dir.js";

export interface VariantDeclaration {
  scale: string;
  resources: Resources;
  normalization?: NormalizationConstants;
  timeouts?: Partial<Timeouts>;
  /** Present once the variant is built; absent means "not available yet" with `unavailableReason`. */
  implementation?: VariantImplementation;
  unavailableReason?: string;
}

export interface EnvironmentDeclaration {
  name: EnvironmentId;
  title: string;
  summary: string;
  canary: string;
  tasks?: readonly TaskId[];
  scoring: {
    direction: Direction;
    aggregation: Aggregation;
    visibleToAgent?: boolean;
    scoreOnUsageLimits?: boolean;
    logsStartingScore?: boolean;
    /** The score depends on timing (default false): see `ScoringConfig.timingSensitive`. */
    timingSensitive?: boolean;
    /** The reference works to a wall-clock budget (what it does): see `ScoringConfig.timedReference`. */
    timedReference?: string;
  };
  timeouts?: Partial<Timeouts>;
  /** `import.meta.url` of the family file, to locate its folder. */
  moduleUrl: string;
  variants: Record<Variant, VariantDeclaration>;
}

const DEFAULT_TIMEOUTS: Timeouts = { scoreSeconds: 600, startSeconds: 1800 };

export function defineEnvironment(decl: EnvironmentDeclaration): EnvironmentFamily {
  const dir = sourceDir(decl.moduleUrl);
  const calibrations = readCalibrationFile(dir);
  const variants = Object.fromEntries(
    VARIANTS.map((variant): [Variant, VariantDefinition] => {
      const v = decl.variants[variant];
      const where = `environment ${decl.name}, variant ${variant}`;
      const manifest = parseWith(
        Manifest,
        {
          resources: v.resources,
          scoring: {
            direction: decl.scoring.direction,
            aggregation: decl.scoring.aggregation,
            visibleToAgent: decl.scoring.visibleToAgent ?? true,
            scoreOnUsageLimits: decl.scoring.scoreOnUsageLimits ?? true,
            logsStartingScore: decl.scoring.logsStartingScore ?? false,
            timingSensitive: decl.scoring.timingSensitive ?? false,
            ...(decl.scoring.timedReference === undefined ? {} : { timedReference: decl.scoring.timedReference }),
          },
          timeouts: { ...DEFAULT_TIMEOUTS, ...decl.timeouts, ...v.timeouts },
          canary: decl.canary,
        },
        `the manifest of ${where}`,
      );
      const classKind = manifest.resources.gpu ? "gpu" : "cpu";
      const classes: ClassCalibrations = calibrations?.[variant] ?? {};
      for (const [key, entry] of Object.entries(classes)) {
        const named = machineClass(entry.machine, classKind);
        if (named !== key) {
          throw new InvalidInputError(
            `${dir}/calibration.json: the ${variant} entry "${key}" was measured on a machine of class "${named ?? "none (no GPU)"}"`,
            { hint: `an entry's key is the ${classKind === "gpu" ? "GPU model" : "CPU family and cores"} of its machine (docs/runs.md, "Machine classes")` },
          );
        }
      }
      const normalization =
        v.normalization === undefined ? undefined : parseWith(NormalizationSchema, v.normalization, `the normalization constants of ${where}`);
      const availability: Availability = v.implementation
        ? { status: "available", implementation: v.implementation }
        : {
            status: "unavailable",
            reason: v.unavailableReason ?? `${decl.name}/${variant} is not implemented in this version of rebench`,
          };
      return [variant, { variant, scale: v.scale, manifest, normalization, calibrations: classes, classKind, availability }];
    }),
  ) as Record<Variant, VariantDefinition>;
  return {
    name: decl.name,
    title: decl.title,
    summary: decl.summary,
    tasks: decl.tasks ?? ["main", "hidden_score"],
    dir,
    variants,
  };
}

/** Resources of a `mini` variant: this project's 2-core reference machine, no GPU. */
export const MINI_RESOURCES: Resources = { cpus: 2, memoryGb: 8 };
/** Resources of a `gpu` variant: one H200 (H100 accepted). */
export const GPU_RESOURCES: Resources = {
  gpu: { countRange: [1, 1], models: ["h200", "h100"] },
  cpus: 16,
  memoryGb: 100,
};
