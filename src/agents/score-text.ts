/**
 * @module
 * Score views as text for a participant (a model's tool result, a human's `score` command): the value
 * where it may be seen, which way is better, or why the entry is not a score, and the grader's message.
 * One wording for every scaffold and the human shell.
 */
import type { Direction, ScoreView } from "../core/index.js";

function roundish(value: number): string {
  return Number(value.toPrecision(6)).toString();
}

/**
 * One line, e.g. `score -2.9312 (lower is better)  {"seconds":0.053}`, and rebench's notice about the
 * scoring (other work shared the machine) on a line of its own.
 */
export function scoreText(view: ScoreView, direction: Direction): string {
  const line = scoreLine(view, direction);
  return view.notice ? `${line}\nnote: ${view.notice}` : line;
}

function scoreLine(view: ScoreView, direction: Direction): string {
  const message = Object.keys(view.message).length > 0 ? `  ${JSON.stringify(view.message)}` : "";
  switch (view.outcome) {
    case "scored":
      return view.score === undefined
        ? `valid (the score is not shown for this task)${message}`
        : `score ${roundish(view.score)} (${direction === "min" ? "lower" : "higher"} is better)${message}`;
    case "invalid":
      return `invalid: ${view.reason ?? "no reason given"}${message}`;
    case "timedOut":
      return `timed out: ${view.reason ?? ""}`;
    case "error":
      return `scoring failed: ${view.reason ?? ""}`;
  }
}

/** The score log, one line per entry with the working time it was taken at. */
export function scoreLogText(views: readonly ScoreView[], direction: Direction): string {
  if (views.length === 0) return "the score log is empty";
  return views.map((v, i) => `${i + 1}. at ${Math.round(v.elapsedSeconds)} s: ${scoreText(v, direction)}`).join("\n");
}
