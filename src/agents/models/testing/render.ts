/**
 * @module
 * What a scripted server says, in each API's words: a scripted reply (text, tool calls, reasoning,
 * choices, usage by kind) rendered as an OpenAI Responses API response, a chat completion, or an Anthropic
 * message, and errors in each provider's error shape. Kept apart from the server so scaffold tests can
 * script replies without caring which API carries them.
 */

/** `openai` serves the Responses API and chat completions; `anthropic` the messages API. */
export type ScriptedProtocol = "openai" | "anthropic";
/** The API of one request: what it is rendered in. */
export type ScriptedApi = "responses" | "chat" | "messages";

export interface ScriptedToolCall {
  /** Default `call_<request>_<k>` (OpenAI) or `toolu_<request>_<k>` (Anthropic). */
  id?: string;
  name: string;
  /** An object is sent as JSON; a string is sent as-is (OpenAI), to script malformed arguments. */
  arguments: Record<string, unknown> | string;
}

export interface ScriptedChoice {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /**
   * What the model thought first: an Anthropic `thinking` block (signed by the server), an OpenAI
   * `reasoning` item (its summary only when the request asks for one; sealed in `encrypted_content` when
   * it asks for that), a compatible server's `reasoning_content`.
   */
  reasoning?: string;
  /** The provider's own word; default `tool_calls`/`tool_use` with tool calls, else `stop`/`end_turn`. */
  finishReason?: string;
}

/** Tokens by kind, as rebench counts them (core/usage.ts); rendered in each API's own terms. */
export interface ScriptedUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  cacheWrite1hTokens?: number;
  reasoningTokens?: number;
}

export interface ScriptedReply extends ScriptedChoice {
  /** Several choices in one response (chat completions only); otherwise the reply itself is the one choice. */
  choices?: ScriptedChoice[];
  /**
   * Default: the server's estimate from the request (one token per 4 characters), with its prompt cache
   * (prompt-cache.ts) and the reasoning counted as output; `null` sends none.
   */
  usage?: ScriptedUsage | null;
  /** Default: the requested model. */
  model?: string;
}

export interface Rendered {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** What rendering needs from the server: ids, signatures and what the request asked for. */
export interface RenderContext {
  index: number;
  model: string;
  usage: Required<ScriptedUsage> | null;
  /** Anthropic: the signature of a thinking text. */
  signThinking(thinking: string): string;
  /** OpenAI: the encrypted content of reasoning item `id`, or undefined when the request did not ask for it. */
  sealReasoning(id: string, text: string): string | undefined;
  /** OpenAI: whether the request asked for a reasoning summary. */
  summaries: boolean;
}

export function renderReply(api: ScriptedApi, reply: ScriptedReply, context: RenderContext): Rendered {
  const choices = reply.choices ?? [reply];
  if (api === "chat") return renderChat(choices, context);
  if (choices.length !== 1) {
    const protocol = api === "messages" ? "anthropic" : "openai";
    return renderError(
      protocol,
      400,
      `scripted server: a reply with ${choices.length} choices cannot travel over ${api} (one choice per response); script one step per choice`,
    );
  }
  return api === "messages" ? renderMessage(choices[0]!, context) : renderResponse(choices[0]!, context);
}

function args(t: ScriptedToolCall): string {
  return typeof t.arguments === "string" ? t.arguments : JSON.stringify(t.arguments);
}

function renderChat(choices: ScriptedChoice[], { index, model, usage }: RenderContext): Rendered {
  return {
    status: 200,
    body: {
      id: `chatcmpl-scripted-${index}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model,
      choices: choices.map((c, i) => ({
        index: i,
        message: {
          role: "assistant",
          content: c.text ?? null,
          ...(c.reasoning ? { reasoning_content: c.reasoning } : {}),
          ...(c.toolCalls?.length
            ? {
                tool_calls: c.toolCalls.map((t, k) => ({
                  id: t.id ?? `call_${index}_${i}_${k}`,
                  type: "function",
                  function: { name: t.name, arguments: args(t) },
                })),
              }
            : {}),
        },
        finish_reason: c.finishReason ?? (c.toolCalls?.length ? "tool_calls" : "stop"),
      })),
      ...(usage === null
        ? {}
        : {
            usage: {
              prompt_tokens: usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens,
              completion_tokens: usage.outputTokens,
              total_tokens: usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + usage.outputTokens,
              prompt_tokens_details: { cached_tokens: usage.cacheReadTokens },
              completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
            },
          }),
    },
  };
}

function renderResponse(c: ScriptedChoice, context: RenderContext): Rendered {
  const { index, model, usage } = context;
  const output: unknown[] = [];
  if (c.reasoning !== undefined) {
    const id = `rs_scripted_${index}`;
    const sealed = context.sealReasoning(id, c.reasoning);
    output.push({
      type: "reasoning",
      id,
      summary: context.summaries ? [{ type: "summary_text", text: c.reasoning }] : [],
      ...(sealed === undefined ? {} : { encrypted_content: sealed }),
    });
  }
  if (c.text) {
    output.push({
      type: "message",
      id: `msg_scripted_${index}`,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: c.text, annotations: [] }],
    });
  }
  (c.toolCalls ?? []).forEach((t, k) => {
    output.push({
      type: "function_call",
      id: `fc_scripted_${index}_${k}`,
      call_id: t.id ?? `call_${index}_${k}`,
      name: t.name,
      arguments: args(t),
      status: "completed",
    });
  });
  const incomplete = c.finishReason === "max_output_tokens" || c.finishReason === "content_filter" ? c.finishReason : undefined;
  return {
    status: 200,
    body: {
      id: `resp_scripted_${index}`,
      object: "response",
      created_at: Math.floor(Date.now() / 1000),
      status: incomplete ? "incomplete" : "completed",
      error: null,
      incomplete_details: incomplete ? { reason: incomplete } : null,
      model,
      output,
      parallel_tool_calls: true,
      temperature: null,
      top_p: null,
      tool_choice: "auto",
      tools: [],
      ...(usage === null
        ? {}
        : {
            usage: {
              input_tokens: usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens,
              input_tokens_details: { cached_tokens: usage.cacheReadTokens, cache_write_tokens: usage.cacheWriteTokens },
              output_tokens: usage.outputTokens,
              output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
              total_tokens: usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + usage.outputTokens,
            },
          }),
    },
  };
}

function renderMessage(c: ScriptedChoice, context: RenderContext): Rendered {
  const { index, model, usage } = context;
  return {
    status: 200,
    body: {
      id: `msg_scripted_${index}`,
      type: "message",
      role: "assistant",
      model,
      content: [
        ...(c.reasoning !== undefined ? [{ type: "thinking", thinking: c.reasoning, signature: context.signThinking(c.reasoning) }] : []),
        ...(c.text ? [{ type: "text", text: c.text, citations: null }] : []),
        ...(c.toolCalls ?? []).map((t, k) => ({ type: "tool_use", id: t.id ?? `toolu_${index}_${k}`, name: t.name, input: t.arguments })),
      ],
      stop_reason: c.finishReason ?? (c.toolCalls?.length ? "tool_use" : "end_turn"),
      stop_sequence: null,
      ...(usage === null
        ? {}
        : {
            usage: {
              input_tokens: usage.inputTokens,
              cache_read_input_tokens: usage.cacheReadTokens,
              cache_creation_input_tokens: usage.cacheWriteTokens,
              cache_creation: {
                ephemeral_5m_input_tokens: usage.cacheWriteTokens - usage.cacheWrite1hTokens,
                ephemeral_1h_input_tokens: usage.cacheWrite1hTokens,
              },
              output_tokens: usage.outputTokens,
              output_tokens_details: { thinking_tokens: usage.reasoningTokens },
              server_tool_use: null,
              service_tier: "standard",
            },
          }),
    },
  };
}

export function renderError(protocol: ScriptedProtocol, status: number, message: string, headers: Record<string, string> = {}): Rendered {
  const type = errorType(status);
  const body = protocol === "openai" ? { error: { message, type, param: null, code: null } } : { type: "error", error: { type, message } };
  return { status, body, headers };
}

function errorType(status: number): string {
  if (status === 429) return "rate_limit_error";
  if (status === 401) return "authentication_error";
  if (status === 404) return "not_found_error";
  if (status === 529) return "overloaded_error";
  if (status >= 500) return "api_error";
  return "invalid_request_error";
}
