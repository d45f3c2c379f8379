/**
 * @module
 * Scaffolds by name (`participant.scaffold` of a run's spec), so a batch, or a restarted orchestrator,
 * can build the agent of a run from its stored spec. Scaffolds register here; tests register their own.
 */
import { type RunSpec, UnavailableError } from "../core/index.js";
import type { Agent } from "./tool-api.js";

export type AgentFactory = (spec: RunSpec) => Agent | Promise<Agent>;

const factories = new Map<string, AgentFactory>();

export function registerAgent(scaffold: string, factory: AgentFactory): void {
  factories.set(scaffold, factory);
}

export function hasAgent(spec: RunSpec): boolean {
  return spec.participant.scaffold !== undefined && factories.has(spec.participant.scaffold);
}

export async function agentFor(spec: RunSpec): Promise<Agent> {
  const scaffold = spec.participant.scaffold;
  const factory = scaffold === undefined ? undefined : factories.get(scaffold);
  if (!factory) {
    throw new UnavailableError(`no scaffold "${scaffold ?? "(none)"}" in this rebench to drive ${spec.participant.alias}'s run`, {
      hint: `scaffolds here: ${[...factories.keys()].join(", ") || "none"}`,
    });
  }
  return factory(spec);
}
