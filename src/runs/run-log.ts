/**
 * @module
 * One run's persisted state as the orchestrator works on it: appends events (stamped by the run's Clock)
 * to the store, keeps the summary and the time ledger folded from them, and answers "how much has this
 * run used, and which limit has it reached" at any instant.
 */
import {
  exceededLimit,
  type LimitName,
  type NewRunEvent,
  type RunEvent,
  type RunId,
  type RunState,
  type RunSummary,
  type ScoreLogEntry,
  type StoredEvent,
  type Usage,
} from "../core/index.js";
import type { RunStore } from "../store/store.js";
import { type Clock, isoAt } from "./clock.js";
import { EMPTY_LEDGER, foldTime, type TimeLedger, timeUsage } from "./time-ledger.js";
import { assertTransition } from "./transitions.js";

export class RunLog {
  #summary: RunSummary;
  #ledger: TimeLedger;

  private constructor(
    readonly store: RunStore,
    readonly clock: Clock,
    summary: RunSummary,
    ledger: TimeLedger,
  ) {
    this.#summary = summary;
    this.#ledger = ledger;
  }

  /** Load a run's summary and fold its time ledger from the stored events. */
  static async open(store: RunStore, runId: string, clock: Clock): Promise<RunLog> {
    const summary = await store.getRun(runId);
    const events = await store.events(summary.id);
    const ledger = events.reduce((l, { event }) => foldTime(l, event), EMPTY_LEDGER);
    return new RunLog(store, clock, summary, ledger);
  }

  get id(): RunId {
    return this.#summary.id;
  }
  get summary(): RunSummary {
    return this.#summary;
  }
  get state(): RunState {
    return this.#summary.state;
  }
  get ledger(): TimeLedger {
    return this.#ledger;
  }

  /** Append an event stamped now (unless it carries its own `ts`). */
  async append(event: NewRunEvent): Promise<StoredEvent> {
    const { stored, summary } = await this.store.append(this.id, { ...event, ts: event.ts ?? isoAt(this.clock) } as NewRunEvent);
    this.#summary = summary;
    this.#ledger = foldTime(this.#ledger, stored.event);
    return stored;
  }

  /**
   * Append several events at once (one transaction, one round trip to PostgreSQL), stamped now unless they
   * carry their own `ts`. `withTime` adds after them a `time_reported` of the time at that instant, folded
   * through them (a state change to `scoring` has stopped the run's clock), as `reportTime()` right after would.
   */
  async appendAll(events: readonly NewRunEvent[], options: { withTime?: boolean } = {}): Promise<StoredEvent[]> {
    const ts = isoAt(this.clock);
    const stamped = events.map((event) => ({ ...event, ts: event.ts ?? ts }) as NewRunEvent);
    let ledger = this.#ledger;
    for (const event of stamped) ledger = foldTime(ledger, event as RunEvent);
    if (options.withTime) {
      const { wallSeconds, workingSeconds, pausedSeconds } = timeUsage(ledger, Date.parse(ts));
      stamped.push({ type: "time_reported", wallSeconds, workingSeconds, pausedSeconds, ts });
    }
    const results = await this.store.appendMany(this.id, stamped);
    for (const { stored, summary } of results) {
      this.#summary = summary;
      this.#ledger = foldTime(this.#ledger, stored.event);
    }
    return results.map((r) => r.stored);
  }

  async transition(to: RunState, reason?: string): Promise<void> {
    assertTransition(this.id, this.state, to);
    await this.append({ type: "state_changed", to, ...(reason === undefined ? {} : { reason }) });
  }

  /** `transition()` and `reportTime()` at once: the time as the state changes (for `scoring`: the run's clock stopped). */
  async transitionWithTime(to: RunState, reason?: string): Promise<void> {
    assertTransition(this.id, this.state, to);
    await this.appendAll([{ type: "state_changed", to, ...(reason === undefined ? {} : { reason }) }], { withTime: true });
  }

  /** Usage now: counters from the summary, time from the ledger at the clock's now. */
  usage(): Usage {
    return { ...this.#summary.usage, ...timeUsage(this.#ledger, this.clock.now()) };
  }

  exceeded(): LimitName | undefined {
    return exceededLimit(this.usage(), this.#summary.spec.limits);
  }

  /** Seconds left before a time limit (working or wall), or Infinity without one. */
  remainingSeconds(): number {
    const { limits } = this.#summary.spec;
    const usage = this.usage();
    return Math.min(
      limits.workingSeconds === undefined ? Infinity : limits.workingSeconds - usage.workingSeconds,
      limits.wallSeconds === undefined ? Infinity : limits.wallSeconds - usage.wallSeconds,
    );
  }

  /** Write the current wall/working/paused time into the log (and so into the summary). */
  async reportTime(): Promise<void> {
    const { wallSeconds, workingSeconds, pausedSeconds } = this.usage();
    await this.append({ type: "time_reported", wallSeconds, workingSeconds, pausedSeconds });
  }

  events(afterSeq?: number): Promise<StoredEvent[]> {
    return this.store.events(this.id, afterSeq === undefined ? {} : { afterSeq });
  }

  scoreLog(): Promise<ScoreLogEntry[]> {
    return this.store.scoreLog(this.id);
  }
}
