/**
 * @module
 * A stored event as one item of the run page's trajectory: a title, a few badges (tokens, exit code,
 * duration) and the texts worth reading (reasoning, messages and tool calls of a generation, a command, an
 * output stream), each cut to a preview with its full size unless the whole item is asked for. Plain text
 * only: the page puts it in the DOM as text, so whatever an agent wrote stays text.
 */
import type { RunEvent, StoredEvent } from "../core/index.js";
import type { ItemPart, TrajectoryItem } from "./api-types.js";
import { itemKind } from "./item-kind.js";
import { scoreMessageText } from "./score-message-text.js";

/** A part's preview: at most this many characters... */
export const PREVIEW_CHARS = 800;
/** ...and this many lines. */
export const PREVIEW_LINES = 8;

export function trajectoryItem(stored: StoredEvent, options: { full?: boolean } = {}): TrajectoryItem {
  const { event, seq } = stored;
  const { title, badges, parts } = describe(event);
  const shown = parts.filter((p) => p.text !== "").map((p) => (options.full ? whole(p) : preview(p)));
  return { seq, ts: event.ts, type: event.type, kind: itemKind(event.type), title, badges, parts: shown, complete: shown.every((p) => p.complete) };
}

interface RawPart {
  label: string;
  text: string;
  tone?: ItemPart["tone"];
}

function whole(part: RawPart): ItemPart {
  return { ...part, bytes: Buffer.byteLength(part.text), complete: true };
}

function preview(part: RawPart): ItemPart {
  const bytes = Buffer.byteLength(part.text);
  let text = part.text.length > PREVIEW_CHARS ? part.text.slice(0, PREVIEW_CHARS) : part.text;
  let at = -1;
  for (let line = 0; line < PREVIEW_LINES; line++) {
    at = text.indexOf("\n", at + 1);
    if (at < 0) break;
  }
  if (at >= 0 && at < text.length - 1) text = text.slice(0, at);
  return { ...part, text, bytes, complete: text.length === part.text.length };
}

function json(value: unknown): string {
  if (value === undefined) return "";
  if (typeof value === "string") return value;
  return JSON.stringify(value, null, 2) ?? "";
}

function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function describe(event: RunEvent): { title: string; badges: string[]; parts: RawPart[] } {
  switch (event.type) {
    case "generation":
      return generation(event);
    case "action": {
      const input = record(event.input);
      const text =
        typeof input.command === "string"
          ? input.command
          : typeof input.code === "string"
            ? input.code
            : typeof input.submission === "string"
              ? input.submission
              : json(event.input);
      const badges = typeof input.timeoutSeconds === "number" ? [`timeout ${input.timeoutSeconds} s`] : [];
      return {
        title: `${event.actionId} ${event.tool}`,
        badges,
        parts: [{ label: event.tool === "python" ? "code" : event.tool === "bash" ? "command" : "input", text: text === "{}" ? "" : text }],
      };
    }
    case "observation":
      return observation(event);
    case "score_logged": {
      const { outcome, message, details } = event.entry;
      const what =
        outcome.kind === "scored"
          ? `scored ${Number.isFinite(outcome.value) ? outcome.value : "(hidden)"}`
          : outcome.kind === "invalid"
            ? `invalid: ${outcome.reason}`
            : outcome.kind === "timedOut"
              ? `timed out after ${outcome.afterSeconds} s`
              : `error: ${outcome.message}`;
      return {
        title: `score (${event.trigger}): ${what}`,
        badges: [`at ${event.entry.elapsedSeconds.toFixed(0)} s working`],
        parts: [
          { label: "message (shown to the agent)", text: scoreMessageText(message, "\n") },
          { label: "details (stored, never shown to the agent)", text: Object.keys(details).length > 0 ? json(details) : "", tone: "muted" },
        ],
      };
    }
    case "pause_started":
      return { title: `pause started: ${event.reason}`, badges: [], parts: [] };
    case "pause_ended":
      return { title: `pause ended: ${event.reason}`, badges: [], parts: [] };
    case "state_changed":
      return { title: `state: ${event.to}${event.reason ? ` (${event.reason})` : ""}`, badges: [], parts: [] };
    case "time_reported":
      return {
        title: `time: working ${event.workingSeconds.toFixed(1)} s, paused ${event.pausedSeconds.toFixed(1)} s, wall ${event.wallSeconds.toFixed(1)} s`,
        badges: [],
        parts: [],
      };
    case "submitted":
      return { title: "submitted", badges: [], parts: [{ label: "submission", text: event.submission }] };
    case "run_finished":
      return {
        title: `finished (${event.stopReason}${event.limit ? `: ${event.limit}` : ""}): raw ${event.finalRaw ?? "none"}, normalized ${event.normalized ?? "none"}`,
        badges: [],
        parts: [],
      };
    case "run_failed":
      return { title: "failed", badges: [], parts: [{ label: "error", text: event.error, tone: "error" }] };
    case "run_moved":
      return { title: `moved to ${event.to}`, badges: [], parts: [] };
    case "note": {
      const data = record(event.data);
      const parts: RawPart[] =
        typeof data.tail === "string" ? [{ label: "the end of the terminal session", text: data.tail }] : [{ label: "data", text: json(event.data) }];
      return { title: event.message, badges: [], parts };
    }
    case "driver_attached":
      return { title: `driver attached: pid ${event.pid} on ${event.host}`, badges: [], parts: [] };
    case "job_submitted":
      return {
        title: `Slurm job ${event.jobId} submitted`,
        badges: [],
        parts: event.request.length > 0 ? [{ label: "sbatch options", text: event.request.join(" ") }] : [],
      };
    case "job_started": {
      const { gpus, cpus, memoryMb } = event.allocation;
      const badges = [
        `GPUs ${gpus.length > 0 ? gpus.join(",") : "none"}`,
        ...(cpus !== null ? [`${cpus} CPUs`] : []),
        ...(memoryMb !== null ? [`${memoryMb} MB`] : []),
        ...(event.machineClass ? [`class ${event.machineClass}`] : []),
      ];
      return { title: `Slurm job ${event.jobId} started on ${event.node}`, badges, parts: [] };
    }
    case "cancel_requested":
      return { title: `cancel requested by ${event.by}`, badges: [], parts: [] };
    case "review": {
      const { verdict, findings, reviewer } = event.review;
      const parts: RawPart[] = findings.map((f) => ({
        label: `${f.severity}: ${f.signal} (events ${f.seqs.join(", ") || "none"})`,
        text: f.excerpt ? `${f.summary}\n${f.excerpt}` : f.summary,
        ...(f.severity === "hack" ? { tone: "error" as const } : {}),
      }));
      if (reviewer.monitor) parts.push({ label: `monitor ${reviewer.monitor.model}: answer`, text: reviewer.monitor.answer, tone: "muted" });
      return { title: `review: ${verdict}`, badges: [`rules ${reviewer.rules}`, ...(reviewer.monitor ? [reviewer.monitor.model] : [])], parts };
    }
    case "run_created":
      return {
        title: `created: ${event.spec.environment}/${event.spec.variant} (${event.spec.task}) by ${event.spec.participant.alias}`,
        badges: [],
        parts: [{ label: "specification", text: json(event.spec) }],
      };
    default: {
      const unknown: never = event;
      return { title: (unknown as { type: string }).type, badges: [], parts: [{ label: "event", text: json(unknown) }] };
    }
  }
}

function generation(event: Extract<RunEvent, { type: "generation" }>) {
  const badges = [event.model, `${event.inputTokens} in · ${event.outputTokens} out tokens`];
  if (event.costUsd > 0) badges.push(`$${event.costUsd.toFixed(4)}`);
  if (event.durationMs !== undefined) badges.push(seconds(event.durationMs));
  const parts: RawPart[] = [];
  const choices = record(event.content).choices;
  if (Array.isArray(choices)) {
    choices.forEach((choice, i) => {
      const message = record(record(choice).message);
      const suffix = choices.length > 1 ? ` ${i + 1}` : "";
      for (const key of ["reasoning", "reasoning_content", "thinking"]) {
        if (message[key] !== undefined) parts.push({ label: `reasoning${suffix}`, text: json(message[key]), tone: "muted" });
      }
      if (typeof message.content === "string") parts.push({ label: `message${suffix}`, text: message.content });
      const calls = Array.isArray(message.toolCalls) ? message.toolCalls : [];
      for (const call of calls.map(record)) {
        const args = record(call.arguments);
        const text = typeof args.command === "string" ? args.command : typeof args.code === "string" ? args.code : json(call.rawArguments ?? call.arguments);
        parts.push({ label: `tool call ${String(call.name)}${suffix}`, text });
      }
    });
    const { choices: _choices, attempts, responseIds: _ids, ...rest } = record(event.content);
    if (typeof attempts === "number" && attempts > 1) badges.push(`${attempts} attempts`);
    if (Object.keys(rest).length > 0) parts.push({ label: "more", text: json(rest), tone: "muted" });
  } else if (event.content !== undefined) {
    parts.push({ label: "content", text: json(event.content) });
  }
  return { title: "generation", badges, parts };
}

function observation(event: Extract<RunEvent, { type: "observation" }>) {
  const output = record(event.output);
  const badges: string[] = [];
  const parts: RawPart[] = [];
  if ("exitCode" in output || "stdout" in output) {
    badges.push(output.exitCode === null ? "no exit code" : `exit ${String(output.exitCode)}`);
    if (typeof output.durationMs === "number") badges.push(seconds(output.durationMs));
    if (output.timedOut === true) badges.push("timed out");
    if (output.truncated === true) badges.push("output truncated");
    if (typeof output.signal === "string") badges.push(`signal ${output.signal}`);
    if (output.interrupted === true) badges.push("interrupted");
    parts.push({ label: "stdout", text: typeof output.stdout === "string" ? output.stdout : "" });
    parts.push({ label: "stderr", text: typeof output.stderr === "string" ? output.stderr : "", tone: "error" });
  } else if (typeof output.error === "string") {
    parts.push({ label: "error", text: output.error, tone: "error" });
  } else {
    parts.push({ label: "output", text: json(event.output) });
  }
  return { title: `${event.actionId} ${event.tool} → result`, badges, parts };
}
