/**
 * @module
 * The registry of the seven environments, by name. Families live in `environments/<name>/family.ts`.
 */
import { family as finetuneGpt2Qa } from "../../environments/finetune_gpt2_qa/family.js";
import { family as fixEmbedding } from "../../environments/fix_embedding/family.js";
import { family as optimizeKernel } from "../../environments/optimize_kernel/family.js";
import { family as optimizeLlmFoundry } from "../../environments/optimize_llm_foundry/family.js";
import { family as restrictedMlm } from "../../environments/restricted_mlm/family.js";
import { family as rustCodecontests } from "../../environments/rust_codecontests/family.js";
import { family as scalingLaw } from "../../environments/scaling_law/family.js";
import {
  ConflictError,
  ENVIRONMENT_NAMES,
  NotFoundError,
  type TaskId,
  UnavailableError,
  VARIANTS,
  type Variant,
} from "../core/index.js";
import type { EnvironmentFamily, VariantDefinition, VariantImplementation } from "./contract.js";

const FAMILIES: readonly EnvironmentFamily[] = [
  optimizeLlmFoundry,
  optimizeKernel,
  fixEmbedding,
  scalingLaw,
  restrictedMlm,
  finetuneGpt2Qa,
  rustCodecontests,
];

/** Families registered beside the seven (test environments, plugins): found by name, never listed. */
const EXTRA_FAMILIES: EnvironmentFamily[] = [];

/**
 * Register an extra family (a test environment, a plugin). `getEnvironment` finds it by name; `listEnvironments`
 * keeps listing only the seven. Registering the same family again is a no-op; another family under a taken
 * name is a conflict.
 */
export function registerExtraEnvironment(family: EnvironmentFamily): void {
  const existing = [...FAMILIES, ...EXTRA_FAMILIES].find((f) => f.name === family.name);
  if (existing === family) return;
  if (existing) throw new ConflictError(`an environment named "${family.name}" is already registered`);
  EXTRA_FAMILIES.push(family);
}

/** All seven families, in the paper's order. */
export function listEnvironments(): readonly EnvironmentFamily[] {
  return FAMILIES;
}

export function getEnvironment(name: string): EnvironmentFamily {
  const family = FAMILIES.find((f) => f.name === name) ?? EXTRA_FAMILIES.find((f) => f.name === name);
  if (!family) {
    throw new NotFoundError(`unknown environment "${name}"`, {
      hint: `known environments: ${ENVIRONMENT_NAMES.join(", ")} (see \`rebench environments list\`)`,
    });
  }
  return family;
}

export function getVariant(name: string, variant: string): VariantDefinition {
  const family = getEnvironment(name);
  if (!(VARIANTS as readonly string[]).includes(variant)) {
    throw new NotFoundError(`unknown variant "${variant}" of ${name}`, { hint: `variants: ${VARIANTS.join(", ")}` });
  }
  return family.variants[variant as Variant];
}

export function checkTask(family: EnvironmentFamily, task: string): TaskId {
  if (!(family.tasks as readonly string[]).includes(task)) {
    throw new NotFoundError(`${family.name} has no task "${task}"`, { hint: `tasks: ${family.tasks.join(", ")}` });
  }
  return task as TaskId;
}

/** The implementation of a variant, or an UnavailableError that says why it cannot run yet. */
export function requireImplementation(name: string, variant: Variant): VariantImplementation {
  const definition = getVariant(name, variant);
  if (definition.availability.status === "unavailable") {
    throw new UnavailableError(`${name}/${variant} is not available: ${definition.availability.reason}`, {
      hint: "`rebench environments list` shows which variants are available",
    });
  }
  return definition.availability.implementation;
}
