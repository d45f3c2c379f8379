import { describe, expect, test } from "vitest";
import { CalibrationFile, calibrationConstants, calibrationVerdict, isSingleEntryCalibrationFile, scoreStats, type VariantCalibration } from "./calibration.js";
import type { MachineInfo } from "./machine.js";

const machine: MachineInfo = {
  cpuModel: "AMD EPYC 7B13",
  cores: 2,
  memoryGb: 23.5,
  gpu: null,
  gpuCount: 0,
  os: "Linux",
  rebenchVersion: "0.1.0",
  rebenchCommit: null,
};

describe("scoreStats()", () => {
  test("gives the mean and the sample standard deviation (n − 1)", () => {
    const stats = scoreStats([1, 2, 3, 4]);
    expect(stats).toMatchObject({ mean: 2.5, n: 4, values: [1, 2, 3, 4] });
    expect(stats.std).toBeCloseTo(Math.sqrt(5 / 3), 12);
  });

  test("needs two scores", () => {
    expect(() => scoreStats([1])).toThrow(/at least 2 scores/);
  });
});

describe("calibrationVerdict()", () => {
  test("passes when the gap is at least ten times the larger standard deviation", () => {
    const start = scoreStats([1.0, 1.1]);
    const reference = scoreStats([0.0, 0.02]);
    const verdict = calibrationVerdict(start, reference, "min");
    expect(verdict.gap).toBeCloseTo(1.04, 12);
    expect(verdict.largerStd).toBeCloseTo(0.1 / Math.SQRT2, 12);
    expect(verdict.gapOverStd).toBeCloseTo(1.04 / (0.1 / Math.SQRT2), 9);
    expect(verdict).toMatchObject({ referenceBetter: true, pass: true });
  });

  test("fails when start and reference overlap", () => {
    const verdict = calibrationVerdict(scoreStats([1.0, 1.4]), scoreStats([0.8, 1.2]), "min");
    expect(verdict.gapOverStd).toBeCloseTo(0.2 / (0.4 / Math.SQRT2), 9);
    expect(verdict.pass).toBe(false);
  });

  test("the rule's edge: exactly ten deviations pass, a hair less fails", () => {
    const start = { mean: 10, std: 0.1, n: 2, values: [10, 10] };
    expect(calibrationVerdict(start, { ...start, mean: 9 }, "min").pass).toBe(true);
    expect(calibrationVerdict(start, { ...start, mean: 9.0001 }, "min").pass).toBe(false);
  });

  test("fails when the reference is not better in the environment's direction, and when there is no gap", () => {
    const low = scoreStats([0, 0.01]);
    const high = scoreStats([1, 1.01]);
    expect(calibrationVerdict(low, high, "min")).toMatchObject({ referenceBetter: false, pass: false });
    expect(calibrationVerdict(low, high, "max")).toMatchObject({ referenceBetter: true, pass: true });
    expect(calibrationVerdict(scoreStats([1, 1]), scoreStats([1, 1]), "max")).toMatchObject({ gap: 0, gapOverStd: null, pass: false });
  });

  test("with no noise at all a real gap passes (gapOverStd null)", () => {
    expect(calibrationVerdict(scoreStats([1, 1]), scoreStats([0, 0]), "min")).toMatchObject({ gapOverStd: null, pass: true });
  });
});

describe("calibration.json", () => {
  const calibration: VariantCalibration = {
    machine,
    date: "2026-11-29T12:00:00.000Z",
    runs: 2,
    start: scoreStats([-1.1, -1.12]),
    reference: scoreStats([-3.7, -3.8]),
    gapOverStd: 36.6,
  };

  test("the schema reads the variant keys, each a calibration per machine class, and the canary, and refuses unknown keys", () => {
    const file = { canary: "7389377f-e6f3-4b15-8f10-86b4f9b72cc2", mini: { "AMD EPYC, 2 cores": calibration, "Intel Xeon, 2 cores": calibration } };
    expect(CalibrationFile.parse(file)).toEqual(file);
    expect(CalibrationFile.safeParse({ tiny: { "AMD EPYC, 2 cores": calibration } }).success).toBe(false);
    expect(CalibrationFile.safeParse({ mini: { "AMD EPYC, 2 cores": { ...calibration, runs: 1 } } }).success).toBe(false);
    expect(CalibrationFile.safeParse({ mini: calibration }).success).toBe(false);
  });

  test("a file of one calibration per variant is told apart from the per-class form", () => {
    expect(isSingleEntryCalibrationFile({ canary: "x", mini: calibration })).toBe(true);
    expect(isSingleEntryCalibrationFile({ gpu: calibration, mini: { "AMD EPYC, 2 cores": calibration } })).toBe(true);
    expect(isSingleEntryCalibrationFile({ mini: { "AMD EPYC, 2 cores": calibration } })).toBe(false);
    expect(isSingleEntryCalibrationFile({ canary: "x" })).toBe(false);
  });

  test("the constants are the two means, source calibration, and name their entry", () => {
    expect(calibrationConstants("AMD EPYC, 2 cores", calibration)).toEqual({
      start: -1.11,
      reference: -3.75,
      source: "calibration",
      note: "rebench calibrate, 2 runs each on AMD EPYC 7B13, 2026-11-29",
      entry: { machineClass: "AMD EPYC, 2 cores", date: "2026-11-29T12:00:00.000Z", runs: 2 },
    });
  });
});
