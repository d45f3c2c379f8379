/**
 * @module
 * A grouped bar chart as SVG: categories along x (labels wrapped at underscores), one bar per series in each group,
 * "n/a" where a value is missing, units on the y axis and a legend.
 */
import type { BarFigure } from "./figure.js";
import { type Box, svgParts } from "./svg-parts.js";

const WIDTH = 1000;
/** The canvas is taller when the legend needs it. */
const HEIGHT = 540;
/** Between the legend's right edge and the canvas's. */
const LEGEND_MARGIN = 10;

export function barChartSvg(figure: BarFigure): string {
  const { r, text } = svgParts;
  const box: Box = { left: 78, right: WIDTH - 250, top: 52, bottom: HEIGHT - 90 };
  const values = figure.series.flatMap((s) => s.values.filter((v): v is number => v !== null));
  const axis = svgParts.yAxis(box, [...values, ...(figure.guides ?? []).map((g) => g.y)], figure.yLabel);
  const legendX = box.right + 24;
  const legend = svgParts.legend(legendX, box.top + 4, WIDTH - LEGEND_MARGIN - legendX, figure.series);
  const height = Math.max(HEIGHT, Math.ceil(legend.bottom + 36));
  const parts = [svgParts.open(WIDTH, height, figure.title, figure.note), axis.svg];
  const group = (box.right - box.left) / Math.max(1, figure.categories.length);
  const bar = (group * 0.8) / Math.max(1, figure.series.length);
  figure.categories.forEach((category, c) => {
    const start = box.left + c * group + group * 0.1;
    figure.series.forEach((series, s) => {
      const value = series.values[c] ?? null;
      const x = start + s * bar;
      if (value === null) {
        parts.push(
          text(
            x + bar / 2,
            box.bottom - 4,
            "n/a",
            `text-anchor="middle" font-size="9" fill="#777" transform="rotate(-90 ${r(x + bar / 2)} ${r(box.bottom - 4)})" dx="14" dy="3"`,
          ),
        );
        return;
      }
      const y = axis.y(Math.max(0, value));
      parts.push(`<rect x="${r(x)}" y="${r(y)}" width="${r(Math.max(1, bar - 1))}" height="${r(box.bottom - y)}" fill="${series.color}"/>`);
    });
    const cx = box.left + c * group + group / 2;
    wrap(category, 12).forEach((line, i) => {
      parts.push(text(cx, box.bottom + 18 + i * 15, line, 'text-anchor="middle" font-size="12" fill="#333"'));
    });
  });
  parts.push(svgParts.guides(box, axis.y, axis.top, figure.guides));
  parts.push(legend.svg);
  parts.push("</svg>");
  return `${parts.filter((p) => p !== "").join("\n")}\n`;
}

/** Split a snake_case name into lines of about `width` characters, breaking after underscores. */
function wrap(label: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const part of label.split(/(?<=_)/)) {
    if (line !== "" && line.length + part.length > width) {
      lines.push(line);
      line = "";
    }
    line += part;
  }
  return [...lines, line];
}
