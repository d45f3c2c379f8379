/**
 * @module
 * The pieces every chart shares: the canvas and title, a y axis with grid lines and units, horizontal
 * guides, and the legend. Sizes are in SVG pixels; text uses DejaVu Sans (installed with
 * fonts-dejavu-core), which the PNG renderer loads explicitly.
 */
import { niceTicks } from "./nice-ticks.js";

export const FONT = "DejaVu Sans, Verdana, Arial, sans-serif";

export interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function text(x: number, y: number, content: string, attrs = ""): string {
  return `<text x="${r(x)}" y="${r(y)}" ${attrs}>${escapeXml(content)}</text>`;
}

/** Round a coordinate to 0.1 px so SVG files stay small and stable. */
function r(v: number): string {
  return String(Math.round(v * 10) / 10);
}

function shorten(label: string, max = 30): string {
  return label.length <= max ? label : `${label.slice(0, max - 1)}…`;
}

function open(width: number, height: number, title: string, note: string | undefined): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${FONT}" font-size="13">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    text(width / 2, 28, title, 'text-anchor="middle" font-size="17" font-weight="bold" fill="#111"'),
    note ? text(width / 2, height - 10, note, 'text-anchor="middle" font-size="11" fill="#555"') : "",
  ].join("\n");
}

/** Y axis from 0 (or below, if needed) to the data's top; returns the drawing and the scale. */
function yAxis(box: Box, values: readonly number[], label: string): { svg: string; y: (v: number) => number; top: number } {
  const lowest = Math.min(0, ...values);
  const highest = Math.max(1e-9, ...values);
  const ticks = niceTicks(lowest, highest * 1.04);
  const low = ticks[0]!;
  const top = ticks[ticks.length - 1]!;
  const y = (v: number) => box.bottom - ((v - low) / (top - low)) * (box.bottom - box.top);
  const parts = ticks.map(
    (t) =>
      `<line x1="${box.left}" x2="${box.right}" y1="${r(y(t))}" y2="${r(y(t))}" stroke="#e3e3e3"/>` +
      text(box.left - 8, y(t) + 4, formatTick(t), 'text-anchor="end" fill="#333"'),
  );
  const middle = (box.top + box.bottom) / 2;
  parts.push(text(22, middle, label, `text-anchor="middle" transform="rotate(-90 22 ${r(middle)})" fill="#111"`));
  parts.push(`<line x1="${box.left}" x2="${box.left}" y1="${box.top}" y2="${box.bottom}" stroke="#444"/>`);
  parts.push(`<line x1="${box.left}" x2="${box.right}" y1="${box.bottom}" y2="${box.bottom}" stroke="#444"/>`);
  return { svg: parts.join("\n"), y, top };
}

function guides(box: Box, y: (v: number) => number, top: number, list: readonly { y: number; label: string }[] = []): string {
  return list
    .filter((g) => g.y <= top)
    .map(
      (g) =>
        `<line x1="${box.left}" x2="${box.right}" y1="${r(y(g.y))}" y2="${r(y(g.y))}" stroke="#888" stroke-dasharray="3 3"/>` +
        text(box.left + 6, y(g.y) - 5, g.label, 'font-size="11" fill="#555"'),
    )
    .join("\n");
}

/** Legend entries stacked to the right of the plot. */
function legend(x: number, top: number, entries: readonly { name: string; color: string; dash?: string; marker?: boolean }[]): string {
  const parts = [text(x, top, "Legend", 'font-weight="bold" fill="#111"')];
  entries.forEach((e, i) => {
    const y = top + 22 + i * 21;
    const dash = e.dash ? ` stroke-dasharray="${e.dash}"` : "";
    parts.push(`<line x1="${x}" x2="${x + 26}" y1="${y - 4}" y2="${y - 4}" stroke="${e.color}" stroke-width="3"${dash}/>`);
    if (e.marker) parts.push(`<circle cx="${x + 13}" cy="${y - 4}" r="4" fill="${e.color}"/>`);
    parts.push(text(x + 34, y, shorten(e.name), 'fill="#111"'));
  });
  return parts.join("\n");
}

function formatTick(v: number): string {
  return Number(v.toPrecision(6)).toString();
}

export const svgParts = { open, yAxis, guides, legend, text, r, formatTick };
