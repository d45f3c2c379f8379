/**
 * @module
 * The scaffolds rebench ships, registered by name so a batch (or a restarted orchestrator) builds a run's
 * agent from its stored spec: `modular`, `aide` and `replay`. The human baseline mode (`human/`) is not a
 * registered scaffold: its agent needs a terminal, which `rebench human` provides. To add a scaffold,
 * implement `Agent` (src/runs/tool-api.ts) and register a factory here (see the README).
 */
import { registerAgent } from "../runs/agents.js";
import { AideAgent, AideSettings } from "./aide/aide-agent.js";
import { ModularAgent, ModularSettings } from "./modular/modular-agent.js";
import { replayActionsFor } from "./replay/replay-actions.js";
import { ReplayAgent } from "./replay/replay-agent.js";
import { modelClientFor, scaffoldSettings } from "./scaffold-inputs.js";

/** Scaffolds that call a model (and so need `--model`). */
export const MODEL_SCAFFOLDS: readonly string[] = ["modular", "aide"];
export const BUILTIN_SCAFFOLDS: readonly string[] = [...MODEL_SCAFFOLDS, "replay"];

let registered = false;

export function registerBuiltinAgents(): void {
  if (registered) return;
  registered = true;
  registerAgent("modular", (spec) => new ModularAgent(modelClientFor(spec), scaffoldSettings(ModularSettings, spec)));
  registerAgent("aide", (spec) => new AideAgent(modelClientFor(spec), scaffoldSettings(AideSettings, spec)));
  registerAgent("replay", (spec) => new ReplayAgent(replayActionsFor(spec)));
}

export { AideAgent, AideSettings } from "./aide/aide-agent.js";
export { ModularAgent, ModularSettings } from "./modular/modular-agent.js";
export { ReplayAgent } from "./replay/replay-agent.js";
export { parseActions, readActionsFile, replayActionsFor, ReplayStep, START_ACTIONS } from "./replay/replay-actions.js";
export { generateInRun } from "./model-turn.js";
