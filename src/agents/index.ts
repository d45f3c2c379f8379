/**
 * @module
 * The scaffolds rebench ships, registered by name so a batch (or a restarted orchestrator) builds a run's
 * agent from its stored spec: `modular`, `aide` and `replay`. The human baseline mode (`human/`) is not a
 * registered scaffold: its agent needs a terminal, which `rebench human` provides. To add a scaffold,
 * implement `Agent` (src/core/agent-api.ts) and add its `Scaffold` entry here (docs/agents.md, "Adding a scaffold").
 */
import type { Scaffold } from "../core/index.js";
import { AideAgent, AideSettings } from "./aide/aide-agent.js";
import { ModularAgent, ModularSettings } from "./modular/modular-agent.js";
import { modelClientFor, scaffoldSettings } from "./scaffold-inputs.js";

/**
 * The model scaffolds rebench ships; the CLI registers them (src/cli/builtins.ts) with `replay`, whose steps
 * (the environment's hidden reference) only the orchestrator may read (src/runs/replay-steps.ts).
 */
export const MODEL_SCAFFOLDS: readonly Scaffold[] = [
  { name: "modular", needsModel: true, create: (spec) => new ModularAgent(modelClientFor(spec), scaffoldSettings(ModularSettings, spec)) },
  { name: "aide", needsModel: true, create: (spec) => new AideAgent(modelClientFor(spec), scaffoldSettings(AideSettings, spec)) },
];

export { AideAgent, AideSettings } from "./aide/aide-agent.js";
export { generateInRun } from "./model-turn.js";
export { ModularAgent, ModularSettings } from "./modular/modular-agent.js";
export { ReplayAgent } from "./replay/replay-agent.js";
