/**
 * @module
 * `rebench doctor`: which sandbox backends work on this machine and whether their isolation holds,
 * each found by probing a real sandbox (network, protected directory, limits, separate users).
 */
import type { Command } from "commander";
import { ReportedFailureError } from "../../core/index.js";
import { backends as backendRegistry } from "../../runs/sandbox-backends.js";
import type { BackendCheck } from "../../sandbox/index.js";
import { registerBuiltins } from "../builtins.js";
import { COMMAND_SUMMARIES } from "../command-summaries.js";
import { type Io, printJson } from "../io.js";
import { formatTable } from "../table.js";

export interface DoctorReport {
  /** At least one backend is usable, and every usable backend's isolation holds in full. */
  ok: boolean;
  backends: BackendCheck[];
}

export function registerDoctor(program: Command, io: Io): void {
  program
    .command("doctor")
    .description(COMMAND_SUMMARIES.doctor)
    .option("--json", "print the report as JSON")
    .addHelpText("after", "\nExit status 1 when no backend is usable or a usable one leaks.\n\nExample:\n  rebench doctor --json")
    .action(async (options: { json?: boolean }) => {
      const backends: BackendCheck[] = [];
      registerBuiltins();
      for (const backend of backendRegistry.list().map((entry) => entry.create({ forCheck: true }))) {
        if (!options.json && io.interactive) io.err(`checking ${backend.name}...\n`);
        backends.push(await backend.check());
      }
      const report: DoctorReport = { ok: backends.some((b) => b.usable) && backends.filter((b) => b.usable).every(isolated), backends };
      if (options.json) printJson(io, report);
      else io.out(formatReport(report));
      if (!report.ok) {
        throw new ReportedFailureError(
          backends.some((b) => b.usable) ? "isolation does not hold in full (see above)" : "no sandbox backend works here (see above)",
        );
      }
    });
}

function isolated(check: BackendCheck): boolean {
  return Object.values(check.isolation).every((v) => v === true);
}

function formatReport(report: DoctorReport): string {
  const yesNo = (v: boolean | null) => (v === null ? "-" : v ? "yes" : "NO");
  const table = formatTable(report.backends, [
    { header: "BACKEND", value: (b) => b.backend },
    { header: "USABLE", value: (b) => (b.usable ? "yes" : "NO") },
    { header: "NETWORK BLOCKED", value: (b) => yesNo(b.isolation.networkBlocked) },
    { header: "PROTECTED UNREADABLE", value: (b) => yesNo(b.isolation.protectedUnreadable) },
    { header: "LIMITS APPLIED", value: (b) => yesNo(b.isolation.limitsApplied) },
    { header: "SEPARATE USER", value: (b) => yesNo(b.isolation.runsAsSeparateUser) },
    { header: "JAIL HOLDS", value: (b) => yesNo(b.isolation.jailHolds) },
  ]);
  const notes = report.backends.flatMap((b) => [...b.problems, ...(b.notes ?? []).map((n) => `(note) ${n}`)].map((p) => `  ${b.backend}: ${p}\n`));
  return `rebench doctor: sandbox backends on this machine, each probed with a real sandbox\n\n${table}${notes.length ? `\n${notes.join("")}` : ""}`;
}
