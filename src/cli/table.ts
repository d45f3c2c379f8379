/**
 * @module
 * Plain-text tables for terminal output: left-aligned text, right-aligned numbers.
 */
import { formatNumber } from "./format.js";

export interface Column<Row> {
  header: string;
  value: (row: Row) => string | number | null | undefined;
  align?: "left" | "right";
}

export function formatTable<Row>(rows: readonly Row[], columns: readonly Column<Row>[]): string {
  const cells = rows.map((row) => columns.map((c) => cellText(c.value(row))));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: readonly string[]) =>
    values
      .map((v, i) => {
        const align = columns[i]!.align ?? "left";
        return align === "right" ? v.padStart(widths[i]!) : v.padEnd(widths[i]!);
      })
      .join("  ")
      .trimEnd();
  return `${[line(columns.map((c) => c.header)), ...cells.map(line)].join("\n")}\n`;
}

function cellText(value: string | number | null | undefined): string {
  return typeof value === "string" ? value : formatNumber(value);
}
