import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, test } from "vitest";
import { type MachineInfo, scoreStats, type VariantCalibration } from "../core/index.js";
import { readCalibrationFile, writeVariantCalibration } from "./calibration-file.js";
import { defineEnvironment, MINI_RESOURCES } from "./define.js";

const root = mkdtempSync(path.join(os.tmpdir(), "rebench-calibration-file-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const CANARY = "7389377f-e6f3-4b15-8f10-86b4f9b72cc2";
const machine: MachineInfo = {
  cpuModel: "AMD EPYC",
  cores: 2,
  memoryGb: 23.5,
  gpu: null,
  gpuCount: 0,
  os: "Linux",
  rebenchVersion: "0.1.0",
  rebenchCommit: null,
};
const calibration = (start: number[], reference: number[]): VariantCalibration => ({
  machine,
  date: "2026-11-29T12:00:00.000Z",
  runs: start.length,
  start: scoreStats(start),
  reference: scoreStats(reference),
  gapOverStd: 20,
});

let n = 0;
function family(files: Record<string, string> = {}) {
  const dir = path.join(root, `env${++n}`);
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  const variant = (normalization?: { start: number; reference: number; source: "paper" | "shipped" }) => ({
    scale: "tiny",
    resources: MINI_RESOURCES,
    ...(normalization ? { normalization } : {}),
    unavailableReason: "a test",
  });
  return {
    dir,
    define: () =>
      defineEnvironment({
        name: "calibrated_env",
        title: "t",
        summary: "s",
        canary: CANARY,
        scoring: { direction: "min", aggregation: "min" },
        moduleUrl: pathToFileURL(path.join(dir, "family.ts")).href,
        variants: {
          mini: variant({ start: 5, reference: 1, source: "shipped" }),
          gpu: variant(),
          paper: variant({ start: 1.55, reference: 0.47, source: "paper" }),
        },
      }),
  };
}

describe("calibration.json and defineEnvironment", () => {
  test("without the file the declared constants stay", () => {
    const { define } = family();
    expect(define().variants.mini.normalization).toMatchObject({ start: 5, reference: 1, source: "shipped" });
    expect(define().variants.mini.calibration).toBeUndefined();
  });

  test("written by writeVariantCalibration, it gives mini and gpu their constants; paper keeps the paper's", async () => {
    const { dir, define } = family();
    await writeVariantCalibration(dir, "mini", calibration([4, 4.2], [1, 1.1]), CANARY);
    await writeVariantCalibration(dir, "paper", calibration([9, 9.1], [8, 8.1]), CANARY);
    await writeVariantCalibration(dir, "gpu", calibration([3, 3.1], [0.5, 0.6]), CANARY);
    const text = readFileSync(path.join(dir, "calibration.json"), "utf8");
    expect(Object.keys(JSON.parse(text) as object)).toEqual(["canary", "mini", "gpu", "paper"]);
    expect(readCalibrationFile(dir)?.mini?.start.values).toEqual([4, 4.2]);
    const defined = define();
    expect(defined.variants.mini.normalization).toMatchObject({ start: 4.1, reference: 1.05, source: "calibration" });
    expect(defined.variants.gpu.normalization).toMatchObject({ start: 3.05, reference: 0.55, source: "calibration" });
    expect(defined.variants.paper.normalization).toMatchObject({ start: 1.55, reference: 0.47, source: "paper" });
    expect(defined.variants.paper.calibration?.start.mean).toBeCloseTo(9.05, 12);
    expect(defined.variants.mini.calibration?.machine).toEqual(machine);
  });

  test("rewriting a variant keeps the others", async () => {
    const { dir } = family();
    await writeVariantCalibration(dir, "mini", calibration([4, 4.2], [1, 1.1]), CANARY);
    await writeVariantCalibration(dir, "gpu", calibration([3, 3.1], [0.5, 0.6]), CANARY);
    await writeVariantCalibration(dir, "mini", calibration([6, 6.2], [2, 2.1]), CANARY);
    const file = readCalibrationFile(dir)!;
    expect(file.mini?.start.mean).toBeCloseTo(6.1, 12);
    expect(file.gpu?.start.mean).toBeCloseTo(3.05, 12);
  });

  test("a malformed file fails loudly with its path", () => {
    expect(family({ "calibration.json": "{nope" }).define).toThrow(/calibration\.json is not JSON/);
    expect(family({ "calibration.json": JSON.stringify({ mini: { runs: 5 } }) }).define).toThrow(/calibration\.json is invalid:\n\s+- mini\.machine/);
  });
});
