import { describe, expect, test } from "vitest";
import type { BarFigure, LineFigure } from "./figure.js";
import { figureSvg } from "./figure-svg.js";
import { niceTicks } from "./nice-ticks.js";
import { svgToPng } from "./svg-to-png.js";

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
    { name: "human", color: "#222222", points: [{ x: 8, y: 0.6, lo: 0.5, hi: 0.7 }, { x: 32, y: 0.9, lo: 0.8, hi: 1.1 }] },
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

const texts = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);

describe("figureSvg()", () => {
  test("a line chart carries its title, axis labels with units, tick labels, guide and legend, escaped", () => {
    const svg = figureSvg(line);
    const labels = texts(svg);
    for (const expected of ["Suite score vs total time budget", "total time budget (hours, log scale)", "mean normalized score", "2h", "8h", "32h", "reference solution", "human", "agent &lt;A&gt; &amp; co"]) {
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

  test("renders to a PNG of the requested width", async () => {
    const png = await svgToPng(figureSvg(bars), { width: 600 });
    expect(png.subarray(1, 4).toString()).toBe("PNG");
    expect(png.readUInt32BE(16)).toBe(600);
  });
});

describe("niceTicks()", () => {
  test("covers the range with round steps", () => {
    expect(niceTicks(0, 1.04)).toEqual([0, 0.25, 0.5, 0.75, 1, 1.25]);
    expect(niceTicks(0, 8)).toEqual([0, 2, 4, 6, 8]);
    expect(niceTicks(0, 0)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
  });
});
