/**
 * @module
 * The human baseline mode's agent: it hands the person a recorded terminal inside the run's sandbox and
 * serves the shell's commands through the run's tool API, exactly as an agent's tool calls: `score` (a
 * protected scoring call; working time is paused meanwhile), `score-log` and `submit [NOTES]`. The prompt
 * shows the working time left, moved on after each pause. The attempt ends when the person submits, leaves
 * the shell (scored as submitted) or the time runs out (the terminal is closed and the solution scored).
 * The session's recording is stored with the run as a `note`.
 */
import type { Agent, AgentSession, Direction, HumanLink, HumanRequest } from "../../core/index.js";
import { scoreLogText, scoreText } from "../score-text.js";
import { duration } from "../usage-notices.js";

export interface HumanAgentOptions {
  /** Milliseconds the terminal gets to close by itself after `submit` or after the agent stopped serving, before it is killed. Default 3000. */
  graceMs?: number;
}

/** When working (or wall) time runs out if nothing pauses it, as epoch ms; null without a time limit. */
async function deadlineOf(session: AgentSession): Promise<number | null> {
  const { remaining } = await session.tools.usage();
  const left = Math.min(remaining.workingSeconds ?? Infinity, remaining.wallSeconds ?? Infinity);
  return Number.isFinite(left) ? Date.now() + left * 1000 : null;
}

export function humanBanner(session: AgentSession): string {
  const limit = session.spec.limits.workingSeconds;
  return [
    `rebench: run ${session.runId}, ${session.spec.environment}/${session.spec.variant} (${session.spec.task})`,
    limit === undefined ? "No time limit." : `Time limit: ${duration(limit)} of working time; scoring does not count. The prompt shows what is left.`,
    "Commands: score (score your solution), score-log (every score so far), submit [NOTES] (end the attempt).",
    "Leaving the shell (exit) also ends the attempt: your solution is then scored as submitted.",
    'The task\'s instructions are in $REBENCH_INSTRUCTIONS (cat "$REBENCH_INSTRUCTIONS").',
  ].join("\n");
}

export class HumanAgent implements Agent {
  constructor(
    readonly link: HumanLink,
    readonly options: HumanAgentOptions = {},
  ) {}

  async run(session: AgentSession): Promise<void> {
    const { link } = this;
    await link.prepare({ banner: humanBanner(session), instructions: session.instructions, deadline: await deadlineOf(session) });
    const terminal = link.open();
    let exited = false;
    const stop = new AbortController();
    void terminal.exited.then(() => {
      exited = true;
      stop.abort();
    });
    const onEnd = () => {
      // The time is up: close the terminal at once, the final scoring has begun.
      stop.abort();
      terminal.kill();
    };
    session.signal.addEventListener("abort", onEnd, { once: true });
    let submission: string | undefined;
    try {
      while (!exited && !session.signal.aborted && submission === undefined) {
        for (const request of await link.next(stop.signal)) {
          if (request.command === "submit") {
            await link.reply(request, "submitting: the shell closes now and your solution is scored; the result follows.", 0);
            submission = request.args;
            break;
          }
          await this.#serve(session, request);
        }
      }
    } finally {
      session.signal.removeEventListener("abort", onEnd);
      if (!exited) {
        await Promise.race([terminal.exited, new Promise((resolve) => setTimeout(resolve, this.options.graceMs ?? 3000))]);
        terminal.kill();
      }
      await terminal.exited;
      const recording = await link.recording();
      if (recording) await session.note("human: terminal session recorded", recording);
    }
    // Submitted from the shell: score it now that nobody can change the workspace any more.
    if (submission !== undefined && !session.signal.aborted) await session.tools.submit({ submission });
  }

  async #serve(session: AgentSession, request: HumanRequest): Promise<void> {
    const direction: Direction = session.spec.direction;
    let text: string;
    let code = 0;
    try {
      text = request.command === "score" ? scoreText(await session.tools.score(), direction) : scoreLogText(await session.tools.scoreLog(), direction);
    } catch (error) {
      text = `${request.command} failed: ${error instanceof Error ? error.message : String(error)}`;
      code = 1;
    }
    await this.link.reply(request, text, code);
    if (!session.signal.aborted) await this.link.setDeadline(await deadlineOf(session));
  }
}
