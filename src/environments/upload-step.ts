/**
 * @module
 * `upload` steps (src/core/exploit.ts): a file from a host folder written into the sandbox by a `python`
 * tool call, so exploit code and reference files can live in their own files and still reach the
 * workspace through the agent's tool API. Shared by exploit files and reference solutions.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { InvalidInputError, NotFoundError, type ReplayStep, type UploadStep } from "../core/index.js";

/**
 * The `python` step that writes `step.input.from` (a file under `folder`, no `..`) to `step.input.to`.
 * `source` names the file the step came from, for errors.
 */
export function resolveUpload(step: UploadStep, folder: string, source: string): ReplayStep {
  const from = path.resolve(folder, step.input.from);
  const relative = path.relative(folder, from);
  if (relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(step.input.from)) {
    throw new InvalidInputError(`${source}: upload "${step.input.from}" is outside ${folder}`, { hint: "keep the files a step uploads beside it" });
  }
  let data: Buffer;
  try {
    data = readFileSync(from);
  } catch (error) {
    throw new NotFoundError(`${source}: cannot read the file to upload ${from}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  const code = [
    "import base64, pathlib",
    `target = pathlib.Path(${JSON.stringify(step.input.to)})`,
    "target.parent.mkdir(parents=True, exist_ok=True)",
    `target.write_bytes(base64.b64decode(${JSON.stringify(data.toString("base64"))}))`,
    `print("wrote", target, "(${data.length} bytes)")`,
  ].join("\n");
  return { tool: "python", input: { code } };
}
