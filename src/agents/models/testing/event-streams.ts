/**
 * @module
 * A whole reply as the server-sent events a streaming request gets, the way the APIs send them, so the
 * SDKs' stream readers assemble it again: Anthropic's `message_start`, one `content_block_start`, deltas
 * (text, tool input as partial JSON, thinking and its signature) and `content_block_stop` per block,
 * `message_delta` with the stop reason and the output usage, `message_stop`, with a `ping` between.
 */

type Block = { type: string; [key: string]: unknown };
type Message = { content: Block[]; stop_reason: unknown; stop_sequence?: unknown; usage?: Record<string, unknown> | null; [key: string]: unknown };

/** Whether `body` can be streamed as a message (else it is sent as it is, and the SDK makes of it what it can). */
export function isMessage(body: unknown): body is Message {
  return typeof body === "object" && body !== null && Array.isArray((body as Message).content);
}

function event(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/** Text in two pieces, so that the reader has to put it back together. */
function halves(text: string): string[] {
  const cut = Math.ceil(text.length / 2);
  return text.length < 2 ? [text] : [text.slice(0, cut), text.slice(cut)];
}

export function messageEventStream(message: Message): string {
  const { content, stop_reason, stop_sequence, usage, ...rest } = message;
  const startUsage = usage ? { ...usage, output_tokens: 1 } : usage;
  const out = [event("message_start", { message: { ...rest, content: [], stop_reason: null, stop_sequence: null, usage: startUsage } }), event("ping", {})];
  content.forEach((block, index) => {
    const delta = (d: Record<string, unknown>) => out.push(event("content_block_delta", { index, delta: d }));
    switch (block.type) {
      case "text":
        out.push(event("content_block_start", { index, content_block: { ...block, text: "" } }));
        for (const piece of halves(String(block.text))) delta({ type: "text_delta", text: piece });
        break;
      case "thinking":
        out.push(event("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } }));
        for (const piece of halves(String(block.thinking))) delta({ type: "thinking_delta", thinking: piece });
        delta({ type: "signature_delta", signature: block.signature });
        break;
      case "tool_use":
        out.push(event("content_block_start", { index, content_block: { ...block, input: {} } }));
        for (const piece of halves(JSON.stringify(block.input))) delta({ type: "input_json_delta", partial_json: piece });
        break;
      default:
        out.push(event("content_block_start", { index, content_block: block }));
    }
    out.push(event("content_block_stop", { index }));
  });
  const outputUsage = usage
    ? { output_tokens: usage.output_tokens, ...(usage.output_tokens_details ? { output_tokens_details: usage.output_tokens_details } : {}) }
    : { output_tokens: 0 };
  out.push(event("message_delta", { delta: { stop_reason, stop_sequence: stop_sequence ?? null }, usage: outputUsage }));
  out.push(event("message_stop", {}));
  return out.join("");
}

type Item = { type: string; id?: string; [key: string]: unknown };
type ResponseBody = { object: "response"; status: string; output: Item[]; [key: string]: unknown };

export function isResponse(body: unknown): body is ResponseBody {
  return typeof body === "object" && body !== null && (body as ResponseBody).object === "response" && Array.isArray((body as ResponseBody).output);
}

/**
 * A Responses API response as its stream: `response.created`, then per output item `output_item.added`,
 * its deltas (message text, function-call arguments, reasoning summary text) and `output_item.done`, then
 * `response.completed` (or `incomplete`, `failed`) with the whole response, every event numbered.
 */
export function responseEventStream(response: ResponseBody): string {
  let sequence = 0;
  const out: string[] = [];
  const emit = (type: string, data: Record<string, unknown>) => out.push(event(type, { ...data, sequence_number: sequence++ }));
  const pending = { ...response, status: "in_progress", output: [], usage: null };
  emit("response.created", { response: pending });
  emit("response.in_progress", { response: pending });
  response.output.forEach((item, output_index) => {
    const at = { item_id: item.id, output_index };
    if (item.type === "message") {
      const parts = (item.content as Array<{ type: string; text?: string }>) ?? [];
      emit("response.output_item.added", { output_index, item: { ...item, content: [], status: "in_progress" } });
      parts.forEach((part, content_index) => {
        emit("response.content_part.added", { ...at, content_index, part: { ...part, text: "" } });
        for (const delta of halves(part.text ?? "")) emit("response.output_text.delta", { ...at, content_index, delta, logprobs: [] });
        emit("response.output_text.done", { ...at, content_index, text: part.text ?? "", logprobs: [] });
        emit("response.content_part.done", { ...at, content_index, part });
      });
    } else if (item.type === "function_call") {
      emit("response.output_item.added", { output_index, item: { ...item, arguments: "", status: "in_progress" } });
      for (const delta of halves(String(item.arguments))) emit("response.function_call_arguments.delta", { ...at, delta });
      emit("response.function_call_arguments.done", { ...at, arguments: item.arguments });
    } else if (item.type === "reasoning") {
      const summary = (item.summary as Array<{ type: string; text: string }>) ?? [];
      emit("response.output_item.added", { output_index, item: { ...item, summary: [], encrypted_content: undefined } });
      summary.forEach((part, summary_index) => {
        emit("response.reasoning_summary_part.added", { ...at, summary_index, part: { ...part, text: "" } });
        for (const delta of halves(part.text)) emit("response.reasoning_summary_text.delta", { ...at, summary_index, delta });
        emit("response.reasoning_summary_text.done", { ...at, summary_index, text: part.text });
        emit("response.reasoning_summary_part.done", { ...at, summary_index, part });
      });
    } else {
      emit("response.output_item.added", { output_index, item });
    }
    emit("response.output_item.done", { output_index, item });
  });
  const end = response.status === "incomplete" ? "response.incomplete" : response.status === "failed" ? "response.failed" : "response.completed";
  emit(end, { response });
  return out.join("");
}
