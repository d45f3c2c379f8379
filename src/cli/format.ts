/**
 * @module
 * Small formatting helpers shared by commands.
 */

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
