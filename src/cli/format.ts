/**
 * @module
 * Small formatting helpers shared by commands.
 */
import type { CostByKind, TokenCounts } from "../core/index.js";

/** 5400 -> "1h30m", 90 -> "1m30s", 12.5 -> "12.5s". */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Number(seconds.toFixed(1))}s`;
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.round(seconds % 60);
  if (h > 0) return m > 0 ? `${h}h${m}m` : `${h}h`;
  return s > 0 ? `${m}m${s}s` : `${m}m`;
}

/** A number with up to `digits` significant decimals, or "-" for null. */
export function formatNumber(value: number | null | undefined, digits = 4): string {
  if (value === null || value === undefined) return "-";
  return Number(value.toFixed(digits)).toString();
}

const count = (n: number): string => n.toLocaleString("en-US");

/**
 * Tokens by kind, as `runs show` prints them: "1,234 input, 56,789 cache read, 2,345 cache write
 * (1,000 for 1 h), 678 output (300 reasoning)".
 */
export function formatTokenKinds(u: TokenCounts): string {
  const written = `${count(u.cacheWriteTokens)} cache write${u.cacheWrite1hTokens > 0 ? ` (${count(u.cacheWrite1hTokens)} for 1 h)` : ""}`;
  const output = `${count(u.outputTokens)} output${u.reasoningTokens > 0 ? ` (${count(u.reasoningTokens)} reasoning)` : ""}`;
  return `${count(u.inputTokens)} input, ${count(u.cacheReadTokens)} cache read, ${written}, ${output}`;
}

/** "$1.2345 (input $0.1000, cache read $0.0200, cache write $0.0300, output $1.0845)"; the total alone when the split is unknown. */
export function formatCost(costUsd: number, split: CostByKind | null): string {
  const usd = (x: number): string => `$${x.toFixed(4)}`;
  if (split === null) return `${usd(costUsd)} (by kind: unknown, some generations did not say)`;
  return `${usd(costUsd)} (input ${usd(split.input)}, cache read ${usd(split.cacheRead)}, cache write ${usd(split.cacheWrite)}, output ${usd(split.output)})`;
}
