/**
 * Convert calibration.json files of the form before machine classes (one calibration per variant) into one
 * entry per machine class, every number kept: each entry becomes the entry of the class its `machine`
 * names (docs/runs.md, "Machine classes"). `mini` entries take the CPU's class; `gpu` and `paper` entries
 * the GPU's where their machine had one, else the CPU's (a variant that asks for no GPU, such as
 * rust_codecontests/gpu). Files already in the new form are left as they are; defineEnvironment checks
 * each key against the variant's resources when it loads the file.
 *
 *     npx tsx scripts/migrate-calibration.ts                      # every environments/*\/calibration.json
 *     npx tsx scripts/migrate-calibration.ts PATH [PATH ...]      # these files
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type CalibrationFile, isSingleEntryCalibrationFile, machineClass, parseWith, VARIANTS, VariantCalibration } from "../src/core/index.js";
import { writeCalibrationFile } from "../src/environments/calibration-file.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The file's new form, or undefined when it is in the new form already. */
export function migrateCalibration(value: unknown, where: string): CalibrationFile | undefined {
  if (!isSingleEntryCalibrationFile(value)) return undefined;
  const old = value as Record<string, unknown>;
  const migrated: CalibrationFile = typeof old.canary === "string" ? { canary: old.canary } : {};
  for (const variant of VARIANTS) {
    if (old[variant] === undefined) continue;
    const entry = parseWith(VariantCalibration, old[variant], `${where}: ${variant}`);
    const kind = variant !== "mini" && entry.machine.gpu !== null ? "gpu" : "cpu";
    // The entry as it was (parsing only checks it), so that nothing in it is dropped.
    migrated[variant] = { [machineClass(entry.machine, kind)!]: old[variant] as VariantCalibration };
  }
  return migrated;
}

async function main(args: string[]): Promise<void> {
  const environments = path.join(ROOT, "environments");
  const files =
    args.length > 0
      ? args.map((file) => path.resolve(file))
      : readdirSync(environments)
          .map((name) => path.join(environments, name, "calibration.json"))
          .filter((file) => existsSync(file));
  for (const file of files) {
    const migrated = migrateCalibration(JSON.parse(readFileSync(file, "utf8")), file);
    if (migrated === undefined) {
      console.log(`${path.relative(process.cwd(), file)}: already one entry per machine class`);
      continue;
    }
    await writeCalibrationFile(file, migrated);
    const classes = VARIANTS.flatMap((v) => Object.keys(migrated[v] ?? {}).map((c) => `${v} → ${c}`));
    console.log(`${path.relative(process.cwd(), file)}: ${classes.join("; ")}`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main(process.argv.slice(2));
