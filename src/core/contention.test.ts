import { describe, expect, test } from "vitest";
import { CONTENTION_THRESHOLD_CPUS, contentionNote, contentionOf, contentionWarning, judgeContention, machineBusy } from "./contention.js";
import { parseProcStat } from "./host-cpu.js";

const at = (busySeconds: number, stealSeconds = 0) => ({ busySeconds, stealSeconds, cpus: 2 });
const window = (busy: number, sandbox: number | undefined, extra: Partial<Parameters<typeof judgeContention>[0]> = {}) =>
  judgeContention({
    before: at(100),
    after: at(100 + busy),
    wallSeconds: 10,
    sandboxCpuSeconds: sandbox,
    load: 2.345,
    otherSandboxes: 0,
    timingSensitive: true,
    ...extra,
  });

describe("judgeContention()", () => {
  test("other work is the machine's busy time less the sandbox's, per wall second", () => {
    const c = window(23, 10);
    expect(c).toMatchObject({ otherCpus: 1.3, sandboxCpus: 1, seconds: 10, cpus: 2, load: 2.345, flagged: true });
  });

  test("a quiet machine (only the sandbox busy) is not flagged, and its numbers are recorded", () => {
    const c = window(10.4, 10);
    expect(c.otherCpus).toBeCloseTo(0.04, 6);
    expect(c.flagged).toBe(false);
    expect(c.thresholdCpus).toBe(CONTENTION_THRESHOLD_CPUS);
  });

  test("flags only above the threshold, which a caller may set", () => {
    expect(window(12.5, 10).flagged).toBe(false); // exactly 0.25 CPUs
    expect(window(12.6, 10).flagged).toBe(true);
    expect(window(12.6, 10, { thresholdCpus: 0.5 }).flagged).toBe(false);
  });

  test("never flags a variant whose score does not depend on timing, but keeps the numbers", () => {
    const c = window(30, 10, { timingSensitive: false });
    expect(c).toMatchObject({ otherCpus: 2, flagged: false, timingSensitive: false });
  });

  test("steal counts as other work and is reported on its own", () => {
    const c = judgeContention({
      before: at(0, 0),
      after: at(14, 4),
      wallSeconds: 10,
      sandboxCpuSeconds: 10,
      load: undefined,
      otherSandboxes: 1,
      timingSensitive: true,
    });
    expect(c).toMatchObject({ otherCpus: 0.4, steal: 0.4, load: null, otherSandboxes: 1, flagged: true });
  });

  test("without the sandbox's own CPU time other work is unknown and nothing is flagged", () => {
    const c = window(20, undefined);
    expect(c).toMatchObject({ otherCpus: null, sandboxCpus: null, flagged: false });
  });

  test("accounting jitter never gives negative numbers", () => {
    expect(window(9.9, 10).otherCpus).toBe(0);
  });
});

describe("contention text", () => {
  const flagged = window(23, 10, { otherSandboxes: 1 });

  test("the user's warning says how much of the machine other work used and what to do", () => {
    expect(contentionWarning(flagged)).toBe(
      "scored while other work used 1.3 of 2 CPUs (1 other rebench sandbox running): this timing is not comparable; score again on a quiet machine",
    );
  });

  test("the participant's note says the timing is slower and not comparable", () => {
    expect(contentionNote(flagged)).toBe(
      "while this was scored, other work on this machine used 1.3 of 2 CPUs (1 other rebench sandbox running): this timing is slower " +
        "than on a quiet machine and not comparable with other scores; a later scoring may be fairer",
    );
  });

  test("contentionOf() reads an entry's details, and ignores entries without the numbers", () => {
    expect(contentionOf({ details: { contention: flagged } })).toEqual(flagged);
    expect(contentionOf({ details: {} })).toBeUndefined();
    expect(contentionOf({ details: { contention: { otherCpus: "a lot" } } })).toBeUndefined();
  });
});

describe("machineBusy()", () => {
  test("is the threshold on a sample of the machine taken before anything of rebench runs", () => {
    expect(machineBusy(0.1)).toBe(false);
    expect(machineBusy(1.9)).toBe(true);
    expect(machineBusy(0.3, 0.5)).toBe(false);
  });
});

describe("parseProcStat()", () => {
  test("sums user, nice, system, irq, softirq and steal of the aggregate line, in seconds, and counts the CPUs", () => {
    const stat = [
      "cpu  462770 10 99540 348126 6024 5 1265 6623 900 0",
      "cpu0 231385 5 49770 174063 3012 2 632 3311 450 0",
      "cpu1 231385 5 49770 174063 3012 3 633 3312 450 0",
      "intr 1 2 3",
    ].join("\n");
    const parsed = parseProcStat(stat)!;
    expect(parsed.busySeconds).toBeCloseTo((462770 + 10 + 99540 + 5 + 1265 + 6623) / 100, 6);
    expect(parsed.stealSeconds).toBeCloseTo(66.23, 6);
    expect(parsed.cpus).toBe(2);
  });

  test("is undefined for text without a cpu line", () => {
    expect(parseProcStat("intr 1 2 3\n")).toBeUndefined();
  });
});
