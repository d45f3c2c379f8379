/**
 * @module
 * The executor protocol as zod schemas: what the orchestrator (executor-client.ts) and the sandbox's
 * executor (python/rebench_env/sandbox_executor.py) send each other over the control socket, one JSON object
 * a line, and what a grader's `$REBENCH_AS_AGENT` (as_agent.py) and the as-agent broker (sandbox_broker.py)
 * exchange. The client parses every message with these; `npm run schemas` writes them as JSON Schema into
 * python/rebench_env/schemas/, which the Python tests check the executor's and broker's messages against,
 * so the two languages cannot drift apart silently.
 */
import { z } from "zod";

const Id = z.number().int().nonnegative();
const User = z.enum(["agent", "grader", "root"]);
const Base64 = z.string();

/** One request of the orchestrator to an executor. */
export const ExecutorRequest = z.discriminatedUnion("op", [
  z.strictObject({
    op: z.literal("exec"),
    id: Id,
    user: User,
    command: z.string(),
    cwd: z.string().nullable(),
    env: z.record(z.string(), z.string()),
    timeoutMs: z.number().positive(),
    maxOutputBytes: z.number().int().positive(),
    stdin: Base64.nullable(),
  }),
  z.strictObject({ op: z.literal("kill"), id: Id, target: Id, timedOut: z.boolean().optional() }),
  z.strictObject({ op: z.literal("read"), id: Id, user: User, path: z.string() }),
  z.strictObject({ op: z.literal("write"), id: Id, user: User, path: z.string(), data: Base64, mode: z.number().int().nullable() }),
  z.strictObject({ op: z.literal("freeze"), id: Id }),
  z.strictObject({ op: z.literal("thaw"), id: Id }),
  z.strictObject({ op: z.literal("ping"), id: Id }),
  z.strictObject({ op: z.literal("shutdown"), id: Id }),
]);
export type ExecutorRequest = z.infer<typeof ExecutorRequest>;

/** One message of an executor: the hello on connect, then answers matched to requests by id. */
export const ExecutorMessage = z.discriminatedUnion("event", [
  z.strictObject({ event: z.literal("hello"), pid: z.number().int().positive(), pidns: z.string(), role: z.string(), privileged: z.boolean() }),
  z.strictObject({ event: z.literal("started"), id: Id, sid: z.number().int().positive() }),
  z.strictObject({
    event: z.literal("exit"),
    id: Id,
    sid: z.number().int().positive().optional(),
    exitCode: z.number().int().nullable(),
    signal: z.string().nullable(),
    timedOut: z.boolean(),
    durationMs: z.number().nonnegative().optional(),
    stdout: Base64,
    stderr: Base64,
    stdoutBytes: z.number().int().nonnegative(),
    stderrBytes: z.number().int().nonnegative(),
  }),
  z.strictObject({ event: z.literal("data"), id: Id, data: Base64 }),
  z.strictObject({ event: z.literal("ok"), id: Id }),
  z.strictObject({ event: z.literal("error"), id: Id.nullable(), code: z.string(), message: z.string() }),
]);
export type ExecutorMessage = z.infer<typeof ExecutorMessage>;

/** A grader's as-agent request to the broker (as_agent.py sends it with its stdin, stdout and stderr). */
export const AsAgentRequest = z.strictObject({
  argv: z.array(z.string()).min(1),
  cwd: z.string().nullable(),
  env: z.record(z.string(), z.string()).nullable(),
  timeoutS: z.number().positive().nullable(),
  jail: z.boolean().nullable().optional(),
  jailOptions: z
    .object({
      binds: z.array(z.strictObject({ source: z.string(), target: z.string(), writable: z.boolean() })),
      forwards: z.array(z.strictObject({ port: z.number().int().min(1).max(65535), socket: z.string() })),
    })
    .nullable()
    .optional(),
});

/** The broker's one answer to an as-agent request. */
export const AsAgentReply = z.discriminatedUnion("event", [
  z.strictObject({
    event: z.literal("exit"),
    returncode: z.number().int().nullable(),
    signal: z.string().nullable(),
    timedOut: z.boolean(),
    durationS: z.number().nonnegative(),
    cpuS: z.number().nonnegative().nullable(),
  }),
  z.strictObject({ event: z.literal("error"), code: z.string(), message: z.string() }),
]);

/** The schemas `npm run schemas` writes for Python, by file name. */
export const PROTOCOL_SCHEMAS = {
  "executor-request.schema.json": ExecutorRequest,
  "executor-message.schema.json": ExecutorMessage,
  "as-agent-request.schema.json": AsAgentRequest,
  "as-agent-reply.schema.json": AsAgentReply,
} as const;
