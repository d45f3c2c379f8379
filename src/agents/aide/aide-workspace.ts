/**
 * @module
 * AIDE's hands in the sandbox, all through the run's tool API: look at the starting workspace once, put a
 * node's files in place (restoring every other file a node ever touched to its original, so each node is
 * scored exactly as it was proposed), and run the node's quick check. Originals are kept in a directory
 * made with `tempfile.mkdtemp` inside the sandbox.
 */
import path from "node:path";
import type { AgentSession } from "../../core/index.js";
import { commandText, headTail } from "../modular/command-text.js";

export interface AideWorkspace {
  /** The workspace's absolute path inside the sandbox. */
  root: string;
  /** Where originals of touched files are kept. */
  state: string;
  /** The starting files as the model is shown them. */
  overview: string;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8").toString("base64");

const INSPECT = `# rebench aide: look at the starting workspace
import json, os, tempfile
root = os.environ.get("REBENCH_WORKSPACE") or os.getcwd()
state = tempfile.mkdtemp(prefix="rebench-aide-")
budget = BUDGET
files = []
for d, subdirs, names in os.walk(root):
    subdirs[:] = sorted(s for s in subdirs if not s.startswith(".") and s != "__pycache__")
    for name in sorted(names):
        full = os.path.join(d, name)
        files.append((os.path.relpath(full, root), os.path.getsize(full)))
parts = ["Files in the workspace (path, bytes):"] + [f"  {p}  {s}" for p, s in files[:300]]
for p, s in files:
    if s > 20000 or budget <= 0:
        continue
    try:
        text = open(os.path.join(root, p), encoding="utf-8").read()
    except (UnicodeDecodeError, OSError):
        continue
    budget -= len(text)
    parts.append(f"\\n--- {p} ---\\n{text}")
print(json.dumps({"root": root, "state": state, "overview": "\\n".join(parts)}))
`;

export async function inspectWorkspace(session: AgentSession, maxChars: number): Promise<AideWorkspace> {
  const code = INSPECT.replace("BUDGET", String(Math.max(0, Math.floor(maxChars))));
  const result = await session.tools.python({ code, timeoutSeconds: 120 });
  if (result.exitCode !== 0) throw new Error(`aide could not read the workspace: ${result.stderr.slice(-1000)}`);
  const parsed = JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "{}") as Partial<AideWorkspace>;
  if (typeof parsed.root !== "string" || typeof parsed.state !== "string") throw new Error("aide could not read the workspace");
  return { root: parsed.root, state: parsed.state, overview: String(parsed.overview ?? "") };
}

/** A path a node may write: relative, inside the workspace, normalized; undefined if not. */
export function safePath(p: string): string | undefined {
  const normalized = path.posix.normalize(p.trim().replace(/^\.\/+/, ""));
  if (normalized === "" || normalized === "." || path.posix.isAbsolute(normalized) || normalized.split("/").includes("..")) return undefined;
  return normalized;
}

const APPLY = `# rebench aide: put a solution in place
import base64, json, os, shutil
spec = json.loads(base64.b64decode("SPEC").decode("utf-8"))
root, state = spec["root"], spec["state"]
manifest_path = os.path.join(state, "manifest.json")
manifest = json.load(open(manifest_path)) if os.path.exists(manifest_path) else {}
for rel in spec["touched"]:
    if rel not in manifest:
        src = os.path.join(root, rel)
        manifest[rel] = os.path.isfile(src)
        if manifest[rel]:
            os.makedirs(os.path.dirname(os.path.join(state, "orig", rel)), exist_ok=True)
            shutil.copy2(src, os.path.join(state, "orig", rel))
json.dump(manifest, open(manifest_path, "w"))
for rel in spec["touched"]:
    target = os.path.join(root, rel)
    if manifest[rel]:
        shutil.copy2(os.path.join(state, "orig", rel), target)
    elif os.path.exists(target):
        os.remove(target)
for rel, content in spec["files"].items():
    target = os.path.join(root, rel)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "w", encoding="utf-8") as f:
        f.write(content)
print(f"{len(spec['files'])} file(s) in place")
`;

/** Put exactly `files` (on top of the originals) in the workspace; returns an error text or undefined. */
export async function applyFiles(
  session: AgentSession,
  ws: AideWorkspace,
  files: Record<string, string>,
  touched: readonly string[],
): Promise<string | undefined> {
  const code = APPLY.replace("SPEC", b64({ root: ws.root, state: ws.state, files, touched }));
  const result = await session.tools.python({ code, timeoutSeconds: 120 });
  return result.exitCode === 0 ? undefined : `putting the files in place failed: ${result.stderr.slice(-1500)}`;
}

/** Run a node's quick check in the workspace; its result as text (head and tail) and whether it failed. */
export async function runCheck(
  session: AgentSession,
  ws: AideWorkspace,
  command: string,
  timeoutSeconds: number,
  limitChars: number,
): Promise<{ text: string; failed: boolean }> {
  const result = await session.tools.bash({ command: `cd '${ws.root.replace(/'/g, "'\\''")}' && ${command}`, timeoutSeconds });
  return { text: headTail(commandText(result), limitChars).text, failed: result.timedOut || result.exitCode !== 0 };
}
