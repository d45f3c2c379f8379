/**
 * @module
 * Keep a conversation inside the model's context window: the leading messages (the system prompt and the
 * task) always stay, then whole turns (an assistant message with the tool results and notes that answer
 * it) are dropped oldest first until the estimate fits, and a note after the task says how many went. If
 * the latest turn alone is too long, its longest texts are cut to head and tail. Tokens are estimated from
 * characters; the scaffold calibrates characters per token from the provider's real counts.
 */
import type { Message } from "../models/model-client.js";
import { headTail } from "./command-text.js";

export interface FitOptions {
  /** Tokens the prompt may take: the context window less the reply's tokens and a margin. */
  budgetTokens: number;
  /** Estimated characters per token; default 3.5 (cautious for code and logs). */
  charsPerToken?: number;
  /** Leading messages that are always kept (system prompt, task); default 2. */
  keep?: number;
}

export interface Fitted {
  messages: Message[];
  /** Whole turns left out. */
  droppedTurns: number;
  /** Messages of the latest turn that had to be cut to head and tail. */
  cutMessages: number;
}

/** Per-message overhead of the chat formats (role, separators, tool-call ids), in tokens. */
const MESSAGE_OVERHEAD = 6;

export function estimateTokens(messages: readonly Message[], charsPerToken = 3.5): number {
  let chars = 0;
  for (const m of messages) {
    chars += m.content.length;
    if (m.role === "assistant") for (const c of m.toolCalls ?? []) chars += c.name.length + (c.rawArguments ?? JSON.stringify(c.arguments)).length;
  }
  return Math.ceil(chars / charsPerToken) + MESSAGE_OVERHEAD * messages.length;
}

/** Split messages into turns: each starts at an assistant message (anything before the first joins it). */
export function splitTurns(messages: readonly Message[]): Message[][] {
  const turns: Message[][] = [];
  for (const m of messages) {
    if (m.role === "assistant" || turns.length === 0) turns.push([m]);
    else turns[turns.length - 1]!.push(m);
  }
  return turns;
}

export function droppedNote(turns: number): Message {
  return {
    role: "user",
    content:
      `[${turns} earlier turn(s) of this conversation were left out to fit the context window. ` +
      "What you did is still in the workspace, and score_log lists every score so far.]",
  };
}

export function fitToContext(messages: readonly Message[], options: FitOptions): Fitted {
  const cpt = options.charsPerToken ?? 3.5;
  const keep = Math.min(options.keep ?? 2, messages.length);
  const head = messages.slice(0, keep);
  let turns = splitTurns(messages.slice(keep));
  const assemble = (dropped: number, rest: Message[][]) => [...head, ...(dropped > 0 ? [droppedNote(dropped)] : []), ...rest.flat()];
  let dropped = 0;
  while (turns.length > 1 && estimateTokens(assemble(dropped, turns), cpt) > options.budgetTokens) {
    turns = turns.slice(1);
    dropped += 1;
  }
  let fitted = assemble(dropped, turns);
  let cutMessages = 0;
  const cut = new Set<number>();
  // Still too long: halve the longest text of the latest turn until it fits or nothing long is left.
  while (estimateTokens(fitted, cpt) > options.budgetTokens) {
    const last = turns.length - 1;
    if (last < 0) break;
    const turn = turns[last]!;
    let longest = -1;
    for (let i = 0; i < turn.length; i++) {
      if (turn[i]!.content.length > 2000 && (longest < 0 || turn[i]!.content.length > turn[longest]!.content.length)) longest = i;
    }
    if (longest < 0) break;
    const message = turn[longest]!;
    const shorter = { ...message, content: headTail(message.content, Math.floor(message.content.length / 2)).text } as Message;
    turns = [...turns.slice(0, last), turn.map((m, i) => (i === longest ? shorter : m))];
    cut.add(longest);
    cutMessages = cut.size;
    fitted = assemble(dropped, turns);
  }
  return { messages: fitted, droppedTurns: dropped, cutMessages };
}
