/**
 * @module
 * A run in progress, as its agent (or a human through the CLI) acts in it: the ToolApi implementation plus
 * the hooks a scaffold needs (generations, pauses, notes). Tool calls are serialized and recorded as
 * action/observation events; budgets are checked before and after each call, a command's timeout is cut to
 * the time the run has left, and a watchdog ends the run when a limit passes while the agent is thinking.
 * Ending (submit or a limit) takes the final score and finishes the run; the session's signal then aborts.
 */
import {
  type AgentSession,
  budgetTokens,
  COMMAND_OUTPUT_CAP_BYTES,
  type CommandObservation,
  DEFAULT_COMMAND_TIMEOUT_SECONDS,
  type GenerationRecord,
  isTerminal,
  type LimitName,
  RunEndedError,
  type RunId,
  type RunOutcomeView,
  type RunSpec,
  type StoredEvent,
  type ToolApi,
  type ToolName,
  UsageLimits,
  type UsageView,
} from "../core/index.js";
import { SandboxExecutorLostError } from "../sandbox/sandbox.js";
import { scoreView } from "../scoring/score-view.js";
import { endRun, type Stop, stopText } from "./finish-run.js";
import type { RunLog } from "./run-log.js";
import { type ScoringTarget, takeScore } from "./take-score.js";

/** The events a scaffold may read back: what it did and what it was shown (score views, never raw entries). */
const AGENT_VISIBLE: ReadonlySet<string> = new Set(["action", "observation", "generation", "submitted"]);

/**
 * The run could not be ended here (its final scoring failed after its sandbox's executor died): it is left
 * in `scoring`, its sandbox kept, for `rebench runs resume` to finish once this process has ended.
 */
export class RunLeftForResumeError extends Error {}

export interface RunSessionOptions {
  /** Real milliseconds between the watchdog's limit checks; 0 turns the watchdog off. Default 1000. */
  watchdogMs?: number;
  /** Clock seconds between `time_reported` heartbeats while the agent thinks. Default 30. */
  heartbeatSeconds?: number;
}

export class RunSession implements AgentSession {
  readonly tools: ToolApi;
  readonly #controller = new AbortController();
  readonly #heartbeatMs: number;
  #queue: Promise<unknown> = Promise.resolve();
  #busy = 0;
  #outcome: Promise<RunOutcomeView> | undefined;
  #watchdog: NodeJS.Timeout | undefined;
  #lastHeartbeat: number;
  #resolveEnded!: (view: RunOutcomeView) => void;
  /** Resolves with the run's outcome once this session has ended it. */
  readonly ended: Promise<RunOutcomeView>;

  /** The end in progress or done (rejects where ending failed), once the run is ending; else undefined. */
  get ending(): Promise<RunOutcomeView> | undefined {
    return this.#outcome;
  }

  constructor(
    readonly log: RunLog,
    readonly target: ScoringTarget,
    options: RunSessionOptions = {},
  ) {
    this.ended = new Promise((resolve) => (this.#resolveEnded = resolve));
    this.#heartbeatMs = (options.heartbeatSeconds ?? 30) * 1000;
    this.#lastHeartbeat = log.clock.now();
    const watchdogMs = options.watchdogMs ?? 1000;
    if (watchdogMs > 0) this.#watchdog = setInterval(() => void this.#tick(), watchdogMs);
    this.tools = {
      bash: (input) => this.#act("bash", input, () => this.#command(input.command, undefined, input.timeoutSeconds)),
      python: (input) => this.#act("python", input, () => this.#command("python3 -", input.code, input.timeoutSeconds)),
      score: () => this.#act("score", {}, async () => scoreView(await takeScore(this.log, this.target, "action", { pause: true }), this.target.env.visible)),
      scoreLog: () => this.#act("score_log", {}, async () => (await this.log.scoreLog()).map((e) => scoreView(e, this.target.env.visible))),
      submit: (input) => this.#submit(input.submission),
      usage: async () => this.#usageView(),
    };
  }

  get runId(): RunId {
    return this.log.id;
  }
  get spec(): RunSpec {
    return this.log.summary.spec;
  }
  get instructions(): string {
    return this.target.env.instructions;
  }
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  async history(): Promise<StoredEvent[]> {
    const events = await this.log.events();
    return events.filter(({ event }) => AGENT_VISIBLE.has(event.type));
  }

  recordGeneration(generation: GenerationRecord): Promise<void> {
    return this.#serial(async () => {
      this.#assertOpen();
      await this.log.append({ type: "generation", ...generation });
      await this.#endIfExceeded();
    });
  }

  async paused<T>(reason: "model_retry" | "other", fn: () => Promise<T>): Promise<T> {
    this.#assertOpen();
    await this.log.append({ type: "pause_started", reason });
    try {
      return await fn();
    } finally {
      if (this.log.state === "paused") await this.log.append({ type: "pause_ended", reason });
    }
  }

  async note(message: string, data?: unknown): Promise<void> {
    await this.log.append({ type: "note", message, ...(data === undefined ? {} : { data }) });
  }

  /** End the run now (agent gave up, operator cancelled); no-op once it is ending. */
  end(stop: Stop): Promise<RunOutcomeView> {
    return this.#serial(() => this.#end(stop));
  }

  /** Stop the watchdog. The run itself is left as it is (ended or not). */
  close(): void {
    if (this.#watchdog) clearInterval(this.#watchdog);
    this.#watchdog = undefined;
  }

  /** Check the limits now (also done by the watchdog): ends the run if one is reached. */
  checkLimits(): Promise<void> {
    return this.#serial(async () => {
      await this.#endIfExceeded();
    });
  }

  async #act<T>(tool: ToolName, input: unknown, body: () => Promise<T>): Promise<T> {
    return this.#serial(async () => {
      this.#assertOpen();
      if (await this.#endIfExceeded()) this.#assertOpen();
      const actionId = `a${this.log.summary.usage.actions + 1}`;
      await this.log.append({ type: "action", actionId, tool, input });
      let output: T;
      try {
        output = await body();
      } catch (error) {
        // An agent's command (not a scoring: `rebench score` of a human run just fails, to be tried again).
        if (error instanceof SandboxExecutorLostError && (tool === "bash" || tool === "python") && !this.#outcome) {
          return this.#executorLost(actionId, tool, error);
        }
        await this.log.append({ type: "observation", actionId, tool, output: { error: (error as Error).message } });
        throw error;
      }
      await this.log.appendAll([{ type: "observation", actionId, tool, output }], { withTime: true });
      this.#lastHeartbeat = this.log.clock.now();
      await this.#endIfExceeded();
      return output;
    });
  }

  async #command(command: string, stdin: string | undefined, timeoutSeconds = DEFAULT_COMMAND_TIMEOUT_SECONDS): Promise<CommandObservation> {
    const allowed = Math.max(0.001, Math.min(timeoutSeconds, this.log.remainingSeconds()));
    const result = await this.target.sandbox.exec(command, {
      user: "agent",
      timeoutMs: Math.ceil(allowed * 1000),
      maxOutputBytes: COMMAND_OUTPUT_CAP_BYTES,
      signal: this.signal,
      ...(stdin === undefined ? {} : { stdin }),
    });
    const { exitCode, signal, timedOut, truncated, durationMs, stdout, stderr } = result;
    return { exitCode, signal, timedOut, truncated, durationMs, stdout, stderr, timeoutSeconds: allowed };
  }

  /**
   * The sandbox's executor died under an action (killed from outside, or by the kernel): not the agent's
   * failure. The action is marked interrupted and the run ends, scored on what its workspace holds (a new
   * executor starts for the grader); where that scoring fails the run is left for `rebench runs resume`.
   */
  async #executorLost(actionId: string, tool: ToolName, error: SandboxExecutorLostError): Promise<never> {
    const why = `the sandbox's executor died while this ran (${error.message}): killed from outside the run, or by the kernel`;
    await this.log.append({ type: "observation", actionId, tool, output: { interrupted: true, error: why } });
    await this.note(`${why}; the run ends here, and what its workspace holds is scored`, { executorLost: { actionId, error: error.message } });
    await this.#end({ reason: "error" }, undefined, { resumable: true });
    throw new RunEndedError(`run ${this.runId} ended: its sandbox's executor died`);
  }

  #submit(submission: string): Promise<RunOutcomeView> {
    return this.#serial(async () => {
      this.#assertOpen();
      const actionId = `a${this.log.summary.usage.actions + 1}`;
      await this.log.appendAll([
        { type: "action", actionId, tool: "submit", input: { submission } },
        { type: "submitted", submission },
      ]);
      return this.#end({ reason: "submitted" }, async (view) => {
        await this.log.append({ type: "observation", actionId, tool: "submit", output: view });
      });
    });
  }

  #end(stop: Stop, beforeFinish?: (view: RunOutcomeView) => Promise<void>, options: { resumable?: boolean } = {}): Promise<RunOutcomeView> {
    if (this.#outcome) return this.#outcome;
    this.#controller.abort(new RunEndedError(`run ${this.runId} ended: ${stopText(stop)}`));
    this.close();
    this.#outcome = endRun(this.log, this.target, stop, beforeFinish ? { beforeFinish } : {}).then(
      (view) => {
        this.#resolveEnded(view);
        return view;
      },
      async (error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        if (options.resumable && this.log.state === "scoring") {
          await this.note(`the final scoring failed (${message}); the run stays in scoring with its sandbox: \`rebench runs resume\` finishes it`);
          throw new RunLeftForResumeError(`run ${this.runId} is left for \`rebench runs resume\`: its final scoring failed (${message})`);
        }
        // A run that has its end state (run_finished written) keeps it: what failed after that is not the run's.
        if (!isTerminal(this.log.state)) {
          await this.log.append({ type: "run_failed", error: `ending the run failed: ${message}` }).catch(() => undefined);
        }
        throw error;
      },
    );
    return this.#outcome;
  }

  /** End the run if a limit is reached; true if it ended (now or before). */
  async #endIfExceeded(): Promise<boolean> {
    if (this.#outcome) return true;
    const limit = this.log.exceeded();
    if (limit === undefined) return false;
    await this.#end({ reason: "limit", limit });
    return true;
  }

  #assertOpen(): void {
    if (this.#outcome || this.log.state === "finished" || this.log.state === "failed" || this.log.state === "scoring") {
      throw new RunEndedError(`run ${this.runId} has ended (${this.log.state}); no more tool calls`);
    }
  }

  async #tick(): Promise<void> {
    if (this.#busy > 0 || this.#outcome) return;
    await this.#serial(async () => {
      if (this.#outcome) return;
      if (this.log.clock.now() - this.#lastHeartbeat >= this.#heartbeatMs && this.log.state === "running") {
        this.#lastHeartbeat = this.log.clock.now();
        await this.log.reportTime();
      }
      await this.#endIfExceeded();
    }).catch(() => undefined);
  }

  #serial<T>(fn: () => Promise<T>): Promise<T> {
    this.#busy += 1;
    const next = this.#queue.then(fn).finally(() => {
      this.#busy -= 1;
    });
    this.#queue = next.catch(() => undefined);
    return next;
  }

  #usageView(): UsageView {
    const usage = this.log.usage();
    const limits = UsageLimits.parse(this.spec.limits);
    const remaining: Partial<Record<LimitName, number>> = {};
    if (limits.workingSeconds !== undefined) remaining.workingSeconds = Math.max(0, limits.workingSeconds - usage.workingSeconds);
    if (limits.wallSeconds !== undefined) remaining.wallSeconds = Math.max(0, limits.wallSeconds - usage.wallSeconds);
    if (limits.tokens !== undefined) remaining.tokens = Math.max(0, limits.tokens - budgetTokens(usage));
    if (limits.costUsd !== undefined) remaining.costUsd = Math.max(0, limits.costUsd - usage.costUsd);
    if (limits.actions !== undefined) remaining.actions = Math.max(0, limits.actions - usage.actions);
    return { state: this.log.state, usage, limits, remaining };
  }
}
