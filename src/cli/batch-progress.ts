/**
 * @module
 * Live progress of a batch of runs (or of the runs `rebench runs resume` continues), read from the store once a second: runs done and running, working
 * time, tokens, dollars and the best score so far (raw and normalized). On a terminal it is one line
 * rewritten in place; otherwise a line every `everySeconds` (default 30) while something changes, so logs
 * of long batches stay short. Each run that ends gets its own line.
 */
import { budgetTokens, normalizationLabel, normalizationMissing, normalizedFor, type RunSummary } from "../core/index.js";
import type { RunStore } from "../store/index.js";
import { formatDuration, formatNumber } from "./format.js";
import type { Io } from "./io.js";

export interface ProgressOptions {
  io: Io;
  store: RunStore;
  /** The runs followed: a batch's (`rebench run`), or these runs (`rebench runs resume`). */
  batchId?: string;
  runIds?: readonly string[];
  /** Runs in the batch. */
  total: number;
  /** What is running, e.g. `test_echo/mini modular`. */
  label: string;
  /** Seconds between lines when not on a terminal. */
  everySeconds: number;
}

/** Working seconds of a run now: the last reported value, plus the time since while it runs. */
function workingNow(run: RunSummary, now: number): number {
  const since = run.state === "running" ? Math.max(0, (now - Date.parse(run.updatedAt)) / 1000) : 0;
  const limit = run.spec.limits.workingSeconds ?? Infinity;
  return Math.min(limit, run.usage.workingSeconds + since);
}

export function progressLine(label: string, total: number, runs: readonly RunSummary[], now: number): string {
  const done = runs.filter((r) => r.state === "finished" || r.state === "failed").length;
  const running = runs.filter((r) => ["starting", "running", "paused", "scoring"].includes(r.state)).length;
  const working = Math.max(0, ...runs.map((r) => workingNow(r, now)));
  const tokens = runs.reduce((s, r) => s + budgetTokens(r.usage), 0);
  const cost = runs.reduce((s, r) => s + r.usage.costUsd, 0);
  let best: RunSummary | undefined;
  for (const r of runs) {
    const raw = r.finalRaw ?? r.currentRaw;
    if (raw === null) continue;
    const bestRaw = best ? (best.finalRaw ?? best.currentRaw)! : undefined;
    if (bestRaw === undefined || (r.spec.direction === "min" ? raw < bestRaw : raw > bestRaw)) best = r;
  }
  const bestRaw = best ? (best.finalRaw ?? best.currentRaw) : null;
  const normalized = best ? normalizedFor(best.spec, bestRaw) : null;
  const score =
    bestRaw === null
      ? "no score yet"
      : normalized === null
        ? `best raw ${formatNumber(bestRaw)}`
        : `best ${formatNumber(normalized, 3)} (raw ${formatNumber(bestRaw)})`;
  return [
    label,
    `${done}/${total} done${running > 0 ? `, ${running} running` : ""}`,
    `working ${formatDuration(working)}`,
    `${tokens >= 10_000 ? `${(tokens / 1000).toFixed(1)}k` : tokens} tokens`,
    `$${cost.toFixed(cost < 1 ? 4 : 2)}`,
    score,
  ].join(" · ");
}

export class BatchProgress {
  readonly #options: ProgressOptions;
  #timer: NodeJS.Timeout | undefined;
  #lastLine = "";
  #lastPrinted = 0;
  #ticking = false;

  constructor(options: ProgressOptions) {
    this.#options = options;
  }

  /** Show a first line now, then keep it up to date. */
  start(): void {
    this.#timer = setInterval(() => void this.#tick(), 1000);
    this.#timer.unref();
    void this.#tick();
  }

  /** A line for a run that ended (clears the live line first). */
  runEnded(run: RunSummary): void {
    const raw = run.finalRaw;
    const contended = run.contendedScores > 0 ? ` (${run.contendedScores} of ${run.scoreCalls} scorings contended: not comparable)` : "";
    const score =
      run.state === "failed"
        ? `failed: ${run.error ?? "unknown error"}`
        : run.spec.normalization
          ? `raw ${formatNumber(raw)}, normalized ${formatNumber(run.normalized, 3)} (by ${normalizationLabel(run.spec.normalization)})${contended}`
          : `raw ${formatNumber(raw)}, no normalized score (${normalizationMissing(run.spec)})${contended}`;
    this.note(`run ${run.id} ${run.state}${run.stopReason ? ` (${run.stopReason})` : ""}: ${score}\n`);
  }

  /** A line of its own (a run waiting for a free GPU), clearing the live line first. */
  note(line: string): void {
    const { io } = this.#options;
    if (io.interactive) io.out("\r\x1b[2K");
    io.out(line);
    this.#lastLine = "";
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    if (this.#options.io.interactive) this.#options.io.out("\r\x1b[2K");
  }

  async #tick(): Promise<void> {
    if (this.#ticking || !this.#timer) return;
    this.#ticking = true;
    try {
      const { io, store, batchId, runIds, total, label, everySeconds } = this.#options;
      const runs = runIds ? await Promise.all(runIds.map((id) => store.getRun(id))) : await store.listRuns({ batchId });
      if (!this.#timer) return;
      const now = Date.now();
      const line = progressLine(label, total, runs, now);
      if (io.interactive) io.out(`\r\x1b[2K${line.slice(0, (process.stdout.columns || 200) - 1)}`);
      else if (line !== this.#lastLine && now - this.#lastPrinted >= everySeconds * 1000) {
        io.out(`${line}\n`);
        this.#lastPrinted = now;
      }
      this.#lastLine = line;
    } catch {
      // the store is busy or closing: the next tick tries again
    } finally {
      this.#ticking = false;
    }
  }
}
