/**
 * @module
 * What a plain `rebench` process offers: the built-in scaffolds (src/agents) and sandbox backends
 * (src/sandbox), registered into the registries the run layer reads. Commands that run or find runs call
 * `registerBuiltins()` first; an entry a test registered under the same name stays (`ifAbsent`).
 */
import { MODEL_SCAFFOLDS, ReplayAgent } from "../agents/index.js";
import type { Scaffold } from "../core/index.js";
import { replayActionsFor } from "../runs/replay-steps.js";
import { backends } from "../runs/sandbox-backends.js";
import { scaffolds } from "../runs/scaffolds.js";
import { BUILTIN_BACKENDS } from "../sandbox/index.js";

/** Every built-in scaffold: the model scaffolds, and `replay`, which plays the steps the orchestrator resolves. */
const BUILTIN_SCAFFOLDS: readonly Scaffold[] = [
  ...MODEL_SCAFFOLDS,
  { name: "replay", needsModel: false, create: (spec) => new ReplayAgent(replayActionsFor(spec)) },
];

export function registerBuiltins(): void {
  for (const scaffold of BUILTIN_SCAFFOLDS) scaffolds.register(scaffold, { ifAbsent: true });
  for (const backend of BUILTIN_BACKENDS) backends.register(backend, { ifAbsent: true });
}

/** The names of the built-in scaffolds, and of those that need `--model`. */
export const SCAFFOLD_NAMES = BUILTIN_SCAFFOLDS.map((s) => s.name);
export const MODEL_SCAFFOLD_NAMES = BUILTIN_SCAFFOLDS.filter((s) => s.needsModel).map((s) => s.name);
