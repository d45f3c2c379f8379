import { describe, expect, test } from "vitest";
import type { RunEvent } from "../core/index.js";
import { EMPTY_LEDGER, foldTime, timeUsage } from "./time-ledger.js";
import { canTransition } from "./transitions.js";

const at = (s: number) => new Date(Date.UTC(2026, 10, 29, 12, 0, 0) + s * 1000).toISOString();
const ms = (s: number) => Date.parse(at(s));
const fold = (events: RunEvent[]) => events.reduce(foldTime, EMPTY_LEDGER);

describe("timeUsage()", () => {
  test("the clock starts at running; closed and open pauses are not working time", () => {
    const ledger = fold([
      { type: "state_changed", ts: at(0), to: "starting" },
      { type: "state_changed", ts: at(30), to: "running" },
      { type: "pause_started", ts: at(40), reason: "scoring" },
      { type: "pause_ended", ts: at(100), reason: "scoring" },
      { type: "pause_started", ts: at(130), reason: "model_retry" },
    ]);
    expect(timeUsage(ledger, ms(150))).toEqual({ wallSeconds: 120, workingSeconds: 40, pausedSeconds: 80 });
  });

  test("time freezes when the run enters scoring, closing an open pause there", () => {
    const ledger = fold([
      { type: "state_changed", ts: at(0), to: "running" },
      { type: "pause_started", ts: at(10), reason: "human" },
      { type: "state_changed", ts: at(25), to: "scoring" },
    ]);
    expect(timeUsage(ledger, ms(1000))).toEqual({ wallSeconds: 25, workingSeconds: 10, pausedSeconds: 15 });
  });

  test("a run that has not started has used no time, and driver_attached is not activity", () => {
    expect(timeUsage(fold([{ type: "state_changed", ts: at(0), to: "starting" }]), ms(99))).toEqual({ wallSeconds: 0, workingSeconds: 0, pausedSeconds: 0 });
    const ledger = fold([
      { type: "state_changed", ts: at(0), to: "running" },
      { type: "driver_attached", ts: at(50), pid: 1, host: "h" },
    ]);
    expect(ledger.lastEventMs).toBe(ms(0));
  });
});

describe("the run state machine", () => {
  test("allows the lifecycle's edges and nothing out of a terminal state", () => {
    expect(canTransition("queued", "starting")).toBe(true);
    expect(canTransition("running", "paused")).toBe(true);
    expect(canTransition("paused", "running")).toBe(true);
    expect(canTransition("running", "scoring")).toBe(true);
    expect(canTransition("scoring", "finished")).toBe(true);
    expect(canTransition("queued", "running")).toBe(false);
    expect(canTransition("running", "finished")).toBe(false);
    expect(canTransition("finished", "running")).toBe(false);
    expect(canTransition("failed", "starting")).toBe(false);
  });
});
