/**
 * @module
 * The names every layer shares: environments, variants, task ids, run ids, participants.
 */
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { NotFoundError } from "./errors.js";
import { PAPER_ENVIRONMENTS } from "./paper-environments.js";

export const PaperEnvironment = z.enum(PAPER_ENVIRONMENTS);
export type PaperEnvironment = z.infer<typeof PaperEnvironment>;

/**
 * The name a run records: one of the seven, or an extra family registered at runtime (the test environments
 * under `test/fixtures/`, plugins). Lower-case letters, digits and underscores.
 */
export const EnvironmentId = z.string().regex(/^[a-z][a-z0-9_]{1,63}$/, "an environment name looks like optimize_kernel");
export type EnvironmentId = z.infer<typeof EnvironmentId>;

/** `mini`: a 2-core CPU; `gpu`: one H100/H200; `paper`: the original hardware, models and constants. */
export const VARIANTS = ["mini", "gpu", "paper"] as const;
export const Variant = z.enum(VARIANTS);
export type Variant = z.infer<typeof Variant>;

/** `hidden_score` is `main` with the score value withheld from the agent. */
export const TASK_IDS = ["main", "hidden_score"] as const;
export const TaskId = z.enum(TASK_IDS);
export type TaskId = z.infer<typeof TaskId>;

/**
 * A variant named on the command line: an unknown one is not found (exit 3), as an unknown environment is,
 * not bad input.
 */
export function parseVariant(value: string, flag = "--variant"): Variant {
  const parsed = Variant.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new NotFoundError(`unknown variant "${value}"`, { hint: `${flag} is one of ${VARIANTS.join(", ")}` });
}

/** A task named on the command line; an unknown one is not found (exit 3). */
export function parseTaskId(value: string, flag = "--task"): TaskId {
  const parsed = TaskId.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new NotFoundError(`unknown task "${value}"`, { hint: `${flag} is one of ${TASK_IDS.join(", ")}` });
}

export const RunId = z.string().regex(/^r[0-9a-z]{8,}$/, "a run id looks like r0mfx3k2a9c1b7e");
export type RunId = z.infer<typeof RunId>;

let lastId = { time: -1, random: 0n };

/**
 * A new run id: time-ordered (base-36 milliseconds) with 40 random bits, so ids sort by creation. Within one
 * process they are monotonic: an id made in the same millisecond as the one before (or with a clock that went
 * back) takes that id's time and its random part plus one, as a monotonic ULID does, so a store that breaks
 * ties of its creation times by id lists those runs in the order they were made.
 */
export function newRunId(now: number = Date.now()): RunId {
  let random = BigInt(`0x${randomBytes(5).toString("hex")}`);
  if (now <= lastId.time) {
    now = lastId.time;
    random = lastId.random + 1n;
  }
  lastId = { time: now, random };
  return `r${now.toString(36).padStart(9, "0")}${random.toString(36).padStart(8, "0")}`;
}

export const ParticipantKind = z.enum(["agent", "human"]);
export type ParticipantKind = z.infer<typeof ParticipantKind>;

/** Who attempts a run: an agent (scaffold + model) or a human; `alias` is what reports group by. */
export const Participant = z.object({
  kind: ParticipantKind,
  alias: z.string().min(1),
  scaffold: z.string().optional(),
  model: z.string().optional(),
});
export type Participant = z.infer<typeof Participant>;
