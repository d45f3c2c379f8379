/**
 * @module
 * report.html: one self-contained page (inline CSS and SVG, no scripts, nothing fetched) with the same
 * tables and figures as report.md.
 */
import type { Report } from "../build-report.js";
import type { Figure } from "./figure.js";
import { figureSvg } from "./figure-svg.js";
import type { ReportMarkdownOptions } from "./report-markdown.js";
import { reportTables } from "./report-tables.js";

const STYLE = `body{font-family:"DejaVu Sans",Verdana,Arial,sans-serif;margin:2em auto;max-width:1000px;color:#111;padding:0 1em}
table{border-collapse:collapse;margin:.5em 0;font-size:14px}th,td{border-bottom:1px solid #ddd;padding:4px 10px;text-align:left}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}p.note{color:#555;font-size:13px}svg{max-width:100%;height:auto}`;

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

export function reportHtml(report: Report, figures: readonly Figure[], options: ReportMarkdownOptions): string {
  const parts = [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8"><title>RE-Bench comparison: agents and humans</title>',
    `<style>${STYLE}</style></head><body>`,
    "<h1>RE-Bench comparison: agents and humans</h1>",
    `<p>Runs: ${escapeHtml(options.source)}; ${escapeHtml(report.participants.map((p) => `${p.name} (${p.runs})`).join(", "))}.<br>`,
    `Environments: ${escapeHtml(report.environments.join(", "))}. Budgets: ${escapeHtml(report.settings.budgets.map((b) => b.label).join(", "))}.</p>`,
    ...(options.notes ?? []).map((n) => `<p class="note">${escapeHtml(n)}</p>`),
  ];
  for (const table of reportTables(report)) {
    const cls = (i: number) => (table.numeric[i] ? ' class="n"' : "");
    parts.push(
      `<h2>${escapeHtml(table.title)}</h2><table><thead><tr>${table.headers.map((h, i) => `<th${cls(i)}>${escapeHtml(h)}</th>`).join("")}</tr></thead><tbody>`,
    );
    for (const row of table.rows) parts.push(`<tr>${row.map((c, i) => `<td${cls(i)}>${escapeHtml(c)}</td>`).join("")}</tr>`);
    parts.push(`</tbody></table><p class="note">${escapeHtml(table.note)}</p>`);
  }
  parts.push("<h2>Figures</h2>");
  for (const figure of figures) parts.push(`<figure>${figureSvg(figure)}</figure>`);
  parts.push("</body></html>");
  return `${parts.join("\n")}\n`;
}
