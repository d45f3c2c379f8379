/**
 * @module
 * `rebench main`: the offline main job. Runs every available `mini` environment end to end on the
 * embedded defaults (SQLite store, local sandbox) and prints the report. Until environments land it
 * lists what exists and what is still missing.
 */
import type { Command } from "commander";
import { listEnvironments } from "../../environments/index.js";
import { defaultDbPath } from "../../store/index.js";
import type { Io } from "../io.js";
import { formatTable } from "../table.js";

export function registerMainJob(program: Command, io: Io): void {
  program
    .command("main")
    .description("run the offline main job: every available mini environment, start and reference, then the report")
    .option("--db <path>", "run store (SQLite file)", defaultDbPath())
    .addHelpText("after", "\nExample:\n  rebench main --db /tmp/rebench.db")
    .action((options: { db: string }) => {
      const families = listEnvironments();
      const available = families.filter((f) => f.variants.mini.availability.status === "available");
      io.out(`rebench main job: ${available.length} of ${families.length} mini environments available (store: ${options.db})\n\n`);
      io.out(
        formatTable(families, [
          { header: "ENVIRONMENT", value: (f) => f.name },
          { header: "MINI", value: (f) => (f.variants.mini.availability.status === "available" ? "available" : "not yet") },
          { header: "SCALE", value: (f) => f.variants.mini.scale },
        ]),
      );
      if (available.length === 0) {
        io.out("\nNo mini environment is implemented yet, so there is nothing to run: the job ends here.\n");
      }
    });
}
