/**
 * @module
 * What a scaffold reads from its run's spec: its settings (`spec.config.agent`, set by
 * `rebench run --agent-config JSON`, validated against the scaffold's own schema with defaults) and its
 * model client (`spec.participant.model`, a `PROVIDER:MODEL` spec). Both fail before the run starts, with a
 * message that says what to fix.
 */
import type { z } from "zod";
import { InvalidInputError, parseWith, type RunSpec } from "../core/index.js";
import { createModelClient, type ModelClientOptions } from "./models/create-model-client.js";
import type { ModelClient } from "./models/model-client.js";

/** The scaffold's settings from `spec.config.agent` (an object; absent means all defaults). */
export function scaffoldSettings<T extends z.ZodType>(schema: T, spec: RunSpec): z.infer<T> {
  const raw = spec.config.agent ?? {};
  return parseWith(schema, raw, `the settings of the ${spec.participant.scaffold ?? "?"} scaffold (--agent-config)`);
}

/** The model client of an agent run; its API key comes from the environment. */
export function modelClientFor(spec: RunSpec, options: ModelClientOptions = {}): ModelClient {
  const model = spec.participant.model;
  if (!model) {
    throw new InvalidInputError(`the ${spec.participant.scaffold ?? "?"} scaffold needs a model`, {
      hint: 'pass --model PROVIDER:MODEL, e.g. --model openai:gpt-4o (docs/agents.md, "Models")',
    });
  }
  return createModelClient(model, options);
}
