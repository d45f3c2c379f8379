/**
 * @module
 * One rebench run as one sample (one epoch) of an Inspect eval log: the conversation as `messages` (the
 * model's replies with their tool calls, each tool's result), every event of the run as Inspect events
 * (model calls with usage, tool calls with working time, each protected scoring as a score event, pauses
 * and the rest as info events), the final raw and normalized scores as sample scores, usage by model, the
 * limit that stopped the run and its error. Texts over `ATTACH_CHARS` go to the sample's `attachments` and
 * are referenced as `attachment://ID`, as Inspect itself does, so the viewer opens large runs. Pure: the
 * caller reads the events (and a human run's terminal session) and decides what is published.
 * docs/inspect-logs.md is the mapping.
 */
import { createHash } from "node:crypto";
import { budgetTokens, type LimitName, normalizationLabel, normalizedFor, type RunEvent, type RunSummary, runRecord, type StoredEvent } from "../core/index.js";
import {
  type ChatMessage,
  type EvalSample,
  type EvalSampleLimit,
  type EvalSampleSummary,
  type Event,
  emptyGenerateConfig,
  type ModelOutput,
  type ModelUsage,
  type Score,
} from "../core/inspect-log.js";
import { addUsage, modelOutput } from "./inspect-model-output.js";
import { scoreMessageText } from "./score-message-text.js";

/**
 * Texts longer than this many characters are stored once in the sample's attachments (a tool's output is
 * both a tool message and a tool event: attached, it is stored once), as Inspect's own logs do.
 */
export const ATTACH_CHARS = 1_000;

/** The scorer names of a rebench sample: the final raw score and the normalized one. */
export const RAW_SCORER = "rebench_raw";
export const NORMALIZED_SCORER = "rebench_normalized";

export interface SampleInput {
  summary: RunSummary;
  events: readonly StoredEvent[];
  epoch: number;
  /** A human run's terminal session as text, where one was recorded. */
  terminal?: { text: string; tailOnly: boolean };
  /** Whether score values and graders' details were left out (a published copy of a hidden-score run). */
  scoresWithheld: boolean;
}

/** Inspect's model name for a rebench participant: `provider/model` for a model, else `rebench/<scaffold or human>`. */
export function inspectModel(summary: RunSummary): string {
  const { participant } = summary.spec;
  if (participant.model) return participant.model.replace(":", "/");
  return participant.kind === "human" ? `human/${participant.alias}` : `rebench/${participant.scaffold ?? participant.alias}`;
}

const LIMIT_TYPE: Record<LimitName, "working" | "time" | "token" | "custom" | "message"> = {
  workingSeconds: "working",
  wallSeconds: "time",
  tokens: "token",
  costUsd: "custom",
  actions: "message",
};

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

const base = (ts: string, working: number) => ({ uuid: null, span_id: null, timestamp: ts, working_start: working, metadata: null, pending: null });

/** The text of a tool's observation: a command's output (stdout, then stderr), an error, or the JSON. */
function observationText(output: unknown): string {
  const o = record(output);
  if ("stdout" in o || "exitCode" in o) {
    const stdout = typeof o.stdout === "string" ? o.stdout : "";
    const stderr = typeof o.stderr === "string" ? o.stderr : "";
    return stderr ? `${stdout}${stdout && !stdout.endsWith("\n") ? "\n" : ""}${stderr}` : stdout;
  }
  if (typeof o.error === "string") return o.error;
  return typeof output === "string" ? output : (JSON.stringify(output, null, 2) ?? "");
}

function toolError(output: unknown): { type: "timeout" | "unknown"; message: string } | null {
  const o = record(output);
  if (o.timedOut === true) return { type: "timeout", message: `timed out${typeof o.timeoutSeconds === "number" ? ` after ${o.timeoutSeconds} s` : ""}` };
  if (o.interrupted === true || (typeof o.error === "string" && !("stdout" in o))) return { type: "unknown", message: String(o.error ?? "interrupted") };
  return null;
}

/** The sample of one run. */
export function inspectSample(input: SampleInput): EvalSample {
  const { summary, events, epoch } = input;
  const { spec } = summary;
  const attachments: Record<string, string> = {};
  const attach = (text: string): string => {
    if (text.length <= ATTACH_CHARS) return text;
    const id = createHash("md5").update(text).digest("hex");
    attachments[id] = text;
    return `attachment://${id}`;
  };
  const task = `${spec.environment}/${spec.variant} (${spec.task})`;
  const inputText = `RE-Bench environment ${task}, run ${summary.id} by ${spec.participant.alias}`;
  const messages: ChatMessage[] = [{ id: null, content: inputText, source: "input", metadata: null, role: "user", tool_call_id: null }];
  const out: Event[] = [];
  const modelUsage: Record<string, ModelUsage> = {};
  const observations = new Map<string, Extract<RunEvent, { type: "observation" }> & { ts: string }>();
  for (const { event } of events) if (event.type === "observation") observations.set(event.actionId, event);
  const pendingCalls: string[] = [];
  let lastOutput: ModelOutput | undefined;
  let working = 0;
  let lastTs: number | undefined;
  let paused = 0;
  let limit: EvalSampleLimit | null = null;
  let error: EvalSample["error"] = null;
  const model = inspectModel(summary);

  for (const { seq, event } of events) {
    const t = Date.parse(event.ts);
    if (lastTs !== undefined && paused === 0 && t > lastTs) working += (t - lastTs) / 1000;
    lastTs = t;
    const at = base(event.ts, Number(working.toFixed(3)));
    switch (event.type) {
      case "run_created":
        out.push({
          ...at,
          event: "sample_init",
          sample: {
            input: inputText,
            choices: null,
            target: "",
            id: spec.task,
            metadata: { rebench: { runId: summary.id, environment: spec.environment, variant: spec.variant, task: spec.task } },
            sandbox: { type: spec.config.sandbox ?? "local", config: null },
            files: null,
            setup: null,
          },
          state: { spec: event.spec },
        });
        break;
      case "generation": {
        const output = modelOutput(event, seq, attach);
        const name = output.model;
        modelUsage[name] = addUsage(modelUsage[name], output.usage!);
        const content = record(event.content);
        const first = output.choices[0];
        lastOutput = output;
        if (first) {
          messages.push(first.message);
          pendingCalls.push(...(first.message.tool_calls ?? []).map((c) => c.id));
        }
        out.push({
          ...at,
          event: "model",
          model: name,
          role: null,
          input: [],
          tools: [],
          tool_choice: "auto",
          config: emptyGenerateConfig(),
          output,
          retries: typeof content.attempts === "number" ? content.attempts - 1 : null,
          error: null,
          cache: null,
          call: null,
          completed: event.ts,
          working_time: event.durationMs === undefined ? null : event.durationMs / 1000,
        });
        break;
      }
      case "action": {
        const args = typeof event.input === "object" && event.input !== null && !Array.isArray(event.input) ? record(event.input) : { input: event.input };
        let id = pendingCalls.shift();
        if (id === undefined) {
          // A call no model made (a replay, a human's command): an assistant turn of its own, so the transcript reads as a conversation.
          id = event.actionId;
          messages.push({
            id: null,
            content: "",
            source: "generate",
            metadata: null,
            role: "assistant",
            tool_calls: [{ id, function: event.tool, arguments: args, parse_error: null, view: null, type: "function" }],
            model,
          });
        }
        const observation = observations.get(event.actionId);
        const text = observation ? attach(observationText(observation.output)) : "";
        const err = observation ? toolError(observation.output) : null;
        const o = record(observation?.output);
        messages.push({ id: null, content: text, source: null, metadata: null, role: "tool", tool_call_id: id, function: event.tool, error: err });
        out.push({
          ...at,
          event: "tool",
          type: "function",
          id,
          function: event.tool,
          arguments: args,
          view: null,
          result: text,
          truncated: null,
          error: err,
          events: [],
          completed: observation?.ts ?? null,
          working_time: typeof o.durationMs === "number" ? o.durationMs / 1000 : observation ? Math.max(0, (Date.parse(observation.ts) - t) / 1000) : null,
          agent: null,
          failed: err ? true : null,
          message_id: null,
        });
        break;
      }
      case "observation":
        break; // written with its action
      case "score_logged": {
        const { entry } = event;
        const o = entry.outcome;
        const value = o.kind === "scored" ? (Number.isFinite(o.value) ? o.value : "(hidden)") : o.kind;
        const why = o.kind === "invalid" ? o.reason : o.kind === "error" ? o.message : o.kind === "timedOut" ? `timed out after ${o.afterSeconds} s` : null;
        const message = scoreMessageText(entry.message, "\n");
        out.push({
          ...at,
          working_start: entry.elapsedSeconds,
          event: "score",
          score: {
            history: [],
            value,
            answer: null,
            explanation: [why, message].filter((s) => s).join("\n") || null,
            metadata: {
              trigger: event.trigger,
              outcome: o.kind === "scored" && !Number.isFinite(o.value) ? { kind: "scored" } : o,
              elapsedSeconds: entry.elapsedSeconds,
              message: entry.message,
              details: entry.details,
            },
          },
          target: null,
          intermediate: !(event.trigger === "submit" || event.trigger === "limit"),
        });
        break;
      }
      case "pause_started":
      case "pause_ended":
        paused += event.type === "pause_started" ? 1 : paused > 0 ? -1 : 0;
        out.push({
          ...at,
          event: "info",
          source: "rebench pause",
          data: { pause: event.type === "pause_started" ? "started" : "ended", reason: event.reason },
        });
        break;
      case "time_reported":
        working = event.workingSeconds;
        out.push({ ...at, working_start: working, event: "info", source: "rebench time", data: { ...event } });
        break;
      case "run_finished":
        if (event.stopReason === "limit" && event.limit) {
          const value = spec.limits[event.limit] ?? null;
          limit = value === null ? null : { type: LIMIT_TYPE[event.limit], limit: value };
          out.push({ ...at, event: "sample_limit", type: LIMIT_TYPE[event.limit], message: `the run reached its ${event.limit} limit`, limit: value });
        }
        out.push({ ...at, event: "info", source: "rebench run_finished", data: { ...event } });
        break;
      case "run_failed":
        error = { message: event.error, traceback: "", traceback_ansi: "" };
        out.push({ ...at, event: "error", error });
        break;
      case "note": {
        const isRecording = event.message.startsWith("human: terminal session recorded") && input.terminal;
        const data = isRecording
          ? { message: event.message, terminalSession: `attachment://${attachTerminal(input.terminal!.text, attachments)}`, tailOnly: input.terminal!.tailOnly }
          : { message: event.message, data: event.data ?? null };
        out.push({ ...at, event: "info", source: "rebench note", data });
        break;
      }
      default:
        out.push({ ...at, event: "info", source: `rebench ${event.type}`, data: { ...event } });
    }
  }
  const record_ = runRecord(summary);
  const scores: Record<string, Score> = {};
  if (summary.finalRaw !== null) {
    const normalization = spec.normalization ?? null;
    const meta = {
      normalization,
      normalizedBy: normalization ? normalizationLabel(normalization) : null,
      aggregation: spec.aggregation,
      direction: spec.direction,
    };
    const raw: Score = {
      history: [],
      value: summary.finalRaw,
      answer: null,
      explanation: `final raw score (${spec.aggregation} of the score log)`,
      metadata: meta,
    };
    const normalized = normalizedFor(spec, summary.finalRaw);
    if (normalized !== null) {
      scores[NORMALIZED_SCORER] = {
        history: [],
        value: normalized,
        answer: null,
        explanation: `normalized by ${meta.normalizedBy} (0 the starting solution, 1 the reference)`,
        metadata: meta,
      };
    }
    scores[RAW_SCORER] = raw;
  }
  return {
    id: spec.task,
    epoch,
    input: inputText,
    choices: null,
    target: "",
    sandbox: { type: spec.config.sandbox ?? "local", config: null },
    files: null,
    setup: null,
    messages,
    output: lastOutput ?? { model, choices: [], completion: "", usage: null, time: null, metadata: null, error: null },
    scores: Object.keys(scores).length > 0 ? scores : null,
    metadata: {
      rebench: {
        ...record_,
        aggregation: spec.aggregation,
        direction: spec.direction,
        provenance: spec.provenance ?? null,
        limits: spec.limits,
        scoresWithheld: input.scoresWithheld,
        budgetTokens: budgetTokens(summary.usage),
      },
    },
    store: {},
    events: out,
    model_usage: modelUsage,
    total_time: summary.usage.wallSeconds,
    working_time: summary.usage.workingSeconds,
    uuid: summary.id,
    error,
    error_retries: null,
    attachments,
    limit,
  };
}

function attachTerminal(text: string, attachments: Record<string, string>): string {
  const id = createHash("md5").update(text).digest("hex");
  attachments[id] = text;
  return id;
}

/** The sample's entry of `summaries.json`. */
export function sampleSummary(sample: EvalSample): EvalSampleSummary {
  const scores = sample.scores;
  return {
    id: sample.id,
    epoch: sample.epoch,
    input: sample.input,
    target: sample.target,
    metadata: sample.metadata,
    scores,
    model_usage: sample.model_usage,
    total_time: sample.total_time,
    working_time: sample.working_time,
    uuid: sample.uuid,
    error: sample.error?.message ?? null,
    limit: sample.limit?.type ?? null,
    retries: null,
    completed: sample.error === null && scores !== null,
    message_count: sample.messages.length,
  };
}
