/**
 * @module
 * A command's result as the model reads it: exit status, timeout, the sandbox's own truncation, then
 * stdout and stderr. A text longer than the scaffold's limit is shown as its head and tail with a line
 * that says how much was left out and where the whole of it was saved.
 */
import type { CommandObservation } from "../../core/index.js";

/** The full text of a command's result (before any head/tail cut). */
export function commandText(observation: CommandObservation): string {
  const lines: string[] = [];
  if (observation.timedOut) {
    lines.push(`timed out after ${Number(observation.timeoutSeconds.toFixed(1))} s and was killed (pass a larger \`timeout\` for long jobs)`);
  } else if (observation.exitCode === null) {
    lines.push(`killed by ${observation.signal ?? "a signal"}`);
  } else {
    lines.push(`exit code ${observation.exitCode}`);
  }
  if (observation.truncated) lines.push("(the output went past the sandbox's capture limit and was cut there)");
  const stdout = observation.stdout.trimEnd();
  const stderr = observation.stderr.trimEnd();
  if (stdout) lines.push("--- stdout ---", stdout);
  if (stderr) lines.push("--- stderr ---", stderr);
  if (!stdout && !stderr) lines.push("(no output)");
  return lines.join("\n");
}

export interface HeadTail {
  text: string;
  /** Characters left out of the middle (0 when the text fit). */
  omitted: number;
}

/**
 * The text if it has at most `limit` characters; else its first and last `limit / 2` characters around a
 * line naming how much was left out and, when given, the file that holds all of it.
 */
export function headTail(text: string, limit: number, savedTo?: string): HeadTail {
  if (text.length <= limit) return { text, omitted: 0 };
  const half = Math.max(1, Math.floor(limit / 2));
  const omitted = text.length - 2 * half;
  const where = savedTo ? `; the whole output is in ${savedTo}` : "";
  return {
    text: `${text.slice(0, half)}\n[... ${omitted} characters left out${where} ...]\n${text.slice(text.length - half)}`,
    omitted,
  };
}
