/**
 * @module
 * How numbers, sizes, durations and times read on the pages.
 */

export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return "-";
  if (seconds < 60) return `${Number(seconds.toFixed(1))}s`;
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.round(seconds % 60);
  if (h > 0) return m > 0 ? `${h}h${m}m` : `${h}h`;
  return s > 0 ? `${m}m${s}s` : `${m}m`;
}

export function score(value: number | null | undefined, digits = 3): string {
  return value === null || value === undefined || !Number.isFinite(value) ? "-" : Number(value.toFixed(digits)).toString();
}

export function bytes(n: number): string {
  if (n < 1000) return `${n} B`;
  if (n < 1e6) return `${(n / 1e3).toFixed(1)} kB`;
  return `${(n / 1e6).toFixed(1)} MB`;
}

export function when(iso: string | null): string {
  if (!iso) return "-";
  return iso.replace("T", " ").replace(/\.\d+Z$/, "Z");
}

export function amount(value: number, unit: string): string {
  if (unit === "seconds") return duration(value);
  if (unit === "dollars") return `$${value.toFixed(2)}`;
  return Math.round(value).toLocaleString("en-US");
}

/** Whether a run in this state has ended (core's TERMINAL_STATES: the page code imports no server module). */
export function ended(state: string): boolean {
  return state === "finished" || state === "failed" || state === "moved";
}
