/**
 * @module
 * What the scripted server refuses on OpenAI's Responses API, as the real one does: the request's shape
 * (strict: an unknown parameter such as `n` or `stop` is refused), a function call left without its output
 * or an output that answers no call, reasoning settings or a temperature sent to the wrong kind of model,
 * and reasoning items that cannot be used: with `store: false` a reasoning item must carry the
 * `encrypted_content` it was issued with (OpenAI keeps nothing to look it up by id), and it must be
 * followed by the item it led to. It checks what rebench sends through the SDK; it is not a client.
 */
import { z } from "zod";

const InputText = z.object({ type: z.literal("input_text"), text: z.string() }).strict();
const OutputText = z
  .object({ type: z.literal("output_text"), text: z.string(), annotations: z.array(z.unknown()).optional(), logprobs: z.array(z.unknown()).optional() })
  .strict();
const Refusal = z.object({ type: z.literal("refusal"), refusal: z.string() }).strict();

const MessageItem = z
  .object({
    type: z.literal("message").optional(),
    id: z.string().optional(),
    role: z.enum(["user", "assistant", "system", "developer"]),
    content: z.union([z.string(), z.array(z.union([InputText, OutputText, Refusal]))]),
    status: z.string().optional(),
    phase: z.enum(["commentary", "final_answer"]).nullable().optional(),
  })
  .strict();
const FunctionCallItem = z
  .object({
    type: z.literal("function_call"),
    id: z.string().optional(),
    call_id: z.string().min(1),
    name: z.string().min(1),
    arguments: z.string(),
    status: z.string().optional(),
  })
  .strict();
const FunctionCallOutputItem = z
  .object({ type: z.literal("function_call_output"), id: z.string().optional(), call_id: z.string().min(1), output: z.string(), status: z.string().optional() })
  .strict();
const ReasoningItem = z
  .object({
    type: z.literal("reasoning"),
    id: z.string().min(1),
    summary: z.array(z.object({ type: z.literal("summary_text"), text: z.string() }).strict()),
    content: z.array(z.object({ type: z.literal("reasoning_text"), text: z.string() }).strict()).optional(),
    encrypted_content: z.string().nullable().optional(),
    status: z.string().optional(),
  })
  .strict();

export const InputItem = z.union([MessageItem, FunctionCallItem, FunctionCallOutputItem, ReasoningItem]);
export type InputItem = z.infer<typeof InputItem>;

export const ResponsesRequest = z
  .object({
    model: z.string().min(1),
    input: z.union([z.string(), z.array(InputItem)]),
    instructions: z.string().nullable().optional(),
    tools: z
      .array(
        z
          .object({
            type: z.literal("function"),
            name: z.string().min(1),
            description: z.string().nullable().optional(),
            parameters: z.record(z.string(), z.unknown()).nullable(),
            strict: z.boolean().nullable(),
          })
          .strict(),
      )
      .optional(),
    tool_choice: z.union([z.enum(["auto", "none", "required"]), z.object({ type: z.literal("function"), name: z.string() }).strict()]).optional(),
    max_output_tokens: z.number().int().min(16).nullable().optional(),
    temperature: z.number().min(0).max(2).nullable().optional(),
    reasoning: z
      .object({
        effort: z.enum(["none", "minimal", "low", "medium", "high", "xhigh"]).nullable().optional(),
        summary: z.enum(["auto", "concise", "detailed"]).nullable().optional(),
      })
      .strict()
      .nullable()
      .optional(),
    include: z
      .array(z.enum(["reasoning.encrypted_content", "message.output_text.logprobs"]))
      .nullable()
      .optional(),
    store: z.boolean().nullable().optional(),
    previous_response_id: z.string().nullable().optional(),
    prompt_cache_key: z.string().max(64).optional(),
    parallel_tool_calls: z.boolean().nullable().optional(),
    stream: z.boolean().nullable().optional(),
  })
  .strict();
export type ResponsesRequest = z.infer<typeof ResponsesRequest>;

export interface ResponsesCheckOptions {
  /** Whether the model reasons (takes `reasoning`, refuses `temperature`). */
  reasoningModel: boolean;
  /** Whether `encrypted_content` is what this server issued for the reasoning item `id`. */
  verifyReasoning(id: string, encrypted: string): boolean;
}

type Issue = { path: (string | number)[]; message: string };

export function responsesIssues(request: ResponsesRequest, options: ResponsesCheckOptions): Issue[] {
  const issues: Issue[] = [];
  const issue = (path: (string | number)[], message: string): void => {
    issues.push({ path, message });
  };
  if (options.reasoningModel && request.temperature !== undefined && request.temperature !== null) {
    issue(["temperature"], `Unsupported parameter: 'temperature' is not supported with this model.`);
  }
  if (!options.reasoningModel && request.reasoning) issue(["reasoning"], `Unsupported parameter: 'reasoning' is not supported with this model.`);
  if (!options.reasoningModel && request.include?.includes("reasoning.encrypted_content")) {
    issue(["include"], "Encrypted content is not supported with this model.");
  }
  if (request.tool_choice !== undefined && request.tool_choice !== "none" && !request.tools?.length) {
    issue(["tool_choice"], "Tool choice is only allowed when tools are specified.");
  }
  const items = typeof request.input === "string" ? [] : request.input;
  const calls = new Set<string>();
  const answered = new Set<string>();
  items.forEach((item, index) => {
    if (item.type === "function_call") calls.add(item.call_id);
    if (item.type === "function_call_output") {
      if (!calls.has(item.call_id)) issue(["input", index], `No tool call found for function call output with call_id ${item.call_id}.`);
      answered.add(item.call_id);
    }
    if (item.type === "reasoning") {
      if (!item.encrypted_content) {
        if (request.store === false) {
          issue(
            ["input", index],
            `Item with id '${item.id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
          );
        }
      } else if (!options.verifyReasoning(item.id, item.encrypted_content)) {
        issue(["input", index, "encrypted_content"], "The encrypted content could not be verified (invalid_encrypted_content).");
      }
      const next = items[index + 1];
      const follows =
        next !== undefined &&
        (next.type === "reasoning" || next.type === "function_call" || (next.type !== "function_call_output" && next.role === "assistant"));
      if (!follows) issue(["input", index], `Item '${item.id}' of type 'reasoning' was provided without its required following item.`);
    }
  });
  for (const id of calls) if (!answered.has(id)) issue(["input"], `No tool output found for function call ${id}.`);
  return issues;
}
