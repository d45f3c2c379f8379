/**
 * @module
 * The modular scaffold's tools as the model sees them (bash, python, score, score_log, submit) and how a
 * tool call becomes a call of the run's tool API and a tool result. Bash and python take a per-call
 * `timeout` the model can raise for long jobs (the run's remaining time still caps it). A result longer
 * than the scaffold's limit is saved in full to a file in the workspace, and the model is shown its head
 * and tail with the file's path.
 */
import { type AgentSession, type CommandObservation, type Direction, RunEndedError } from "../../core/index.js";
import type { ToolCall, ToolDefinition } from "../models/model-client.js";
import { scoreLogText, scoreText } from "../score-text.js";
import { commandText, headTail } from "./command-text.js";

export interface ToolSettings {
  /** Timeout of a bash or python call that names none, in seconds. */
  defaultTimeoutSeconds: number;
  /** The longest timeout a call may ask for, in seconds. */
  maxTimeoutSeconds: number;
  /** Results longer than this many characters are saved to a file and shown as head and tail. */
  outputLimitChars: number;
}

const timeoutParam = (settings: ToolSettings) => ({
  type: "number",
  description: `Seconds before the command is killed; default ${settings.defaultTimeoutSeconds}. Raise it for long jobs (training, benchmarks), up to ${settings.maxTimeoutSeconds}.`,
});

export function toolDefinitions(settings: ToolSettings): ToolDefinition[] {
  return [
    {
      name: "bash",
      description:
        "Run a bash command in your sandbox. The shell is persistent: the working directory and exported variables carry over between calls. Returns the exit code, stdout and stderr.",
      parameters: {
        type: "object",
        properties: { command: { type: "string", description: "The command line to run." }, timeout: timeoutParam(settings) },
        required: ["command"],
      },
    },
    {
      name: "python",
      description: "Run a Python 3 program (given as source code) in your current directory. Returns the exit code, stdout and stderr.",
      parameters: {
        type: "object",
        properties: { code: { type: "string", description: "The program's source code." }, timeout: timeoutParam(settings) },
        required: ["code"],
      },
    },
    {
      name: "score",
      description:
        "Score your current solution with the task's protected scorer. It does not end the task, and the time it takes does not count against your time budget. Use it often to check progress.",
      parameters: { type: "object", properties: {} },
    },
    {
      name: "score_log",
      description: "List every score taken so far in this task, with the working time each was taken at.",
      parameters: { type: "object", properties: {} },
    },
    {
      name: "submit",
      description: "End the task. Your solution as it is in the workspace is scored one last time. Call it only when you are done.",
      parameters: {
        type: "object",
        properties: { submission: { type: "string", description: "A short note on your solution, or the answer the task asks for." } },
        required: ["submission"],
      },
    },
  ];
}

export interface ToolOutcome {
  content: string;
  isError: boolean;
  /** The run was submitted by this call. */
  submitted: boolean;
}

/** Marks the scaffold's own python calls that save long outputs (so a resumed run can skip them). */
export const SAVE_OUTPUT_MARKER = "# rebench modular: save a long output";

export async function runToolCall(session: AgentSession, call: ToolCall, settings: ToolSettings, direction: Direction): Promise<ToolOutcome> {
  const ok = (content: string): ToolOutcome => ({ content, isError: false, submitted: false });
  const fail = (content: string): ToolOutcome => ({ content, isError: true, submitted: false });
  if (call.argumentsError) return fail(`the arguments were not valid: ${call.argumentsError}; call ${call.name} again with a JSON object`);
  const args = call.arguments;
  const { tools } = session;
  try {
    switch (call.name) {
      case "bash":
      case "python": {
        const field = call.name === "bash" ? "command" : "code";
        const text = args[field];
        if (typeof text !== "string" || text.trim() === "") return fail(`${call.name} needs a non-empty "${field}" string`);
        const timeoutSeconds = timeoutOf(args.timeout, settings);
        const observation = call.name === "bash" ? await tools.bash({ command: text, timeoutSeconds }) : await tools.python({ code: text, timeoutSeconds });
        return { ...(await commandResult(session, observation, settings)), submitted: false };
      }
      case "score":
        return ok(scoreText(await tools.score(), direction));
      case "score_log":
        return ok(scoreLogText(await tools.scoreLog(), direction));
      case "submit": {
        const submission = typeof args.submission === "string" ? args.submission : JSON.stringify(args.submission ?? "");
        const outcome = await tools.submit({ submission });
        const final = outcome.finalScore ? scoreText(outcome.finalScore, direction) : "no final score";
        return { content: `submitted; final scoring: ${final}`, isError: false, submitted: true };
      }
      default:
        return fail(`there is no tool "${call.name}"; the tools are bash, python, score, score_log and submit`);
    }
  } catch (error) {
    if (error instanceof RunEndedError || session.signal.aborted) throw error;
    return fail(`the ${call.name} call failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function timeoutOf(value: unknown, settings: ToolSettings): number {
  const asked = typeof value === "number" ? value : typeof value === "string" ? Number(value) : Number.NaN;
  if (!(asked > 0)) return settings.defaultTimeoutSeconds;
  return Math.min(asked, settings.maxTimeoutSeconds);
}

/** The tool result of a command: the whole text, or head and tail with the rest saved to a file. */
async function commandResult(session: AgentSession, observation: CommandObservation, settings: ToolSettings): Promise<Omit<ToolOutcome, "submitted">> {
  const text = commandText(observation);
  const isError = observation.timedOut || observation.exitCode !== 0;
  if (text.length <= settings.outputLimitChars) return { content: text, isError };
  const file = await saveOutput(session, text);
  return { content: headTail(text, settings.outputLimitChars, file).text, isError };
}

/** Save a long output under `.outputs/` of the workspace through the python tool; returns its path or undefined. */
async function saveOutput(session: AgentSession, text: string): Promise<string | undefined> {
  const name = `output-${Date.now().toString(36)}.txt`;
  const code = [
    SAVE_OUTPUT_MARKER,
    "import base64, os",
    'root = os.environ.get("REBENCH_WORKSPACE") or os.getcwd()',
    'os.makedirs(os.path.join(root, ".outputs"), exist_ok=True)',
    `path = os.path.join(root, ".outputs", ${JSON.stringify(name)})`,
    `open(path, "wb").write(base64.b64decode("${Buffer.from(text, "utf8").toString("base64")}"))`,
    "print(path)",
  ].join("\n");
  const saved = await session.tools.python({ code, timeoutSeconds: 60 });
  const file = saved.stdout.trim();
  return saved.exitCode === 0 && file ? file : undefined;
}
