/**
 * @module
 * The registry of the environments, by name. Families live in `environments/<name>/family.ts`; adding one is
 * its line in `environments/index.ts`, which this module registers.
 */
import * as families from "../../environments/index.js";
import { compareText, NotFoundError, Registry, type TaskId, UnavailableError, VARIANTS, type Variant } from "../core/index.js";
import { PAPER_ENVIRONMENTS } from "../core/paper-environments.js";
import type { EnvironmentFamily, VariantDefinition, VariantImplementation } from "./contract.js";

/** The paper's seven first, in the paper's order, then any other environment by name. */
function listingOrder(a: EnvironmentFamily, b: EnvironmentFamily): number {
  const rank = (f: EnvironmentFamily) => {
    const i = (PAPER_ENVIRONMENTS as readonly string[]).indexOf(f.name);
    return i === -1 ? PAPER_ENVIRONMENTS.length : i;
  };
  return rank(a) - rank(b) || compareText(a.name, b.name);
}

/**
 * The environments by name: every family `environments/index.ts` exports, listed in `listingOrder`, then
 * extras registered by `registerExtraEnvironment` (found by name, never listed).
 */
const environments = new Registry<EnvironmentFamily>("environment");
for (const family of (Object.values(families) as EnvironmentFamily[]).sort(listingOrder)) {
  environments.register(family);
}

/**
 * Register an extra family (a test environment, a plugin). `getEnvironment` finds it by name; `listEnvironments`
 * keeps listing only the families of `environments/index.ts`. Registering the same family again is a no-op; another family under a taken
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
