import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, test } from "vitest";
import { type MachineInfo, scoreStats, type VariantCalibration } from "../core/index.js";
import { readCalibrationFile, writeVariantCalibration } from "./calibration-file.js";
import { defineEnvironment, MINI_RESOURCES } from "./define.js";
import { normalizationOn } from "./normalization-on.js";

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

const EPYC = "AMD EPYC, 2 cores";
const intel: MachineInfo = { ...machine, cpuModel: "Intel(R) Xeon(R) Processor" };

describe("calibration.json and defineEnvironment", () => {
  test("without the file the declared constants stay, on every machine", () => {
    const { define } = family();
    const defined = define();
    expect(defined.variants.mini.normalization).toMatchObject({ start: 5, reference: 1, source: "shipped" });
    expect(defined.variants.mini.calibrations).toEqual({});
    expect(normalizationOn("calibrated_env", defined.variants.mini, intel)).toMatchObject({ machineClass: "Intel Xeon, 2 cores", constants: { start: 5 } });
  });

  test("written by writeVariantCalibration, an entry per class gives runs on that class its constants and no other class any; paper keeps the paper's", async () => {
    const { dir, define } = family();
    await writeVariantCalibration(dir, "mini", EPYC, calibration([4, 4.2], [1, 1.1]), CANARY);
    await writeVariantCalibration(dir, "paper", EPYC, calibration([9, 9.1], [8, 8.1]), CANARY);
    await writeVariantCalibration(dir, "gpu", EPYC, calibration([3, 3.1], [0.5, 0.6]), CANARY);
    const text = readFileSync(path.join(dir, "calibration.json"), "utf8");
    expect(Object.keys(JSON.parse(text) as object)).toEqual(["canary", "mini", "gpu", "paper"]);
    expect(readCalibrationFile(dir)?.mini?.[EPYC]?.start.values).toEqual([4, 4.2]);
    const defined = define();
    expect(normalizationOn("calibrated_env", defined.variants.mini, machine)).toEqual({
      machineClass: EPYC,
      constants: {
        start: 4.1,
        reference: 1.05,
        source: "calibration",
        note: "rebench calibrate, 2 runs each on AMD EPYC, 2026-11-29",
        entry: { machineClass: EPYC, date: "2026-11-29T12:00:00.000Z", runs: 2 },
      },
    });
    expect(normalizationOn("calibrated_env", defined.variants.gpu, machine).constants).toMatchObject({ start: 3.05, reference: 0.55, source: "calibration" });
    // Another class: no constants (not the shipped ones, not another class's), and the command that makes them.
    expect(normalizationOn("calibrated_env", defined.variants.mini, intel)).toEqual({
      machineClass: "Intel Xeon, 2 cores",
      missing:
        "calibrated_env/mini has no calibration for Intel Xeon, 2 cores (only AMD EPYC, 2 cores, of a CPU generation not recorded): run `rebench calibrate calibrated_env --variant mini --write` on a machine of that class",
    });
    expect(normalizationOn("calibrated_env", defined.variants.mini, { ...machine, cores: 4 }).missing).toMatch(/no calibration for AMD EPYC, 4 cores/);
    expect(normalizationOn("calibrated_env", defined.variants.paper, intel).constants).toMatchObject({ start: 1.55, reference: 0.47, source: "paper" });
    expect(defined.variants.paper.calibrations[EPYC]?.start.mean).toBeCloseTo(9.05, 12);
    expect(defined.variants.mini.calibrations[EPYC]?.machine).toEqual(machine);
  });

  test("an uncalibrated variant says so with the command", () => {
    const defined = family().define();
    expect(normalizationOn("calibrated_env", defined.variants.gpu, machine)).toEqual({
      machineClass: EPYC,
      missing: "calibrated_env/gpu is not calibrated: run `rebench calibrate calibrated_env --variant gpu --write`",
    });
  });

  test("rewriting a class replaces that class's entry only, keeping the other classes and variants", async () => {
    const { dir } = family();
    await writeVariantCalibration(dir, "mini", EPYC, calibration([4, 4.2], [1, 1.1]), CANARY);
    await writeVariantCalibration(dir, "mini", "Intel Xeon, 2 cores", { ...calibration([5, 5.2], [1, 1.1]), machine: intel }, CANARY);
    await writeVariantCalibration(dir, "gpu", EPYC, calibration([3, 3.1], [0.5, 0.6]), CANARY);
    await writeVariantCalibration(dir, "mini", EPYC, calibration([6, 6.2], [2, 2.1]), CANARY);
    const file = readCalibrationFile(dir)!;
    expect(Object.keys(file.mini!)).toEqual([EPYC, "Intel Xeon, 2 cores"]);
    expect(file.mini?.[EPYC]?.start.mean).toBeCloseTo(6.1, 12);
    expect(file.mini?.["Intel Xeon, 2 cores"]?.start.mean).toBeCloseTo(5.1, 12);
    expect(file.gpu?.[EPYC]?.start.mean).toBeCloseTo(3.05, 12);
  });

  test("a malformed file fails loudly with its path", () => {
    expect(family({ "calibration.json": "{nope" }).define).toThrow(/calibration\.json is not JSON/);
    expect(family({ "calibration.json": JSON.stringify({ mini: { [EPYC]: { runs: 5 } } }) }).define).toThrow(
      /calibration\.json is invalid:\n\s+- mini\.AMD EPYC, 2 cores\.machine/,
    );
  });

  test("a file of the form before machine classes is refused with the script that converts it", () => {
    const old = JSON.stringify({ canary: CANARY, mini: calibration([4, 4.2], [1, 1.1]) });
    const { define, dir } = family({ "calibration.json": old });
    const file = path.join(dir, "calibration.json");
    expect(define).toThrow(
      `${file} has one calibration per variant, the form before machine classes: convert it, every number kept, with \`npx tsx scripts/migrate-calibration.ts ${file}\``,
    );
  });

  test("an entry whose key is not its machine's class is refused", () => {
    const misfiled = JSON.stringify({ canary: CANARY, mini: { "Intel Xeon, 2 cores": calibration([4, 4.2], [1, 1.1]) } });
    expect(family({ "calibration.json": misfiled }).define).toThrow(
      /the mini entry "Intel Xeon, 2 cores" was measured on a machine of class "AMD EPYC, 2 cores"/,
    );
  });
});
