/**
 * @module
 * How a user names a model on the command line:
 *
 * - `openai:MODEL` (e.g. `openai:gpt-5`): OpenAI's Responses API, key in `OPENAI_API_KEY`;
 * - `anthropic:MODEL` (e.g. `anthropic:claude-sonnet-4-20250514`): Anthropic messages, key in
 *   `ANTHROPIC_API_KEY`;
 * - `compat:BASE_URL#MODEL[;key=ENV_VAR][;n=native]` (e.g. `compat:http://127.0.0.1:8000/v1#Qwen/Qwen2.5-7B`):
 *   any OpenAI-compatible server (vLLM, llama.cpp server). The key is read from `ENV_VAR` when given,
 *   else from `REBENCH_COMPAT_API_KEY` if set, else none is sent. Several choices are asked for one call
 *   each by default, because some servers refuse `n > 1` (llama.cpp server answers HTTP 500);
 *   `n=native` asks for them in one request, for servers that support it (vLLM).
 */
import { InvalidInputError } from "../../core/index.js";
import type { Provider } from "./model-client.js";

export interface ModelSpec {
  provider: Provider;
  model: string;
  /** Only for `compat`. */
  baseUrl?: string;
  /** Only for `compat`: the environment variable holding its key. */
  keyEnv?: string;
  /** Only for `compat`: ask for several choices in one request (`native`) or one call each (default). */
  nMode?: "native" | "repeat";
}

export const MODEL_SPEC_FORMS = "openai:MODEL, anthropic:MODEL or compat:BASE_URL#MODEL[;key=ENV_VAR][;n=native]";

export function parseModelSpec(spec: string): ModelSpec {
  const bad = (why: string): InvalidInputError =>
    new InvalidInputError(`cannot read the model "${spec}": ${why}`, {
      hint: `name a model as ${MODEL_SPEC_FORMS}, e.g. openai:gpt-4o or compat:http://127.0.0.1:8000/v1#my-model`,
    });
  const colon = spec.indexOf(":");
  const provider = colon < 0 ? "" : spec.slice(0, colon);
  const rest = spec.slice(colon + 1);
  if (provider === "openai" || provider === "anthropic") {
    if (rest.trim() === "") throw bad("the model name is missing");
    return { provider, model: rest };
  }
  if (provider !== "compat") throw bad(`unknown provider "${provider || spec}"`);
  const hash = rest.indexOf("#");
  if (hash < 0) throw bad("a compat model needs #MODEL after the base URL");
  const baseUrl = rest.slice(0, hash).replace(/\/+$/, "");
  const [model = "", ...params] = rest.slice(hash + 1).split(";");
  if (!/^https?:\/\/[^/]+/.test(baseUrl)) throw bad(`"${baseUrl}" is not an http(s) URL`);
  if (model.trim() === "") throw bad("the model name after # is missing");
  const result: ModelSpec = { provider: "compat", model, baseUrl };
  for (const param of params) {
    const [key, value = ""] = param.split("=", 2);
    if (key === "key" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) result.keyEnv = value;
    else if (key === "n" && (value === "repeat" || value === "native")) result.nMode = value;
    else throw bad(`unknown option "${param}" (options are key=ENV_VAR and n=native or n=repeat)`);
  }
  return result;
}
