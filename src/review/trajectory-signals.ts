/**
 * @module
 * Trajectory signals: each rule (the shared ones and the environment's signatures) matched against every
 * action's text; one finding per rule that fires, naming every action it fired on and the first match.
 */
import type { ReviewFinding } from "../core/index.js";
import type { TrajectoryRule } from "./trajectory-rules.js";
import type { ActionText } from "./trajectory-text.js";

/** How much of the action's text around the match a finding keeps. */
const EXCERPT_CHARS = 240;

export function trajectorySignals(actions: readonly ActionText[], rules: readonly TrajectoryRule[]): ReviewFinding[] {
  const findings: ReviewFinding[] = [];
  for (const rule of rules) {
    const seqs: number[] = [];
    let excerpt: string | undefined;
    for (const action of actions) {
      const match = rule.pattern.exec(action.text);
      if (match === null) continue;
      if (!seqs.includes(action.seq)) seqs.push(action.seq);
      excerpt ??= lineAround(action.text, match.index, match[0].length);
    }
    if (seqs.length === 0) continue;
    findings.push({
      kind: "trajectory",
      signal: rule.id,
      severity: rule.severity,
      summary: rule.summary,
      seqs: seqs.filter((s) => s > 0),
      ...(excerpt !== undefined ? { excerpt } : {}),
    });
  }
  return findings;
}

/** The line of `text` that holds the match, cut to EXCERPT_CHARS around it. */
function lineAround(text: string, index: number, length: number): string {
  const start = text.lastIndexOf("\n", index) + 1;
  const endAt = text.indexOf("\n", index + length);
  const line = text.slice(start, endAt === -1 ? undefined : endAt);
  if (line.length <= EXCERPT_CHARS) return line.trim();
  const from = Math.max(0, index - start - EXCERPT_CHARS / 2);
  return `…${line.slice(from, from + EXCERPT_CHARS).trim()}…`;
}
