/**
 * @module
 * The registry of the environments, by name. Families live in `environments/<name>/family.ts`; adding one is
 * its import and its entry in the list below.
 */
import { family as finetuneGpt2Qa } from "../../environments/finetune_gpt2_qa/family.js";
import { family as fixEmbedding } from "../../environments/fix_embedding/family.js";
import { family as optimizeKernel } from "../../environments/optimize_kernel/family.js";
import { family as optimizeLlmFoundry } from "../../environments/optimize_llm_foundry/family.js";
import { family as restrictedMlm } from "../../environments/restricted_mlm/family.js";
import { family as rustCodecontests } from "../../environments/rust_codecontests/family.js";
import { family as scalingLaw } from "../../environments/scaling_law/family.js";
import { NotFoundError, Registry, type TaskId, UnavailableError, VARIANTS, type Variant } from "../core/index.js";
import type { EnvironmentFamily, VariantDefinition, VariantImplementation } from "./contract.js";

/**
 * The environments by name: the seven in the paper's order, then any added beside them (listed too;
 * docs/adding-an-environment.md), then extras registered by `registerExtraEnvironment` (found by name, never listed).
 */
const environments = new Registry<EnvironmentFamily>("environment");
for (const family of [optimizeLlmFoundry, optimizeKernel, fixEmbedding, scalingLaw, restrictedMlm, finetuneGpt2Qa, rustCodecontests]) {
  environments.register(family);
}

/**
 * Register an extra family (a test environment, a plugin). `getEnvironment` finds it by name; `listEnvironments`
 * keeps listing only the families of the list above. Registering the same family again is a no-op; another family under a taken
 * name is a conflict (src/core/registry.ts).
 */
export function registerExtraEnvironment(family: EnvironmentFamily): void {
  environments.register(family, { listed: false });
}

/** The registered families, in the paper's order. */
export function listEnvironments(): readonly EnvironmentFamily[] {
  return environments.list();
}

export function getEnvironment(name: string): EnvironmentFamily {
  return environments.get(name, `known environments: ${environments.names().join(", ")} (see \`rebench environments list\`)`);
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
