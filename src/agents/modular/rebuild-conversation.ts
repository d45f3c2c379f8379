/**
 * @module
 * After an orchestrator restart, the modular agent continues from its run's history: every generation
 * event keeps the assistant message, and the observations that follow answer its tool calls in order (the
 * scaffold's own saves of long outputs skipped, a call cut off by the crash answered as interrupted).
 * Budget notes and nudges are not kept; a line tells the model that the run was resumed.
 */
import type { CommandObservation, Direction, ScoreView, StoredEvent } from "../../core/index.js";
import { AssistantMessage, type Message } from "../models/model-client.js";
import { scoreLogText, scoreText } from "../score-text.js";
import { commandText, headTail } from "./command-text.js";
import { SAVE_OUTPUT_MARKER } from "./modular-tools.js";

export const RESUMED_NOTE =
  "[The run was interrupted and has resumed here. Your workspace is as you left it; a command that was running when it stopped may have run only in part.]";

/** The turns after the task message, rebuilt from the history; empty when the history holds none. */
export function rebuildConversation(history: readonly StoredEvent[], direction: Direction, outputLimitChars: number): Message[] {
  const messages: Message[] = [];
  const pending: string[] = [];
  const skipped = new Set<string>();
  for (const { event } of history) {
    if (event.type === "generation") {
      const message = firstMessage(event.content);
      if (!message) continue;
      answerRemaining(messages, pending);
      messages.push(message);
      pending.push(...(message.toolCalls ?? []).map((c) => c.id));
    } else if (event.type === "action") {
      const input = event.input as { code?: unknown } | undefined;
      if (event.tool === "python" && typeof input?.code === "string" && input.code.startsWith(SAVE_OUTPUT_MARKER)) skipped.add(event.actionId);
    } else if (event.type === "observation" && !skipped.has(event.actionId)) {
      const id = pending.shift();
      if (id !== undefined) messages.push({ role: "tool", toolCallId: id, content: observationText(event.tool, event.output, direction, outputLimitChars) });
    }
  }
  answerRemaining(messages, pending);
  if (messages.length > 0) messages.push({ role: "user", content: RESUMED_NOTE });
  return messages;
}

function firstMessage(content: unknown): AssistantMessage | undefined {
  const choices = (content as { choices?: Array<{ message?: unknown }> } | undefined)?.choices;
  const parsed = AssistantMessage.safeParse(choices?.[0]?.message);
  return parsed.success ? parsed.data : undefined;
}

function answerRemaining(messages: Message[], pending: string[]): void {
  for (const id of pending.splice(0)) {
    messages.push({ role: "tool", toolCallId: id, content: "interrupted: the run stopped before this call returned", isError: true });
  }
}

function observationText(tool: string, output: unknown, direction: Direction, limit: number): string {
  const o = output as Record<string, unknown> | undefined;
  if (o && typeof o.error === "string") return `${o.interrupted ? "interrupted" : "failed"}: ${o.error}`;
  switch (tool) {
    case "bash":
    case "python":
      return headTail(commandText(output as CommandObservation), limit).text;
    case "score":
      return scoreText(output as ScoreView, direction);
    case "score_log":
      return scoreLogText(output as ScoreView[], direction);
    default:
      return JSON.stringify(output);
  }
}
