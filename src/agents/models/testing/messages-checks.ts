/**
 * @module
 * What the scripted Anthropic server refuses, as the real messages API does: the request's shape (strict:
 * an unknown parameter is refused, and from API version 2026-10-21 on so are `temperature`, `top_p` and
 * `top_k`), roles that alternate starting with the user, no empty text, every tool_use answered by a
 * tool_result in the next user turn, at most four `cache_control` breakpoints with 1-hour ones before
 * 5-minute ones, and extended thinking's rules: a budget of at least 1024 below `max_tokens`, no forced
 * tool choice, thinking blocks returned with the signature they were issued with, and an assistant turn
 * that is using tools starting with its thinking. It checks what rebench sends; it is not a client.
 */
import { z } from "zod";

const CacheControl = z.object({ type: z.literal("ephemeral"), ttl: z.enum(["5m", "1h"]).optional() }).strict();
const cache_control = CacheControl.nullable().optional();

export const TextBlockParam = z
  .object({ type: z.literal("text"), text: z.string(), cache_control, citations: z.array(z.unknown()).nullable().optional() })
  .strict();
const ToolUseBlockParam = z
  .object({
    type: z.literal("tool_use"),
    id: z.string().min(1),
    name: z.string().min(1),
    input: z.record(z.string(), z.unknown()),
    cache_control,
    caller: z.unknown().optional(),
  })
  .strict();
const ToolResultBlockParam = z
  .object({
    type: z.literal("tool_result"),
    tool_use_id: z.string().min(1),
    content: z.union([z.string(), z.array(TextBlockParam)]).optional(),
    is_error: z.boolean().optional(),
    cache_control,
  })
  .strict();
const ThinkingBlockParam = z.object({ type: z.literal("thinking"), thinking: z.string(), signature: z.string() }).strict();
const RedactedThinkingBlockParam = z.object({ type: z.literal("redacted_thinking"), data: z.string() }).strict();

export const BlockParam = z.discriminatedUnion("type", [
  TextBlockParam,
  ToolUseBlockParam,
  ToolResultBlockParam,
  ThinkingBlockParam,
  RedactedThinkingBlockParam,
]);
export type BlockParam = z.infer<typeof BlockParam>;

const MessageParam = z.object({ role: z.enum(["user", "assistant"]), content: z.union([z.string(), z.array(BlockParam).min(1)]) }).strict();

const Thinking = z.discriminatedUnion("type", [
  z
    .object({ type: z.literal("enabled"), budget_tokens: z.number().int().min(1024), display: z.enum(["summarized", "omitted"]).nullable().optional() })
    .strict(),
  z.object({ type: z.literal("adaptive"), display: z.enum(["summarized", "omitted"]).nullable().optional() }).strict(),
  z.object({ type: z.literal("disabled") }).strict(),
]);

export const MessagesRequest = z
  .object({
    model: z.string().min(1),
    max_tokens: z.number().int().positive(),
    system: z.union([z.string(), z.array(TextBlockParam)]).optional(),
    messages: z.array(MessageParam).min(1),
    tools: z
      .array(
        z
          .object({
            name: z.string().min(1),
            description: z.string().optional(),
            input_schema: z.record(z.string(), z.unknown()),
            cache_control,
            type: z.literal("custom").nullable().optional(),
          })
          .strict(),
      )
      .optional(),
    tool_choice: z
      .object({ type: z.enum(["auto", "any", "none", "tool"]), name: z.string().optional(), disable_parallel_tool_use: z.boolean().optional() })
      .strict()
      .optional(),
    thinking: Thinking.optional(),
    stop_sequences: z.array(z.string()).optional(),
    metadata: z.object({ user_id: z.string().nullable().optional() }).optional(),
    stream: z.boolean().optional(),
    // Known to API version 2023-06-01 only: refused from 2026-10-21 on (see messagesIssues).
    temperature: z.number().min(0).max(1).optional(),
    top_p: z.number().optional(),
    top_k: z.number().optional(),
  })
  .strict();
export type MessagesRequest = z.infer<typeof MessagesRequest>;

export interface MessagesCheckOptions {
  /** The request's `anthropic-version` header. */
  apiVersion: string;
  /** Whether this server issued `signature` for `thinking` (its own signatures). */
  verifyThinking(thinking: string, signature: string): boolean;
}

type Issue = { path: (string | number)[]; message: string };

/** The rules beyond the shape; empty when the request is fine. */
export function messagesIssues(request: MessagesRequest, options: MessagesCheckOptions): Issue[] {
  const issues: Issue[] = [];
  const issue = (path: (string | number)[], message: string): void => {
    issues.push({ path, message });
  };
  if (options.apiVersion >= "2026-10-21") {
    for (const key of ["temperature", "top_p", "top_k"] as const) if (request[key] !== undefined) issue([key], "Extra inputs are not permitted");
  }
  let pending = new Set<string>();
  request.messages.forEach((message, index) => {
    const expected = index % 2 === 0 ? "user" : "assistant";
    if (message.role !== expected) issue(["messages", index], `roles must alternate starting with user; expected ${expected}`);
    const blocks = typeof message.content === "string" ? [{ type: "text" as const, text: message.content }] : message.content;
    blocks.forEach((block, b) => {
      if (block.type === "text" && block.text === "") issue(["messages", index, "content", b], "text content blocks must be non-empty");
      if ((block.type === "tool_use" || block.type === "thinking" || block.type === "redacted_thinking") && message.role !== "assistant") {
        issue(["messages", index, "content", b], `${block.type} blocks are only allowed in assistant turns`);
      }
      if (block.type === "tool_result" && !pending.delete(block.tool_use_id)) {
        issue(["messages", index, "content", b], `tool_result for ${block.tool_use_id} does not answer a tool_use of the previous turn`);
      }
      if (block.type === "thinking" && !options.verifyThinking(block.thinking, block.signature)) {
        issue(["messages", index, "content", b], "Invalid `signature` in `thinking` block: thinking blocks must be passed back exactly as they were returned");
      }
    });
    if (pending.size > 0) issue(["messages", index], `tool_use ${[...pending].join(", ")} not answered by a tool_result`);
    pending = new Set(blocks.flatMap((b) => (b.type === "tool_use" ? [b.id] : [])));
  });
  const thinking = request.thinking;
  const thinkingOn = thinking !== undefined && thinking.type !== "disabled";
  if (thinking?.type === "enabled" && thinking.budget_tokens >= request.max_tokens) {
    issue(["thinking", "budget_tokens"], "`max_tokens` must be greater than `thinking.budget_tokens`");
  }
  if (thinkingOn && (request.tool_choice?.type === "any" || request.tool_choice?.type === "tool")) {
    issue(["tool_choice"], "Thinking may not be enabled when tool_choice forces tool use.");
  }
  if (thinkingOn) {
    // The assistant turn a tool loop is continuing must begin with its thinking.
    const lastAssistant = request.messages
      .map((m, i) => [m, i] as const)
      .filter(([m]) => m.role === "assistant")
      .at(-1);
    if (lastAssistant && Array.isArray(lastAssistant[0].content)) {
      const content = lastAssistant[0].content;
      const usesTools = content.some((b) => b.type === "tool_use");
      const first = content[0]!;
      if (usesTools && first.type !== "thinking" && first.type !== "redacted_thinking") {
        issue(
          ["messages", lastAssistant[1], "content", 0, "type"],
          `Expected \`thinking\` or \`redacted_thinking\`, but found \`${first.type}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block`,
        );
      }
    }
  }
  const ttls = cacheControls(request).map((c) => c.ttl ?? "5m");
  if (ttls.length > 4) issue([], `A maximum of 4 blocks with cache_control may be provided. Found ${ttls.length}.`);
  const firstShort = ttls.indexOf("5m");
  if (firstShort >= 0 && ttls.slice(firstShort).includes("1h")) issue([], "a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block");
  if (request.tool_choice !== undefined && request.tool_choice.type !== "none" && !request.tools?.length) {
    issue(["tool_choice"], "tool_choice may only be specified while providing tools");
  }
  return issues;
}

/** Every cache_control of the request, in prompt order (tools, system, messages). */
export function cacheControls(request: MessagesRequest): z.infer<typeof CacheControl>[] {
  const out: z.infer<typeof CacheControl>[] = [];
  for (const tool of request.tools ?? []) if (tool.cache_control) out.push(tool.cache_control);
  if (Array.isArray(request.system)) for (const block of request.system) if (block.cache_control) out.push(block.cache_control);
  for (const message of request.messages) {
    if (typeof message.content === "string") continue;
    for (const block of message.content) if ("cache_control" in block && block.cache_control) out.push(block.cache_control);
  }
  return out;
}
