/**
 * @module
 * The pieces every chart shares: the canvas and title, a y axis with grid lines and units, horizontal
 * guides, and the legend. Sizes are in SVG pixels; text uses DejaVu Sans (installed with
 * fonts-dejavu-core), which the PNG renderer loads explicitly.
 */
import { niceTicks } from "./nice-ticks.js";
import { textWidth } from "./text-width.js";

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

const LEGEND_FONT = 13;
/** Between the first lines of two entries. */
const LEGEND_ENTRY = 21;
/** Between the lines of one entry's label. */
const LEGEND_LINE = 15;
/** Lines a label may take before the rest is cut with an ellipsis. */
const LEGEND_MAX_LINES = 3;

export interface LegendEntry {
  name: string;
  color: string;
  dash?: string;
  marker?: boolean;
}

/**
 * Legend entries stacked to the right of the plot, each label wrapped to `width` pixels (measured in
 * DejaVu Sans) so that it stays on the canvas. Returns the drawing and the lowest baseline it uses.
 */
function legend(x: number, top: number, width: number, entries: readonly LegendEntry[]): { svg: string; bottom: number } {
  const parts = [text(x, top, "Legend", 'font-weight="bold" fill="#111"')];
  let y = top + 22;
  let bottom = top;
  for (const e of entries) {
    const dash = e.dash ? ` stroke-dasharray="${e.dash}"` : "";
    parts.push(`<line x1="${x}" x2="${x + 26}" y1="${y - 4}" y2="${y - 4}" stroke="${e.color}" stroke-width="3"${dash}/>`);
    if (e.marker) parts.push(`<circle cx="${x + 13}" cy="${y - 4}" r="4" fill="${e.color}"/>`);
    const lines = wrapLabel(e.name, width - 34, LEGEND_FONT);
    lines.forEach((line, i) => {
      parts.push(text(x + 34, y + i * LEGEND_LINE, line, 'fill="#111"'));
    });
    bottom = y + (lines.length - 1) * LEGEND_LINE;
    y = bottom + LEGEND_ENTRY;
  }
  return { svg: parts.join("\n"), bottom };
}

/**
 * `label` as lines no wider than `width` pixels at `fontSize`. A label that does not fit on one line starts
 * a new line after each comma (the report's labels are "participant, limit runs (n)"), and breaks at spaces
 * within those parts; a word wider than a line is broken inside, and past `maxLines` lines the last one is
 * cut with an ellipsis.
 */
export function wrapLabel(label: string, width: number, fontSize: number, maxLines = LEGEND_MAX_LINES): string[] {
  const fits = (line: string) => textWidth(line.trimEnd(), fontSize) <= width;
  const lines = fits(label) ? [label] : label.split(/(?<=, )/).flatMap((part) => wrapWords(part, fits));
  if (lines.length <= maxLines) return lines;
  let last = lines[maxLines - 1]!;
  while (last !== "" && !fits(`${last}…`)) last = [...last].slice(0, -1).join("");
  return [...lines.slice(0, maxLines - 1), `${last.trimEnd()}…`];
}

/** Greedy line breaking at spaces; a word that fits no line is broken between characters. */
function wrapWords(text: string, fits: (line: string) => boolean): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/(?<= )/)) {
    if (fits(line + word)) {
      line += word;
      continue;
    }
    if (line !== "") lines.push(line.trimEnd());
    line = "";
    for (const char of word) {
      if (line !== "" && !fits(line + char)) {
        lines.push(line);
        line = "";
      }
      line += char;
    }
  }
  return [...lines, line.trimEnd()];
}

function formatTick(v: number): string {
  return Number(v.toPrecision(6)).toString();
}

export const svgParts = { open, yAxis, guides, legend, text, r, formatTick };
