/**
 * @module
 * The OpenAI chat-completions wire format (also spoken by vLLM, llama.cpp server and other compatible
 * endpoints): the request we send, checked by the scripted test server the way the real API checks it,
 * and the response we accept, lenient where compatible servers differ (missing ids, usage or model).
 */
import { z } from "zod";

export const OpenAIToolCall = z.object({
  id: z.string().min(1),
  type: z.literal("function"),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});
export type OpenAIToolCall = z.infer<typeof OpenAIToolCall>;

export const OpenAIMessage = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: z.string() }),
  z.object({ role: z.literal("user"), content: z.string() }),
  z.object({
    role: z.literal("assistant"),
    content: z.string().nullable(),
    tool_calls: z.array(OpenAIToolCall).min(1).optional(),
  }),
  z.object({ role: z.literal("tool"), tool_call_id: z.string().min(1), content: z.string() }),
]);
export type OpenAIMessage = z.infer<typeof OpenAIMessage>;

export const OpenAITool = z.object({
  type: z.literal("function"),
  function: z.object({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});

export const OpenAIChatRequest = z
  .object({
    model: z.string().min(1),
    messages: z.array(OpenAIMessage).min(1),
    tools: z.array(OpenAITool).optional(),
    tool_choice: z
      .union([
        z.enum(["auto", "none", "required"]),
        z.object({ type: z.literal("function"), function: z.object({ name: z.string() }) }),
      ])
      .optional(),
    n: z.number().int().positive().optional(),
    temperature: z.number().min(0).max(2).optional(),
    max_tokens: z.number().int().positive().optional(),
    max_completion_tokens: z.number().int().positive().optional(),
    stop: z.array(z.string()).max(4).optional(),
  })
  .superRefine((request, ctx) => {
    // The API refuses a tool message that answers no pending call, and a call left unanswered.
    let pending = new Set<string>();
    request.messages.forEach((message, index) => {
      if (message.role === "tool") {
        if (!pending.delete(message.tool_call_id)) {
          ctx.addIssue({
            code: "custom",
            path: ["messages", index],
            message: `tool message answers ${message.tool_call_id}, which no preceding assistant tool call made`,
          });
        }
        return;
      }
      if (pending.size > 0) {
        ctx.addIssue({
          code: "custom",
          path: ["messages", index],
          message: `tool calls ${[...pending].join(", ")} were not answered by tool messages`,
        });
      }
      pending = new Set(message.role === "assistant" ? (message.tool_calls ?? []).map((c) => c.id) : []);
    });
    if (request.tool_choice !== undefined && request.tool_choice !== "none" && !request.tools?.length) {
      ctx.addIssue({ code: "custom", path: ["tool_choice"], message: "tool_choice is only allowed when tools are given" });
    }
  });
export type OpenAIChatRequest = z.infer<typeof OpenAIChatRequest>;

/** Compatible servers leave out ids, `type` and usage now and then; we accept that and fill in. */
export const OpenAIChatResponse = z.object({
  id: z.string().optional(),
  model: z.string().optional(),
  choices: z.array(
    z.object({
      index: z.number().int().nonnegative().optional(),
      message: z.object({
        role: z.string().optional(),
        content: z.string().nullable().optional(),
        refusal: z.string().nullable().optional(),
        tool_calls: z
          .array(
            z.object({
              id: z.string().optional(),
              type: z.string().optional(),
              function: z.object({ name: z.string(), arguments: z.string().nullable().optional() }),
            }),
          )
          .nullable()
          .optional(),
      }),
      finish_reason: z.string().nullable().optional(),
    }),
  ),
  usage: z
    .object({ prompt_tokens: z.number().int().nonnegative(), completion_tokens: z.number().int().nonnegative() })
    .nullable()
    .optional(),
});
export type OpenAIChatResponse = z.infer<typeof OpenAIChatResponse>;
