/**
 * @module
 * A line chart as SVG: one line with markers per series, a shaded band where points carry an interval,
 * a linear or logarithmic x axis, units on both axes and a legend.
 */
import type { LineFigure } from "./figure.js";
import { niceTicks } from "./nice-ticks.js";
import { type Box, svgParts } from "./svg-parts.js";

const WIDTH = 900;
/** The canvas is taller when the legend needs it. */
const HEIGHT = 520;
/** Between the legend's right edge and the canvas's. */
const LEGEND_MARGIN = 10;

export function lineChartSvg(figure: LineFigure): string {
  const { r, text, formatTick } = svgParts;
  const box: Box = { left: 78, right: WIDTH - 250, top: 52, bottom: HEIGHT - 72 };
  const points = figure.series.flatMap((s) => s.points);
  const xs = points.map((p) => p.x);
  const ys = points.flatMap((p) => [p.y, p.lo ?? p.y, p.hi ?? p.y]).concat((figure.guides ?? []).map((g) => g.y));
  const axis = svgParts.yAxis(box, ys, figure.yLabel);
  const x = xScale(figure, xs, box);
  const markers = figure.series.every((s) => s.points.length <= 12);
  const legendX = box.right + 24;
  const legend = svgParts.legend(
    legendX,
    box.top + 4,
    WIDTH - LEGEND_MARGIN - legendX,
    figure.series.map((s) => ({ ...s, marker: markers })),
  );
  const height = Math.max(HEIGHT, Math.ceil(legend.bottom + 36));
  const parts = [svgParts.open(WIDTH, height, figure.title, figure.note), axis.svg, svgParts.guides(box, axis.y, axis.top, figure.guides)];
  for (const tick of x.ticks) {
    const px = x.scale(tick.value);
    parts.push(`<line x1="${r(px)}" x2="${r(px)}" y1="${box.bottom}" y2="${box.bottom + 5}" stroke="#444"/>`);
    parts.push(text(px, box.bottom + 20, tick.label, 'text-anchor="middle" fill="#333"'));
  }
  parts.push(text((box.left + box.right) / 2, box.bottom + 46, figure.xLabel, 'text-anchor="middle" fill="#111"'));
  for (const series of figure.series) {
    const banded = series.points.filter((p) => p.lo !== undefined && p.hi !== undefined);
    if (banded.length >= 2) {
      const upper = banded.map((p) => `${r(x.scale(p.x))},${r(axis.y(p.hi!))}`);
      const lower = banded.map((p) => `${r(x.scale(p.x))},${r(axis.y(p.lo!))}`).reverse();
      parts.push(`<polygon points="${[...upper, ...lower].join(" ")}" fill="${series.color}" fill-opacity="0.12" stroke="none"/>`);
    } else {
      for (const p of banded) {
        const px = r(x.scale(p.x));
        parts.push(
          `<line x1="${px}" x2="${px}" y1="${r(axis.y(p.lo!))}" y2="${r(axis.y(p.hi!))}" stroke="${series.color}" stroke-width="2" stroke-opacity="0.5"/>`,
        );
      }
    }
    const path = series.points
      .flatMap((p, i) => {
        const here = `${r(x.scale(p.x))},${r(axis.y(p.y))}`;
        const previous = series.points[i - 1];
        return series.step && previous ? [`${r(x.scale(p.x))},${r(axis.y(previous.y))}`, here] : [here];
      })
      .join(" ");
    const dash = series.dash ? ` stroke-dasharray="${series.dash}"` : "";
    parts.push(`<polyline points="${path}" fill="none" stroke="${series.color}" stroke-width="2.5"${dash}/>`);
    if (series.points.length <= 12) {
      for (const p of series.points) parts.push(`<circle cx="${r(x.scale(p.x))}" cy="${r(axis.y(p.y))}" r="4" fill="${series.color}"/>`);
    }
  }
  parts.push(legend.svg);
  parts.push("</svg>");
  return `${parts.filter((p) => p !== "").join("\n")}\n`;

  function xScale(fig: LineFigure, values: readonly number[], b: Box) {
    const width = b.right - b.left;
    if (fig.xScale === "log") {
      const positive = values.filter((v) => v > 0);
      const lo = Math.min(...positive, ...(fig.xTicks ?? []).map((t) => t.value));
      const hi = Math.max(...positive, ...(fig.xTicks ?? []).map((t) => t.value));
      const a = Math.log(lo / 1.5);
      const c = Math.log(hi * 1.5);
      const ticks = fig.xTicks ?? logTicks(lo, hi);
      return { scale: (v: number) => b.left + ((Math.log(v) - a) / (c - a)) * width, ticks };
    }
    const grid = niceTicks(Math.min(0, ...values), Math.max(...values, 1e-9));
    const lo = grid[0]!;
    const hi = grid[grid.length - 1]!;
    const ticks = fig.xTicks ?? grid.map((value) => ({ value, label: formatTick(value) }));
    return { scale: (v: number) => b.left + ((v - lo) / (hi - lo)) * width, ticks };
  }
}

function logTicks(lo: number, hi: number): { value: number; label: string }[] {
  const ticks: { value: number; label: string }[] = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) ticks.push({ value: 10 ** e, label: svgParts.formatTick(10 ** e) });
  return ticks;
}
