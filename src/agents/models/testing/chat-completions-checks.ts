/**
 * @module
 * What the scripted server refuses on chat completions (the protocol of vLLM, llama.cpp server and other
 * OpenAI-compatible servers), as OpenAI's API does: the request's shape, a tool message that answers no
 * pending call, a call left unanswered, a tool choice without tools. It checks what rebench sends through
 * the SDK; it is not a client.
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
      .union([z.enum(["auto", "none", "required"]), z.object({ type: z.literal("function"), function: z.object({ name: z.string() }) })])
      .optional(),
    n: z.number().int().positive().optional(),
    temperature: z.number().min(0).max(2).optional(),
    max_tokens: z.number().int().positive().optional(),
    max_completion_tokens: z.number().int().positive().optional(),
    reasoning_effort: z.string().optional(),
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
