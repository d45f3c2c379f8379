import { describe, expect, test } from "vitest";
import type { BarFigure, LineFigure } from "./figure.js";
import { figureSvg } from "./figure-svg.js";
import { niceTicks } from "./nice-ticks.js";
import { wrapLabel } from "./svg-parts.js";
import { drawnBox, svgToPng } from "./svg-to-png.js";
import { textWidth } from "./text-width.js";

const line: LineFigure = {
  kind: "line",
  name: "suite",
  title: "Suite score vs total time budget",
  xLabel: "total time budget (hours, log scale)",
  yLabel: "mean normalized score",
  xScale: "log",
  xTicks: [
    { value: 2, label: "2h" },
    { value: 8, label: "8h" },
    { value: 32, label: "32h" },
  ],
  guides: [{ y: 1, label: "reference solution" }],
  series: [
    {
      name: "human",
      color: "#222222",
      points: [
        { x: 8, y: 0.6, lo: 0.5, hi: 0.7 },
        { x: 32, y: 0.9, lo: 0.8, hi: 1.1 },
      ],
    },
    { name: "agent <A> & co", color: "#1f77b4", points: [{ x: 2, y: 0.3 }] },
  ],
};

const bars: BarFigure = {
  kind: "bar",
  name: "envs",
  title: "Score by environment",
  yLabel: "normalized score",
  categories: ["optimize_llm_foundry", "scaling_law"],
  series: [{ name: "human", color: "#222222", values: [0.4, null] }],
};

/** Legend labels as long as the report's (participant, per-run limit, n), one with no space to break at. */
const LONG_NAMES = [
  "start (replay), 30m runs (n=1)",
  "Claude 3.5 Sonnet (New) (modular), 30m runs (n=12)",
  "o1-preview (AIDE), 2h runs (n=8)",
  "exploit:reference-solution-with-a-very-long-file-name.json, 8h runs (n=3)",
  ...Array.from({ length: 16 }, (_, i) => `model-${i} (modular), 8h runs (n=${i + 1})`),
];

const longLegendLine: LineFigure = {
  ...line,
  xScale: "linear",
  xTicks: undefined,
  series: LONG_NAMES.map((name, i) => ({
    name,
    color: "#1f77b4",
    step: true,
    points: [
      { x: 0, y: 0 },
      { x: 0.5, y: 0.1 * i },
    ],
  })),
  note: "Best valid score so far (last valid for Scaling Law), normalized, averaged over runs; 0 before a run's first valid score.",
};

const longLegendBars: BarFigure = { ...bars, series: LONG_NAMES.map((name) => ({ name, color: "#222222", values: [0.4, 0.5] })) };

/** The canvas size an SVG declares. */
const canvas = (svg: string) => {
  const [, width, height] = /<svg[^>]* width="(\d+)" height="(\d+)"/.exec(svg)!;
  return { width: Number(width), height: Number(height) };
};

const texts = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);

describe("figureSvg()", () => {
  test("a line chart carries its title, axis labels with units, tick labels, guide and legend, escaped", () => {
    const svg = figureSvg(line);
    const labels = texts(svg);
    for (const expected of [
      "Suite score vs total time budget",
      "total time budget (hours, log scale)",
      "mean normalized score",
      "2h",
      "8h",
      "32h",
      "reference solution",
      "human",
      "agent &lt;A&gt; &amp; co",
    ]) {
      expect(labels).toContain(expected);
    }
    expect(svg).toMatch(/<polygon points="[^"]+" fill="#222222" fill-opacity/); // the CI band
    expect(svg).not.toMatch(/NaN|undefined|Infinity/);
  });

  test("the log axis spaces budgets that are 4× apart equally", () => {
    const svg = figureSvg(line);
    const x = (label: string) => Number(new RegExp(`<text x="([\\d.]+)"[^>]*>${label}</text>`).exec(svg)![1]);
    expect(x("8h") - x("2h")).toBeCloseTo(x("32h") - x("8h"), 0);
  });

  test("a bar chart wraps long category names and marks missing values n/a", () => {
    const labels = texts(figureSvg(bars));
    expect(labels).toEqual(expect.arrayContaining(["optimize_", "llm_foundry", "scaling_law", "n/a", "normalized score"]));
  });

  test("long legend labels are wrapped onto the canvas, the canvas growing to hold every entry", async () => {
    for (const figure of [longLegendLine, longLegendBars]) {
      const svg = figureSvg(figure);
      const { width, height } = canvas(svg);
      // Everything but the white background, laid out by the PNG renderer in DejaVu Sans.
      const drawn = (await drawnBox(svg.replace(/<rect width="\d+" height="\d+" fill="#ffffff"\/>/, "")))!;
      expect(drawn.left, figure.kind).toBeGreaterThanOrEqual(0);
      expect(drawn.top, figure.kind).toBeGreaterThanOrEqual(0);
      expect(drawn.right, figure.kind).toBeLessThanOrEqual(width);
      expect(drawn.bottom, figure.kind).toBeLessThanOrEqual(height);
      // No label lost: every word of every name is drawn (wrapped, none cut).
      const drawnText = texts(svg).join(" ");
      for (const name of LONG_NAMES) for (const word of name.split(" ").filter((w) => w.length < 12)) expect(drawnText).toContain(word);
    }
    expect(canvas(figureSvg(longLegendLine)).height).toBeGreaterThan(520);
    expect(canvas(figureSvg(line)).height).toBe(520);
  });

  test("renders to a PNG of the requested width", async () => {
    const png = await svgToPng(figureSvg(bars), { width: 600 });
    expect(png.subarray(1, 4).toString()).toBe("PNG");
    expect(png.readUInt32BE(16)).toBe(600);
  });
});

describe("wrapLabel()", () => {
  test("breaks after commas, then at spaces, keeps every line within the width and cuts past the last line with an ellipsis", () => {
    expect(wrapLabel("start (replay), 30m runs (n=1)", 150, 13)).toEqual(["start (replay),", "30m runs (n=1)"]);
    expect(wrapLabel("Claude 3.5 Sonnet (New) (modular), 30m runs (n=12)", 150, 13)).toEqual(["Claude 3.5 Sonnet", "(New) (modular),", "30m runs (n=12)"]);
    expect(wrapLabel("human, 8h runs (n=4)", 150, 13)).toEqual(["human, 8h runs (n=4)"]);
    const long = wrapLabel("a".repeat(200), 100, 13);
    expect(long).toHaveLength(3);
    expect(long[2]!.endsWith("…")).toBe(true);
    for (const l of long) expect(textWidth(l, 13)).toBeLessThanOrEqual(100);
  });
});

describe("textWidth()", () => {
  test("agrees with the PNG renderer's layout of DejaVu Sans within 3%", async () => {
    for (const label of LONG_NAMES.slice(0, 4)) {
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" font-family="DejaVu Sans" font-size="13"><text x="0" y="10">${label}</text></svg>`;
      const box = (await drawnBox(svg))!;
      // The advance widths include the side bearings that the drawn box leaves out: a little wider, never narrower.
      const ratio = textWidth(label, 13) / (box.right - box.left);
      expect(ratio, label).toBeGreaterThanOrEqual(1);
      expect(ratio, label).toBeLessThan(1.03);
    }
  });
});

describe("niceTicks()", () => {
  test("covers the range with round steps", () => {
    expect(niceTicks(0, 1.04)).toEqual([0, 0.25, 0.5, 0.75, 1, 1.25]);
    expect(niceTicks(0, 8)).toEqual([0, 2, 4, 6, 8]);
    expect(niceTicks(0, 0)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
  });
});
