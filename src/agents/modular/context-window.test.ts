import { describe, expect, test } from "vitest";
import type { Message } from "../models/model-client.js";
import { estimateTokens, fitToContext } from "./context-window.js";

const turn = (n: number, size: number): Message[] => [
  { role: "assistant", content: "", toolCalls: [{ id: `c${n}`, name: "bash", arguments: { command: "x" } }] },
  { role: "tool", toolCallId: `c${n}`, content: String(n % 10).repeat(size) },
];
const head: Message[] = [
  { role: "system", content: "system" },
  { role: "user", content: "the task" },
];

describe("fitToContext()", () => {
  test("keeps everything when it fits", () => {
    const messages = [...head, ...turn(1, 100)];
    expect(fitToContext(messages, { budgetTokens: 10_000 })).toEqual({ messages, droppedTurns: 0, cutMessages: 0 });
  });

  test("drops whole turns oldest first, keeps the task and says how many went", () => {
    const messages = [...head, ...turn(1, 1000), ...turn(2, 1000), ...turn(3, 1000)];
    const fitted = fitToContext(messages, { budgetTokens: 450, charsPerToken: 4 });
    expect(fitted.droppedTurns).toBe(2);
    expect(fitted.messages.slice(0, 2)).toEqual(head);
    expect(fitted.messages[2]!.content).toMatch(/2 earlier turn\(s\)/);
    expect(fitted.messages.slice(3)).toEqual(turn(3, 1000));
    expect(estimateTokens(fitted.messages, 4)).toBeLessThanOrEqual(450);
  });

  test("cuts the latest turn to head and tail when it alone is too long", () => {
    const fitted = fitToContext([...head, ...turn(1, 40_000)], { budgetTokens: 2_000, charsPerToken: 4 });
    expect(fitted.droppedTurns).toBe(0);
    expect(fitted.cutMessages).toBe(1);
    expect(fitted.messages.at(-1)!.content).toMatch(/characters left out/);
    expect(estimateTokens(fitted.messages, 4)).toBeLessThanOrEqual(2_000);
  });
});
