/**
 * @module
 * report.md: the tables and the figures (as PNG links) of a report, readable on any forge.
 */
import type { Report } from "../build-report.js";
import type { Figure } from "./figure.js";
import { reportTables } from "./report-tables.js";

export interface ReportMarkdownOptions {
  /** Where the runs came from, e.g. `runs.jsonl (METR format)`. */
  source: string;
  /** Extra lines under the header (skipped rows and so on). */
  notes?: readonly string[];
}

export function reportMarkdown(report: Report, figures: readonly Figure[], options: ReportMarkdownOptions): string {
  const lines = [
    "# RE-Bench comparison: agents and humans",
    "",
    `Runs: ${options.source}; ${report.participants.map((p) => `${p.name} (${p.runs})`).join(", ")}.`,
    `Environments: ${report.environments.join(", ")}. Budgets: ${report.settings.budgets.map((b) => b.label).join(", ")}.`,
    ...(options.notes ?? []).map((n) => `- ${n}`),
    "",
  ];
  for (const table of reportTables(report)) {
    lines.push(`## ${table.title}`, "", `| ${table.headers.join(" | ")} |`, `|${table.numeric.map((n) => (n ? " ---: " : " --- ")).join("|")}|`);
    for (const row of table.rows) lines.push(`| ${row.map((c) => c.replace(/\|/g, "\\|")).join(" | ")} |`);
    lines.push("", table.note, "");
  }
  lines.push("## Figures", "");
  for (const figure of figures)
    lines.push(
      `### ${figure.title}`,
      "",
      `![${figure.title}](figures/${figure.name}.png)`,
      "",
      `Numbers: [figures/${figure.name}.json](figures/${figure.name}.json)`,
      "",
    );
  return `${lines.join("\n")}`;
}
