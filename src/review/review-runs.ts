/**
 * @module
 * `rebench review`'s work: read each finished run's events, review them (review-events.ts) and append the
 * review as a `review` event. The score log and every other event stay as they were. Runs that already have a
 * review are skipped unless named or `again` is set; runs that have not finished are not reviewed (a named one
 * is an error: its trajectory is not complete yet).
 */
import { ConflictError, type Review, type RunId, type RunSummary } from "../core/index.js";
import type { RunStore } from "../store/index.js";
import { reviewContext } from "./review-context.js";
import { type MonitorOutcome, reviewEvents } from "./review-events.js";
import type { ActionText } from "./trajectory-text.js";
import { actionTexts } from "./trajectory-text.js";

/** An LLM that reads a run (monitor.ts): its findings and what it was asked and answered. */
export type Monitor = (input: { summary: RunSummary; actions: readonly ActionText[]; review: Review; signal?: AbortSignal }) => Promise<MonitorOutcome>;

export interface ReviewRunsOptions {
  /** Review these runs (again, if they have a review); default every finished run without one. */
  runIds?: readonly string[];
  /** Review runs that already have a review. Default false. */
  again?: boolean;
  monitor?: Monitor;
  /** Review but append nothing. Default false. */
  dryRun?: boolean;
  signal?: AbortSignal;
}

export interface ReviewedRun {
  /** The run as it is after the review was appended (before, with `dryRun`). */
  summary: RunSummary;
  review: Review;
  /** The seq of the appended review event; undefined with `dryRun`. */
  seq: number | undefined;
}

export async function reviewRuns(store: RunStore, options: ReviewRunsOptions = {}): Promise<ReviewedRun[]> {
  const runs = options.runIds?.length
    ? await Promise.all(options.runIds.map((id) => store.getRun(id)))
    : (await store.listRuns({ states: ["finished"] })).filter((r) => options.again || r.review === null);
  for (const run of runs) {
    if (run.state !== "finished" && run.state !== "failed") {
      throw new ConflictError(`run ${run.id} is ${run.state}: only a run that has ended can be reviewed`, {
        hint: "review it once it has finished (`rebench runs show ID` shows its state)",
      });
    }
  }
  const out: ReviewedRun[] = [];
  for (const summary of [...runs].sort((a, b) => a.createdAt.localeCompare(b.createdAt))) {
    options.signal?.throwIfAborted();
    const events = await store.events(summary.id as RunId);
    const context = reviewContext(summary.spec);
    let review = reviewEvents(events, context);
    if (options.monitor) {
      const outcome = await options.monitor({ summary, actions: actionTexts(events), review, ...(options.signal ? { signal: options.signal } : {}) });
      review = reviewEvents(events, context, outcome);
    }
    if (options.dryRun) {
      out.push({ summary, review, seq: undefined });
    } else {
      const appended = await store.append(summary.id as RunId, { type: "review", review });
      out.push({ summary: appended.summary, review, seq: appended.stored.seq });
    }
  }
  return out;
}
