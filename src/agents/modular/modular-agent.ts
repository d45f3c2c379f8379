/**
 * @module
 * The `modular` scaffold: a ReAct loop in the manner of METR's modular agent. Each turn the model sees the
 * system prompt, the task and as many of the latest turns as fit its context window, and answers with tool
 * calls (bash, python, score, score_log, submit) that run through the run's tool API; their results go back
 * as tool results, long ones saved to a file with head and tail shown. Notes tell the model how much of its
 * budget is left. It stops when it submits or the run ends (a limit reached mid-call aborts the call).
 * The model's reasoning (OpenAI's encrypted reasoning, Anthropic's signed thinking) stays with each of its
 * messages and goes back with them; each request marks the task and its own end as cache breakpoints, so
 * a provider that caches reads the conversation so far and writes only the new turn.
 */
import { z } from "zod";
import { type Agent, type AgentSession, promptTokens, RunEndedError } from "../../core/index.js";
import { checkThinkingBudget, ModelSettings, markBreakpoints, modelRequestOptions } from "../model-settings.js";
import { generateInRun } from "../model-turn.js";
import type { Message, ModelClient } from "../models/model-client.js";
import { DEFAULT_NOTICE_FRACTIONS, usageNotices } from "../usage-notices.js";
import { estimateTokens, fitToContext } from "./context-window.js";
import { runToolCall, toolDefinitions } from "./modular-tools.js";
import { systemPrompt, taskMessage } from "./prompts.js";
import { rebuildConversation } from "./rebuild-conversation.js";

/** The modular scaffold's settings (`--agent-config`), with their defaults. */
export const ModularSettings = z
  .object({
    /** Timeout of a bash or python call that names none, in seconds. */
    defaultTimeoutSeconds: z.number().positive().default(600),
    /** The longest timeout the model may ask for, in seconds (the run's remaining time caps it anyway). */
    maxTimeoutSeconds: z.number().positive().default(86_400),
    /** Tool results longer than this are saved to `.outputs/` in the workspace and shown as head and tail. */
    outputLimitChars: z.number().int().min(500).default(10_000),
    /** Output tokens per reply. */
    maxTokens: z.number().int().positive().default(4096),
    temperature: z.number().min(0).max(2).optional(),
    /** Context window in tokens; default the model table's, else 32,768. */
    contextWindow: z.number().int().positive().optional(),
    /** Fractions of each budget at which the model is told what is left. */
    noticeFractions: z.array(z.number().gt(0).lt(1)).default([...DEFAULT_NOTICE_FRACTIONS]),
    /** Replies in a row without a tool call after which the agent stops (the run is then scored as submitted). */
    maxRepliesWithoutTools: z.number().int().positive().default(5),
    ...ModelSettings.shape,
  })
  .strict()
  .superRefine(checkThinkingBudget);
export type ModularSettings = z.infer<typeof ModularSettings>;

const DEFAULT_CONTEXT_WINDOW = 32_768;
const NUDGE = "No tool was called. Continue the task by calling a tool; call submit when you are done.";

export class ModularAgent implements Agent {
  constructor(
    readonly client: ModelClient,
    readonly settings: ModularSettings,
  ) {}

  async run(session: AgentSession): Promise<void> {
    const { settings, client } = this;
    const direction = session.spec.direction;
    const tools = toolDefinitions(settings);
    const toolsChars = JSON.stringify(tools).length;
    const contextWindow = settings.contextWindow ?? client.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
    const messages: Message[] = [
      { role: "system", content: systemPrompt(settings) },
      { role: "user", content: taskMessage(session.spec, session.instructions) },
      ...rebuildConversation(await session.history(), direction, settings.outputLimitChars),
    ];
    const modelOptions = modelRequestOptions(settings, session.runId);
    let charsPerToken = 3.5;
    let announced = new Set<string>();
    let withoutTools = 0;
    let dropped = 0;
    while (!session.signal.aborted) {
      const budgetTokens = contextWindow - settings.maxTokens - Math.ceil(toolsChars / charsPerToken) - 256;
      const fitted = fitToContext(messages, { budgetTokens, charsPerToken });
      if (fitted.droppedTurns > dropped) {
        await session.note(`modular: left out ${fitted.droppedTurns} early turn(s) to fit the ${contextWindow}-token context window`);
      }
      dropped = fitted.droppedTurns;
      let reply: Awaited<ReturnType<typeof generateInRun>>;
      try {
        reply = await generateInRun(session, client, {
          ...modelOptions,
          // Cached prefixes: the tools and the system prompt (by the client), the task, and the conversation so far.
          messages: markBreakpoints(fitted.messages, [1, -1]),
          tools,
          maxTokens: settings.maxTokens,
          ...(settings.temperature === undefined ? {} : { temperature: settings.temperature }),
        });
      } catch (error) {
        if (session.signal.aborted || error instanceof RunEndedError) return;
        throw error;
      }
      charsPerToken = calibrate(charsPerToken, fitted.messages, toolsChars, promptTokens(reply.usage));
      const message = reply.choices[0]!.message;
      messages.push(message);
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) {
        withoutTools += 1;
        if (withoutTools >= settings.maxRepliesWithoutTools) {
          await session.note(`modular: ${withoutTools} replies in a row called no tool; the agent stops`);
          return;
        }
        messages.push({ role: "user", content: NUDGE });
        continue;
      }
      withoutTools = 0;
      for (const call of calls) {
        let outcome: Awaited<ReturnType<typeof runToolCall>>;
        try {
          outcome = await runToolCall(session, call, settings, direction);
        } catch (error) {
          if (session.signal.aborted || error instanceof RunEndedError) return;
          throw error;
        }
        messages.push({ role: "tool", toolCallId: call.id, content: outcome.content, ...(outcome.isError ? { isError: true } : {}) });
        if (outcome.submitted) return;
      }
      const notice = usageNotices(await session.tools.usage(), announced, settings.noticeFractions);
      announced = notice.announced;
      if (notice.text) messages.push({ role: "user", content: notice.text });
    }
  }
}

/** Characters per token as the provider counted the last prompt (bounded, so one odd count cannot derail it). */
function calibrate(previous: number, messages: readonly Message[], toolsChars: number, inputTokens: number): number {
  if (inputTokens <= 0) return previous;
  const overhead = estimateTokens(messages, Infinity);
  const chars = messages.reduce((sum, m) => sum + m.content.length, 0) + toolsChars;
  const measured = chars / Math.max(1, inputTokens - overhead);
  return Math.min(8, Math.max(1.5, measured));
}
