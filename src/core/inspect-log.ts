/**
 * @module
 * The shapes of UK AISI Inspect's eval logs (`EvalLog` and the parts rebench writes), as zod schemas written
 * from Inspect's published definition: its pydantic models' JSON Schema, `src/inspect_ai/_view/www/log-schema.json`
 * of UKGovernmentBEIS/inspect_ai (MIT) at commit 001af7256afc6cff2efd81ffb45a46f92faf648f (the 0.3.1xx series
 * the `@metrevals/inspect-log-viewer` 0.3.180-beta2 build reads). That schema lists every field of a model as
 * required and allows no other, so every object here is strict and every field present (null where unknown).
 * `rebench runs export --format inspect` writes these (src/web/inspect-export.ts), checks each log against
 * them, and `rebench report --format inspect` reads them back (src/analysis/inspect/). docs/inspect-logs.md
 * maps rebench's runs onto them.
 */
import { z } from "zod";

/** The Inspect version whose definitions these follow (docs/inspect-logs.md). */
export const INSPECT_SCHEMA_SOURCE = "UKGovernmentBEIS/inspect_ai src/inspect_ai/_view/www/log-schema.json @ 001af7256afc6cff2efd81ffb45a46f92faf648f";

const str = z.string().nullable();
const int = z.number().int().nullable();
const num = z.number().nullable();
const bool = z.boolean().nullable();
const meta = z.record(z.string(), z.unknown()).nullable();
const obj = z.record(z.string(), z.unknown());
const dateTime = z.iso.datetime({ offset: true });
const strict = <T extends z.ZodRawShape>(shape: T) => z.strictObject(shape);

/** Inspect's `JsonValue`: any JSON. */
const JsonValue = z.unknown();

export const ContentText = strict({
  internal: JsonValue.nullable(),
  type: z.literal("text"),
  text: z.string(),
  refusal: bool,
  citations: z.array(z.unknown()).nullable(),
});
export const ContentReasoning = strict({
  internal: JsonValue.nullable(),
  type: z.literal("reasoning"),
  reasoning: z.string(),
  summary: str,
  signature: str,
  redacted: z.boolean(),
});
const Content = z.union([ContentText, ContentReasoning]);
const MessageContent = z.union([z.string(), z.array(Content)]);

export const ToolCallContent = strict({ title: str, format: z.enum(["text", "markdown"]), content: z.string() });
export const ToolCall = strict({
  id: z.string(),
  function: z.string(),
  arguments: obj,
  parse_error: str,
  view: ToolCallContent.nullable(),
  type: str,
});
export const ToolCallError = strict({
  type: z.enum(["parsing", "timeout", "unicode_decode", "permission", "file_not_found", "is_a_directory", "limit", "approval", "unknown", "output_limit"]),
  message: z.string(),
});

const messageBase = { id: str, content: MessageContent, source: z.enum(["input", "generate"]).nullable(), metadata: meta };
export const ChatMessageSystem = strict({ ...messageBase, role: z.literal("system") });
export const ChatMessageUser = strict({ ...messageBase, role: z.literal("user"), tool_call_id: z.array(z.string()).nullable() });
export const ChatMessageAssistant = strict({ ...messageBase, role: z.literal("assistant"), tool_calls: z.array(ToolCall).nullable(), model: str });
export const ChatMessageTool = strict({
  ...messageBase,
  role: z.literal("tool"),
  tool_call_id: str,
  function: str,
  error: ToolCallError.nullable(),
});
export const ChatMessage = z.discriminatedUnion("role", [ChatMessageSystem, ChatMessageUser, ChatMessageAssistant, ChatMessageTool]);
export type ChatMessage = z.infer<typeof ChatMessage>;

export const ModelUsage = strict({
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  total_tokens: z.number().int(),
  input_tokens_cache_write: int,
  input_tokens_cache_read: int,
  reasoning_tokens: int,
});
export type ModelUsage = z.infer<typeof ModelUsage>;

export const ChatCompletionChoice = strict({
  message: ChatMessageAssistant,
  stop_reason: z.enum(["stop", "max_tokens", "model_length", "tool_calls", "content_filter", "unknown"]),
  logprobs: z.null(),
});
export const ModelOutput = strict({
  model: z.string(),
  choices: z.array(ChatCompletionChoice),
  completion: z.string(),
  usage: ModelUsage.nullable(),
  time: num,
  metadata: meta,
  error: str,
});
export type ModelOutput = z.infer<typeof ModelOutput>;

/** Inspect's GenerateConfig: rebench records none of its settings per call, so every field is null. */
export const GENERATE_CONFIG_KEYS = [
  "max_retries",
  "timeout",
  "max_connections",
  "system_message",
  "max_tokens",
  "top_p",
  "temperature",
  "stop_seqs",
  "best_of",
  "frequency_penalty",
  "presence_penalty",
  "logit_bias",
  "seed",
  "top_k",
  "num_choices",
  "logprobs",
  "top_logprobs",
  "parallel_tool_calls",
  "internal_tools",
  "max_tool_output",
  "cache_prompt",
  "reasoning_effort",
  "reasoning_tokens",
  "reasoning_summary",
  "reasoning_history",
  "response_schema",
  "extra_body",
  "batch",
] as const;
export const GenerateConfig = strict(Object.fromEntries(GENERATE_CONFIG_KEYS.map((k) => [k, z.unknown().refine((v) => v !== undefined, "required")])));
export function emptyGenerateConfig(): Record<(typeof GENERATE_CONFIG_KEYS)[number], null> {
  return Object.fromEntries(GENERATE_CONFIG_KEYS.map((k) => [k, null])) as Record<(typeof GENERATE_CONFIG_KEYS)[number], null>;
}

const scoreValueItem = z.union([z.string(), z.number(), z.boolean()]);
export const ScoreValue = z.union([scoreValueItem, z.array(scoreValueItem), z.record(z.string(), z.union([scoreValueItem, z.null()]))]);
export const Score = strict({ history: z.array(z.unknown()), value: ScoreValue, answer: str, explanation: str, metadata: obj });
export type Score = z.infer<typeof Score>;

export const InspectEvalError = strict({ message: z.string(), traceback: z.string(), traceback_ansi: z.string() });
export type InspectEvalError = z.infer<typeof InspectEvalError>;

export const SandboxEnvironmentSpec = strict({ type: z.string(), config: z.unknown() });

const eventBase = { uuid: str, span_id: str, timestamp: dateTime, working_start: z.number(), metadata: meta, pending: bool };
export const Sample = strict({
  input: z.union([z.string(), z.array(ChatMessage)]),
  choices: z.array(z.string()).nullable(),
  target: z.union([z.string(), z.array(z.string())]),
  id: z.union([z.number().int(), z.string()]).nullable(),
  metadata: meta,
  sandbox: SandboxEnvironmentSpec.nullable(),
  files: z.record(z.string(), z.string()).nullable(),
  setup: str,
});
export const SampleInitEvent = strict({ ...eventBase, event: z.literal("sample_init"), sample: Sample, state: JsonValue });
export const SampleLimitEvent = strict({
  ...eventBase,
  event: z.literal("sample_limit"),
  type: z.enum(["message", "time", "working", "token", "operator", "custom"]),
  message: z.string(),
  limit: num,
});
export const ModelEvent = strict({
  ...eventBase,
  event: z.literal("model"),
  model: z.string(),
  role: str,
  input: z.array(ChatMessage),
  tools: z.array(z.unknown()),
  tool_choice: z.union([z.enum(["auto", "any", "none"]), strict({ name: z.string() })]),
  config: GenerateConfig,
  output: ModelOutput,
  retries: int,
  error: str,
  cache: z.enum(["read", "write"]).nullable(),
  call: z.unknown().nullable(),
  completed: dateTime.nullable(),
  working_time: num,
});
export const ToolEvent = strict({
  ...eventBase,
  event: z.literal("tool"),
  type: z.literal("function"),
  id: z.string(),
  function: z.string(),
  arguments: obj,
  view: ToolCallContent.nullable(),
  result: z.union([z.string(), z.number(), z.boolean(), ContentText, z.array(ContentText)]),
  truncated: z.tuple([z.number().int(), z.number().int()]).nullable(),
  error: ToolCallError.nullable(),
  events: z.array(z.unknown()),
  completed: dateTime.nullable(),
  working_time: num,
  agent: str,
  failed: bool,
  message_id: str,
});
export const ScoreEvent = strict({
  ...eventBase,
  event: z.literal("score"),
  score: Score,
  target: z.union([z.string(), z.array(z.string())]).nullable(),
  intermediate: z.boolean(),
});
export const ErrorEvent = strict({ ...eventBase, event: z.literal("error"), error: InspectEvalError });
export const InfoEvent = strict({ ...eventBase, event: z.literal("info"), source: str, data: JsonValue });
export const Event = z.discriminatedUnion("event", [SampleInitEvent, SampleLimitEvent, ModelEvent, ToolEvent, ScoreEvent, ErrorEvent, InfoEvent]);
export type Event = z.infer<typeof Event>;

export const EvalSampleLimit = strict({
  type: z.enum(["context", "time", "working", "message", "token", "operator", "custom"]),
  limit: z.number(),
});
export type EvalSampleLimit = z.infer<typeof EvalSampleLimit>;

export const EvalSample = strict({
  id: z.union([z.number().int(), z.string()]),
  epoch: z.number().int(),
  input: z.union([z.string(), z.array(ChatMessage)]),
  choices: z.array(z.string()).nullable(),
  target: z.union([z.string(), z.array(z.string())]),
  sandbox: SandboxEnvironmentSpec.nullable(),
  files: z.array(z.string()).nullable(),
  setup: str,
  messages: z.array(ChatMessage),
  output: ModelOutput,
  scores: z.record(z.string(), Score).nullable(),
  metadata: obj,
  store: obj,
  events: z.array(Event),
  model_usage: z.record(z.string(), ModelUsage),
  total_time: num,
  working_time: num,
  uuid: str,
  error: InspectEvalError.nullable(),
  error_retries: z.array(InspectEvalError).nullable(),
  attachments: z.record(z.string(), z.string()),
  limit: EvalSampleLimit.nullable(),
});
export type EvalSample = z.infer<typeof EvalSample>;

export const EvalConfig = strict({
  limit: z.union([z.number().int(), z.tuple([z.number().int(), z.number().int()])]).nullable(),
  sample_id: z.unknown().refine((v) => v !== undefined, "required"),
  sample_shuffle: z.union([z.boolean(), z.number().int()]).nullable(),
  epochs: int,
  epochs_reducer: z.array(z.string()).nullable(),
  approval: z.unknown().refine((v) => v !== undefined, "required"),
  fail_on_error: z.union([z.boolean(), z.number()]).nullable(),
  continue_on_fail: bool,
  retry_on_error: int,
  message_limit: int,
  token_limit: int,
  time_limit: int,
  working_limit: int,
  max_samples: int,
  max_tasks: int,
  max_subprocesses: int,
  max_sandboxes: int,
  sandbox_cleanup: bool,
  log_samples: bool,
  log_realtime: bool,
  log_images: bool,
  log_buffer: int,
  log_shared: int,
  score_display: bool,
});
export type EvalConfig = z.infer<typeof EvalConfig>;

export const EvalDataset = strict({
  name: str,
  location: str,
  samples: int,
  sample_ids: z.array(z.union([z.string(), z.number().int()])).nullable(),
  shuffled: bool,
});
export const EvalRevision = strict({ type: z.literal("git"), origin: z.string(), commit: z.string() });
export const EvalScorer = strict({ name: z.string(), options: meta, metrics: z.unknown().refine((v) => v !== undefined, "required"), metadata: meta });

export const EvalSpec = strict({
  eval_set_id: str,
  eval_id: z.string(),
  run_id: z.string(),
  created: z.string(),
  task: z.string(),
  task_id: z.string(),
  task_version: z.union([z.number().int(), z.string()]),
  task_file: str,
  task_display_name: str,
  task_registry_name: str,
  task_attribs: obj,
  task_args: obj,
  task_args_passed: obj,
  solver: str,
  solver_args: meta,
  tags: z.array(z.string()).nullable(),
  dataset: EvalDataset,
  sandbox: SandboxEnvironmentSpec.nullable(),
  model: z.string(),
  model_generate_config: GenerateConfig,
  model_base_url: str,
  model_args: obj,
  model_roles: z.record(z.string(), z.unknown()).nullable(),
  config: EvalConfig,
  revision: EvalRevision.nullable(),
  packages: z.record(z.string(), z.string()),
  metadata: meta,
  scorers: z.array(EvalScorer).nullable(),
  metrics: z.unknown().refine((v) => v !== undefined, "required"),
});
export type EvalSpec = z.infer<typeof EvalSpec>;

export const EvalPlanStep = strict({ solver: z.string(), params: obj });
export const EvalPlan = strict({ name: z.string(), steps: z.array(EvalPlanStep), finish: EvalPlanStep.nullable(), config: GenerateConfig });
export const EvalMetric = strict({ name: z.string(), value: z.number(), params: obj, metadata: meta });
export const EvalScore = strict({
  name: z.string(),
  scorer: z.string(),
  reducer: str,
  scored_samples: int,
  unscored_samples: int,
  params: obj,
  metrics: z.record(z.string(), EvalMetric),
  metadata: meta,
});
export const EvalResults = strict({ total_samples: z.number().int(), completed_samples: z.number().int(), scores: z.array(EvalScore), metadata: meta });
export const EvalStats = strict({ started_at: z.string(), completed_at: z.string(), model_usage: z.record(z.string(), ModelUsage) });
export const EvalStatus = z.enum(["started", "success", "cancelled", "error"]);

/** The log's header (`header.json` of a `.eval` file): the log without its samples. */
export const EvalLogHeader = strict({
  version: z.number().int(),
  status: EvalStatus,
  eval: EvalSpec,
  plan: EvalPlan,
  results: EvalResults.nullable(),
  stats: EvalStats,
  error: InspectEvalError.nullable(),
});
export type EvalLogHeader = z.infer<typeof EvalLogHeader>;

/** The single-file `.json` log: the header with every sample (`reductions` left out: see docs/inspect-logs.md). */
export const EvalLog = strict({ ...EvalLogHeader.shape, samples: z.array(EvalSample).nullable() });
export type EvalLog = z.infer<typeof EvalLog>;

/** One entry of `summaries.json` (Inspect's EvalSampleSummary): what the viewer's sample list reads. */
export const EvalSampleSummary = strict({
  id: z.union([z.number().int(), z.string()]),
  epoch: z.number().int(),
  input: z.union([z.string(), z.array(ChatMessage)]),
  target: z.union([z.string(), z.array(z.string())]),
  metadata: obj,
  scores: z.record(z.string(), Score).nullable(),
  model_usage: z.record(z.string(), ModelUsage),
  total_time: num,
  working_time: num,
  uuid: str,
  error: str,
  limit: str,
  retries: int,
  completed: z.boolean(),
  message_count: int,
});
export type EvalSampleSummary = z.infer<typeof EvalSampleSummary>;
