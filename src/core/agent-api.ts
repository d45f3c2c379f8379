/**
 * @module
 * The agent-facing contract: what scaffolds (modular, AIDE, replay), the human CLI and the orchestrator
 * agree on. The orchestrator (src/runs) implements `ToolApi` and `AgentSession` and drives an `Agent`;
 * scaffolds (src/agents) import only this and the rest of core. Every tool call except `usage` is recorded
 * as an `action` event and its result as an `observation` event, and counts against the run's action budget.
 * When the run ends (submitted, a limit reached, cancelled) `signal` aborts and further calls throw
 * RunEndedError.
 */
import { ConflictError } from "./errors.js";
import type { RunSpec, StoredEvent } from "./events.js";
import type { RunId } from "./ids.js";
import type { RunState, StopReason } from "./run-state.js";
import type { ScoreOutcome } from "./score.js";
import type { LimitName, Usage, UsageLimits } from "./usage.js";

/** What the agent sees of a score-log entry (src/scoring/score-view.ts makes it). */
export interface ScoreView {
  timestamp: string;
  /** Working seconds since the run started. */
  elapsedSeconds: number;
  outcome: ScoreOutcome["kind"];
  /** The raw score: present only for a `scored` outcome when the score is visible to the agent. */
  score?: number;
  /** Why the entry is not a score: the grader's reason (`invalid`), the time limit (`timedOut`) or the error. */
  reason?: string;
  /** The grader's message to the agent. */
  message: Record<string, unknown>;
  /**
   * rebench's own note about how this score was taken: other work shared the machine while a timing-sensitive
   * variant was scored (src/core/contention.ts), so the number is slower than on a quiet machine.
   */
  notice?: string;
}

/** Default per-call timeout of `bash` and `python`; the run's remaining time cuts it shorter. */
export const DEFAULT_COMMAND_TIMEOUT_SECONDS = 600;
/** Output kept per stream of a `bash` or `python` call; the rest is dropped and `truncated` set. */
export const COMMAND_OUTPUT_CAP_BYTES = 100_000;

export interface CommandInput {
  /** For `bash`: a command line; it runs in the agent's persistent shell (cwd and exports carry over). */
  command: string;
  /** Per-call timeout in seconds; default DEFAULT_COMMAND_TIMEOUT_SECONDS. */
  timeoutSeconds?: number;
}

export interface PythonInput {
  /** A Python program, run with `python3 -` in the agent's current directory. */
  code: string;
  timeoutSeconds?: number;
}

/** A command's result as the agent sees it: the sandbox's ExecResult fields, output capped at COMMAND_OUTPUT_CAP_BYTES. */
export interface CommandObservation {
  /** Exit status, or null when a signal ended the command. */
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** Whether stdout or stderr was cut at COMMAND_OUTPUT_CAP_BYTES. */
  truncated: boolean;
  durationMs: number;
  stdout: string;
  stderr: string;
  /** The timeout that applied: the call's own, or less where the run had less time left. */
  timeoutSeconds: number;
}

export interface SubmitInput {
  /** The participant's answer or a note on the solution; stored in the `submitted` event. */
  submission: string;
}

export interface RunOutcomeView {
  stopReason: StopReason;
  /** Which limit ended the run, when stopReason is `limit`. */
  limit?: LimitName;
  /** The score of the final scoring call (value omitted where scores are hidden); null if none was taken. */
  finalScore: ScoreView | null;
}

export interface UsageView {
  state: RunState;
  usage: Usage;
  limits: UsageLimits;
  /** What is left of each limited dimension (seconds, tokens, dollars, actions). */
  remaining: Partial<Record<LimitName, number>>;
}

/** The tools an agent (or a human through the CLI) uses. */
export interface ToolApi {
  bash(input: CommandInput): Promise<CommandObservation>;
  python(input: PythonInput): Promise<CommandObservation>;
  /** Score the current solution with the protected grader; working time is paused meanwhile. */
  score(): Promise<ScoreView>;
  /** The run's score log so far, as the agent may see it. */
  scoreLog(): Promise<ScoreView[]>;
  /** End the run: a final scoring, then the run's final score is the aggregate of its score log. */
  submit(input: SubmitInput): Promise<RunOutcomeView>;
  /** Usage and limits; not an action. */
  usage(): Promise<UsageView>;
}

/** One model call, for token and cost accounting. */
export interface GenerationRecord {
  model: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  durationMs?: number;
  /** The request/response, as the scaffold wants it kept. */
  content?: unknown;
}

/** What a scaffold gets for one run. */
export interface AgentSession {
  readonly runId: RunId;
  readonly spec: RunSpec;
  /** The environment's instructions for this task. */
  readonly instructions: string;
  readonly tools: ToolApi;
  /** Aborts when the run ends; pass it to model calls so a limit interrupts a long generation. */
  readonly signal: AbortSignal;
  /**
   * The run's `action`, `observation`, `generation` and `submitted` events so far: what the agent did and was
   * shown (score-log entries only as the score views it got, so hidden scores stay hidden). Empty on a fresh
   * start; after an orchestrator restart it holds everything before the crash (an action cut off by the crash
   * has an observation with `interrupted: true`): rebuild the conversation from it and continue.
   */
  history(): Promise<StoredEvent[]>;
  /** Record a model call; the run ends if it crosses the token or cost limit. */
  recordGeneration(generation: GenerationRecord): Promise<void>;
  /** Run `fn` with working time paused (model-API retries and their back-off). */
  paused<T>(reason: "model_retry" | "other", fn: () => Promise<T>): Promise<T>;
  note(message: string, data?: unknown): Promise<void>;
}

/** A scaffold. `run` returns when the agent is done (normally after `submit`) or the session's signal aborts. */
export interface Agent {
  run(session: AgentSession): Promise<void>;
}

/**
 * A scaffold by name (`participant.scaffold` of a run's spec), as the scaffold registry (src/runs/scaffolds.ts)
 * holds it: a batch, or a restarted orchestrator, builds a run's agent from its stored spec.
 */
export interface Scaffold {
  readonly name: string;
  /** Whether it calls a model (then `rebench run` needs `--model`). */
  readonly needsModel: boolean;
  create(spec: RunSpec): Agent | Promise<Agent>;
}

export type { ToolName } from "./events.js";

/** A tool was called after the run ended. */
export class RunEndedError extends ConflictError {}
