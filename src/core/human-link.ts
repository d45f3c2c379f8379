/**
 * @module
 * What the human baseline mode needs from the sandbox side, kept behind one interface so the human agent
 * talks to the run only through the tool API: a terminal to hand to the person, a channel over which the
 * shell's `score`, `score-log` and `submit` commands ask for tool calls, and the clock shown in the prompt.
 * `src/runs/human-link.ts` implements it over a sandbox, `src/agents/human/human-agent.ts` uses it; tests
 * may fake it. In core: both sides speak it, and neither layer may import the other.
 */

/** A command typed in the shell: `score`, `score-log` or `submit [NOTES]`. */
export interface HumanRequest {
  id: string;
  command: "score" | "score-log" | "submit";
  /** The command's arguments as one string (submit's notes). */
  args: string;
}

export interface HumanTerminal {
  /** Resolves with the shell's exit code when the person leaves it (or it is killed). */
  readonly exited: Promise<number | null>;
  kill(): void;
}

export interface TerminalRecording {
  /** Files of the session on the host: what was shown, what was typed, and the timing (scriptreplay). */
  output: string;
  input: string;
  timing: string;
  /** The end of what was shown, for the run's event log. */
  tail: string;
}

export interface HumanLink {
  /**
   * Put the commands, the prompt, the banner and the instructions (a file named by `$REBENCH_INSTRUCTIONS`)
   * in place; `deadline` is when working time runs out (epoch ms).
   */
  prepare(options: { banner: string; instructions: string; deadline: number | null }): Promise<void>;
  /** Move the prompt's deadline (after a pause, working time runs out later). */
  setDeadline(deadline: number | null): Promise<void>;
  /** Start the recorded terminal, attached to the person's terminal. */
  open(): HumanTerminal;
  /** Commands typed since the last call, waiting a few seconds for one; [] when none came or `signal` aborted. */
  next(signal: AbortSignal): Promise<HumanRequest[]>;
  /** Answer a command: the text it prints and its exit code. */
  reply(request: HumanRequest, text: string, exitCode: number): Promise<void>;
  /** The recording of the session, once the terminal has exited. */
  recording(): Promise<TerminalRecording | undefined>;
}
