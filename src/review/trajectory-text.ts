/**
 * @module
 * What the agent did, as text the trajectory signals match: each action's command or code, with every
 * base64 literal it writes decoded (an upload writes a file as `base64.b64decode("...")`, and an agent that
 * hides what it writes the same way is read in the clear).
 */
import type { ReplayStep, StoredEvent } from "../core/index.js";

export interface ActionText {
  /** The action event's seq in the run's log (0 for a step that is not from a stored run). */
  seq: number;
  tool: string;
  /** The command or code, then each decoded payload on its own lines. */
  text: string;
}

const BASE64_LITERAL = /b64decode\(\s*["']([A-Za-z0-9+/=\s]{16,})["']\s*\)/g;

/** The command, code or input of one action, with the base64 payloads it decodes appended in the clear. */
export function actionText(input: unknown): string {
  const record = typeof input === "object" && input !== null ? (input as Record<string, unknown>) : {};
  const body =
    typeof record.command === "string" ? record.command : typeof record.code === "string" ? record.code : input === undefined ? "" : JSON.stringify(input);
  const decoded: string[] = [];
  for (const match of body.matchAll(BASE64_LITERAL)) {
    const text = Buffer.from(match[1]!.replace(/\s+/g, ""), "base64").toString("utf8");
    if (!text.includes("\uFFFD")) decoded.push(text);
  }
  return decoded.length > 0 ? `${body}\n${decoded.join("\n")}` : body;
}

/** The actions of a stored run's log, in order. */
export function actionTexts(events: readonly StoredEvent[]): ActionText[] {
  const out: ActionText[] = [];
  for (const { seq, event } of events) {
    if (event.type === "action") out.push({ seq, tool: event.tool, text: actionText(event.input) });
  }
  return out;
}

/** Replay steps (an exploit file's or a reference's, uploads resolved) as the actions a run of them would record; no seq (0). */
export function stepTexts(steps: readonly ReplayStep[]): ActionText[] {
  return steps.filter((s) => s.tool !== "generate").map((s) => ({ seq: 0, tool: s.tool, text: actionText(s.input) }));
}
