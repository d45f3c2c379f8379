/**
 * @module
 * scripts/migrate-calibration.ts, run as a process on calibration.json files of the form before machine
 * classes: every entry becomes its machine's class's, nothing in it changes, the result loads, and a
 * second run leaves the file alone.
 */
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { describe, expect, test } from "vitest";
import { type MachineInfo, scoreStats } from "../src/core/index.js";
import { readCalibrationFile } from "../src/environments/index.js";
import { tempDir } from "./helpers/tmp.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const root = tempDir("rebench-migrate-calibration-");
const execFileAsync = promisify(execFile);
const tsx = pathToFileURL(path.join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;
/** The script as `npx tsx scripts/migrate-calibration.ts ARGS` runs it, from `cwd`. */
const migrate = (cwd: string, ...args: string[]) =>
  execFileAsync(process.execPath, ["--import", tsx, path.join(ROOT, "scripts", "migrate-calibration.ts"), ...args], { cwd });

const machine = (cpuModel: string, cores: number, gpu: string | null): MachineInfo => ({
  cpuModel,
  cores,
  memoryGb: 23.5,
  gpu,
  gpuCount: gpu === null ? 0 : 4,
  os: "Linux",
  rebenchVersion: "0.1.0",
  rebenchCommit: "792ffe9d1869-dirty",
});
const entry = (m: MachineInfo, extra: Record<string, unknown> = {}) => ({
  machine: m,
  date: "2026-11-29T19:26:03.400+00:00",
  runs: 3,
  start: scoreStats([0.123456789012345, 0.2, 0.3]),
  reference: scoreStats([-1, -1.1, -1.2]),
  gapOverStd: 12.3456,
  ...extra,
});

describe("scripts/migrate-calibration.ts", { timeout: 120_000 }, () => {
  test("turns each variant's one calibration into the entry of its machine's class, keeping every field, and leaves a migrated file alone", async () => {
    const old = {
      canary: "7389377f-e6f3-4b15-8f10-86b4f9b72cc2",
      mini: entry(machine("Intel(R) Xeon(R) Processor", 2, null)),
      // A GPU variant's entry measured with a GPU takes the GPU's class, even on a many-core host.
      gpu: entry(machine("Intel(R) Xeon(R) Processor", 64, "NVIDIA H100 80GB HBM3"), { note: "three runs at once", extra: { kept: true } }),
      // One measured without a GPU (a variant that asks for none) takes the CPU's.
      paper: entry(machine("AMD EPYC 7B13", 16, null)),
    };
    const file = path.join(root, "calibration.json");
    writeFileSync(file, JSON.stringify(old, null, 2));
    expect(() => readCalibrationFile(root)).toThrow(
      /the form before machine classes: convert it, every number kept, with `npx tsx scripts\/migrate-calibration\.ts /,
    );

    const first = await migrate(root, file);
    expect(first.stdout).toBe("calibration.json: mini → Intel Xeon, 2 cores; gpu → NVIDIA H100; paper → AMD EPYC, 16 cores\n");
    const migrated = JSON.parse(readFileSync(file, "utf8"));
    expect(migrated).toEqual({
      canary: old.canary,
      mini: { "Intel Xeon, 2 cores": old.mini },
      gpu: { "NVIDIA H100": old.gpu },
      paper: { "AMD EPYC, 16 cores": old.paper },
    });
    expect(readCalibrationFile(root)?.gpu?.["NVIDIA H100"]?.start.values).toEqual([0.123456789012345, 0.2, 0.3]);

    const text = readFileSync(file, "utf8");
    const second = await migrate(root, file);
    expect(second.stdout).toBe("calibration.json: already one entry per machine class\n");
    expect(readFileSync(file, "utf8")).toBe(text);
  });

  test("every environment's calibration.json is in the per-class form", () => {
    const dirs = readdirSync(path.join(ROOT, "environments")).filter((name) => existsSync(path.join(ROOT, "environments", name, "calibration.json")));
    expect(dirs.length).toBeGreaterThanOrEqual(7);
    for (const name of dirs) {
      // The loader refuses the old form; a variant may have no entry at all (as finetune_gpt2_qa's mini had after its judge changed).
      const file = readCalibrationFile(path.join(ROOT, "environments", name))!;
      for (const variant of ["mini", "gpu", "paper"] as const) {
        for (const [cls, entry] of Object.entries(file[variant] ?? {})) expect(entry.machine, `${name}/${variant} ${cls}`).toBeDefined();
      }
    }
  });
});
