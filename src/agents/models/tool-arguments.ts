/**
 * @module
 * A tool call's arguments as the model wrote them (a JSON string, for OpenAI and compatible servers),
 * parsed: arguments that are not a JSON object become `argumentsError`, so the scaffold can tell the model
 * instead of crashing.
 */
import type { ToolCall } from "./model-client.js";

export function toolCall(id: string, name: string, rawArguments: string): ToolCall {
  const text = rawArguments.trim() === "" ? "{}" : rawArguments;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { id, name, arguments: {}, rawArguments, argumentsError: `arguments are not valid JSON: ${(error as Error).message}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { id, name, arguments: {}, rawArguments, argumentsError: "arguments must be a JSON object" };
  }
  return { id, name, arguments: value as Record<string, unknown>, rawArguments };
}

/** The arguments as sent back: exactly what the model wrote, or the object as JSON. */
export function argumentsText(call: ToolCall): string {
  return call.rawArguments ?? JSON.stringify(call.arguments);
}
