/**
 * @module
 * A figure as data: what the SVG/PNG renderers draw and what `figures/NAME.json` holds, so any plot can
 * be checked or redrawn from its numbers.
 */

export interface LinePoint {
  x: number;
  y: number;
  /** Interval around y (drawn as a band), when known. */
  lo?: number;
  hi?: number;
}

export interface LineSeries {
  name: string;
  color: string;
  /** Draw as a step function (each value holds until the next point). */
  step?: boolean;
  /** SVG dash pattern, e.g. "6 4"; solid when absent. */
  dash?: string;
  points: LinePoint[];
}

export interface LineFigure {
  kind: "line";
  /** File name without extension. */
  name: string;
  title: string;
  xLabel: string;
  yLabel: string;
  xScale: "linear" | "log";
  /** Tick positions and labels on the x axis; chosen automatically when absent. */
  xTicks?: { value: number; label: string }[];
  /** Horizontal guides, e.g. y = 1 for the reference solution. */
  guides?: { y: number; label: string }[];
  series: LineSeries[];
  note?: string;
}

export interface BarFigure {
  kind: "bar";
  name: string;
  title: string;
  yLabel: string;
  categories: string[];
  /** One bar per category per series; null where the value is missing (drawn as "n/a"). */
  series: { name: string; color: string; values: (number | null)[] }[];
  guides?: { y: number; label: string }[];
  note?: string;
}

export type Figure = LineFigure | BarFigure;
