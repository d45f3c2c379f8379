/**
 * @module
 * The scaffold registry (src/core/registry.ts): the CLI registers the built-in scaffolds of src/agents at
 * start-up (src/cli/builtins.ts), tests register their own. A run's agent is built from its stored spec, so a
 * restarted orchestrator drives it again.
 */
import { type Agent, Registry, type RunSpec, type Scaffold, UnavailableError } from "../core/index.js";

export const scaffolds = new Registry<Scaffold>("scaffold");

/** The agent of a run, from its spec's `participant.scaffold`. */
export async function agentFor(spec: RunSpec): Promise<Agent> {
  const name = spec.participant.scaffold;
  const scaffold = name === undefined ? undefined : scaffolds.find(name);
  if (!scaffold) {
    throw new UnavailableError(`no scaffold "${name ?? "(none)"}" in this rebench to drive ${spec.participant.alias}'s run`, {
      hint: `scaffolds here: ${scaffolds.names().join(", ") || "none"}`,
    });
  }
  return scaffold.create(spec);
}
