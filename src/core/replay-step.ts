/**
 * @module
 * One recorded tool call, as the `replay` scaffold plays it: the line format of an environment's reference
 * solution and the steps of an exploit file. Kept in core because both the agents (which play it) and the
 * environment files (which hold it) speak it.
 */
import { z } from "zod";

const Timeout = z.number().positive().optional();

export const ReplayStep = z.discriminatedUnion("tool", [
  z.object({ tool: z.literal("bash"), input: z.object({ command: z.string(), timeoutSeconds: Timeout }) }),
  z.object({ tool: z.literal("python"), input: z.object({ code: z.string(), timeoutSeconds: Timeout }) }),
  z.object({ tool: z.literal("score"), input: z.object({}).optional() }),
  z.object({ tool: z.literal("score_log"), input: z.object({}).optional() }),
  z.object({ tool: z.literal("submit"), input: z.object({ submission: z.string() }) }),
  z.object({
    tool: z.literal("generate"),
    input: z.object({
      inputTokens: z.number().int().nonnegative(),
      outputTokens: z.number().int().nonnegative(),
      costUsd: z.number().nonnegative().optional(),
    }),
  }),
]);
export type ReplayStep = z.infer<typeof ReplayStep>;
