/**
 * @module
 * The Anthropic messages wire format: the request we send, checked by the scripted test server with the
 * rules the real API enforces (roles alternate starting with the user, no empty text, every tool_use
 * answered by a tool_result in the next user turn), and the response we accept.
 */
import { z } from "zod";

export const AnthropicTextBlock = z.object({ type: z.literal("text"), text: z.string() });
export const AnthropicToolUseBlock = z.object({
  type: z.literal("tool_use"),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
});
export const AnthropicToolResultBlock = z.object({
  type: z.literal("tool_result"),
  tool_use_id: z.string().min(1),
  content: z.string(),
  is_error: z.boolean().optional(),
});
export const AnthropicBlock = z.discriminatedUnion("type", [
  AnthropicTextBlock,
  AnthropicToolUseBlock,
  AnthropicToolResultBlock,
]);
export type AnthropicBlock = z.infer<typeof AnthropicBlock>;

export const AnthropicMessage = z.object({
  role: z.enum(["user", "assistant"]),
  content: z.array(AnthropicBlock).min(1),
});
export type AnthropicMessage = z.infer<typeof AnthropicMessage>;

export const AnthropicRequest = z
  .object({
    model: z.string().min(1),
    max_tokens: z.number().int().positive(),
    system: z.string().optional(),
    messages: z.array(AnthropicMessage).min(1),
    tools: z
      .array(
        z.object({
          name: z.string().min(1),
          description: z.string().optional(),
          input_schema: z.record(z.string(), z.unknown()),
        }),
      )
      .optional(),
    tool_choice: z
      .object({ type: z.enum(["auto", "any", "none", "tool"]), name: z.string().optional() })
      .optional(),
    temperature: z.number().min(0).max(1).optional(),
    stop_sequences: z.array(z.string()).optional(),
  })
  .superRefine((request, ctx) => {
    const issue = (index: number, message: string): void =>
      ctx.addIssue({ code: "custom", path: ["messages", index], message });
    let pending = new Set<string>();
    request.messages.forEach((message, index) => {
      const expected = index % 2 === 0 ? "user" : "assistant";
      if (message.role !== expected) issue(index, `roles must alternate starting with user; expected ${expected}`);
      for (const block of message.content) {
        if (block.type === "text" && block.text === "") issue(index, "text content blocks must be non-empty");
        if (block.type === "tool_use" && message.role !== "assistant") issue(index, "tool_use only in assistant turns");
        if (block.type === "tool_result" && !pending.delete(block.tool_use_id)) {
          issue(index, `tool_result for ${block.tool_use_id} does not answer a tool_use of the previous turn`);
        }
      }
      if (pending.size > 0) issue(index, `tool_use ${[...pending].join(", ")} not answered by a tool_result`);
      pending = new Set(
        message.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : [])),
      );
    });
  });
export type AnthropicRequest = z.infer<typeof AnthropicRequest>;

/** Blocks other than text and tool_use (thinking, server tools) are passed over by the client. */
export const AnthropicResponse = z.object({
  id: z.string(),
  type: z.literal("message").optional(),
  role: z.literal("assistant"),
  model: z.string(),
  content: z.array(z.object({ type: z.string() }).loose()),
  stop_reason: z.string().nullable(),
  /** Anthropic always sends usage; proxies in between may not, which costs a warning, not the call. */
  usage: z
    .object({
      input_tokens: z.number().int().nonnegative(),
      output_tokens: z.number().int().nonnegative(),
      cache_creation_input_tokens: z.number().int().nonnegative().nullable().optional(),
      cache_read_input_tokens: z.number().int().nonnegative().nullable().optional(),
    })
    .nullable()
    .optional(),
});
export type AnthropicResponse = z.infer<typeof AnthropicResponse>;
