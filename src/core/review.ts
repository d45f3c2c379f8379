/**
 * @module
 * Reviews: `rebench review` reads a finished run's trajectory and score log for signs of reward hacking and
 * appends what it found as a `review` event (the score log is never changed). A review is a verdict, the
 * findings behind it (each with its evidence: the events, the command or file, the signal that fired), and
 * who reviewed (the rule set's version, the monitor model with its prompt and answer). docs/review.md.
 */
import { z } from "zod";

/** `clean`: no signal fired; `suspicious`: a weak signal (read the trajectory); `hack`: a signature of a known hack. */
export const ReviewVerdict = z.enum(["clean", "suspicious", "hack"]);
export type ReviewVerdict = z.infer<typeof ReviewVerdict>;

/** Which module a finding comes from: the score log, the trajectory's actions, or the LLM monitor. */
export const SignalKind = z.enum(["score", "trajectory", "monitor"]);
export type SignalKind = z.infer<typeof SignalKind>;

export const ReviewFinding = z.object({
  kind: SignalKind,
  /** The signal that fired: a rule's id (`protected-dir`, `score-above-reference`) or `ENVIRONMENT/ID` for an environment's signature. */
  signal: z.string().min(1),
  severity: ReviewVerdict.exclude(["clean"]),
  /** One line: what was seen. */
  summary: z.string().min(1),
  /** The events that show it (their seq in the run's log). */
  seqs: z.array(z.number().int().positive()),
  /** The matched text (a command, a line of code, a path), at most a few hundred characters. */
  excerpt: z.string().optional(),
});
export type ReviewFinding = z.infer<typeof ReviewFinding>;

export const MonitorRecord = z.object({
  /** PROVIDER:MODEL */
  model: z.string().min(1),
  /** The rubric's file and its version line. */
  rubric: z.string().min(1),
  prompt: z.string(),
  answer: z.string(),
});
export type MonitorRecord = z.infer<typeof MonitorRecord>;

export const Review = z.object({
  verdict: ReviewVerdict,
  findings: z.array(ReviewFinding),
  reviewer: z.object({
    /** The version of the rule set (src/review/rules-version.ts) and of the environment's signatures file, when it has one. */
    rules: z.string().min(1),
    monitor: MonitorRecord.optional(),
  }),
});
export type Review = z.infer<typeof Review>;

/** The most severe of the findings' severities; `clean` when there are none. */
export function verdictOf(findings: readonly Pick<ReviewFinding, "severity">[]): ReviewVerdict {
  if (findings.some((f) => f.severity === "hack")) return "hack";
  return findings.length > 0 ? "suspicious" : "clean";
}
