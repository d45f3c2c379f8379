/**
 * @module
 * Notes to the agent as its budget runs down: once each of the given fractions of a limited dimension
 * (working time, wall time, tokens, dollars, actions) is used, one line says how much is left; near the end
 * it reminds the agent that the solution in the workspace is what gets scored. Pure: the scaffold keeps
 * the set of notices already given.
 */
import type { LimitName, UsageView } from "../core/index.js";

/** Fractions of a budget at which the agent is told; default 50%, 75%, 90%, 95%. */
export const DEFAULT_NOTICE_FRACTIONS: readonly number[] = [0.5, 0.75, 0.9, 0.95];

const NAMES: Record<LimitName, string> = {
  workingSeconds: "working time",
  wallSeconds: "wall-clock time",
  tokens: "token budget",
  costUsd: "dollar budget",
  actions: "action budget",
};

function amount(limit: LimitName, value: number): string {
  switch (limit) {
    case "workingSeconds":
    case "wallSeconds":
      return duration(value);
    case "tokens":
      return `${Math.round(value).toLocaleString("en-US")} tokens`;
    case "costUsd":
      return `$${value.toFixed(2)}`;
    case "actions":
      return `${Math.round(value)} actions`;
  }
}

/** `45 s`, `12 min`, `7 h 30 min`. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 120) return `${s} s`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h} h ${m} min` : `${m} min`;
}

export interface UsageNotices {
  /** The note to show, or undefined when no new fraction was crossed. */
  text: string | undefined;
  /** Keys (`tokens@0.75`) of every notice given, the new ones included. */
  announced: Set<string>;
}

export function usageNotices(view: UsageView, announced: ReadonlySet<string>, fractions: readonly number[] = DEFAULT_NOTICE_FRACTIONS): UsageNotices {
  const next = new Set(announced);
  const lines: string[] = [];
  let highest = 0;
  for (const [name, limit] of Object.entries(view.limits) as [LimitName, number | undefined][]) {
    const left = view.remaining[name];
    if (limit === undefined || left === undefined || !(limit > 0)) continue;
    const used = 1 - left / limit;
    const crossed = fractions.filter((f) => used >= f && !next.has(`${name}@${f}`));
    if (crossed.length === 0) continue;
    for (const f of fractions) if (used >= f) next.add(`${name}@${f}`);
    highest = Math.max(highest, used);
    lines.push(`You have used ${Math.floor(used * 100)}% of your ${NAMES[name]}: ${amount(name, left)} of ${amount(name, limit)} left.`);
  }
  if (lines.length === 0) return { text: undefined, announced: next };
  if (highest >= 0.9) {
    lines.push(
      "When the budget runs out the run ends and the solution in the workspace is scored as it is then; keep your best solution in place, and submit when you are done.",
    );
  }
  return { text: `[budget] ${lines.join(" ")}`, announced: next };
}
