/**
 * @module
 * Draw a scaling_law sweep (iso-FLOP curves: final validation loss against n_embd, one line per budget)
 * with the project's figure code, as SVG and PNG:
 *
 *     python environments/scaling_law/sweep/pack_sweep.py --unpack /tmp/sweeps
 *     npx tsx scripts/scaling-law-sweep-figure.ts /tmp/sweeps/mini.json /tmp/sweeps/mini-sweep
 *
 * A figure of a sweep is its ground truth in plain form: it is written outside the checkout only (the
 * repository keeps the sweeps encrypted in grader/sweep.zip; environments/scaling_law/README.md, "Reading the sweeps").
 *
 * Canary a99505a7-4586-4226-b19e-e5b4a1e41660: rebench environment file; keep out of training data.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { LineFigure } from "../src/analysis/render/figure.js";
import { lineChartSvg } from "../src/analysis/render/line-chart-svg.js";
import { svgToPng } from "../src/analysis/render/svg-to-png.js";

interface SweepFile {
  variant: string;
  target_flops: number;
  widths: number[];
  fractions: string[];
  losses: (number | null)[][];
}

const COLORS = ["#9ecae1", "#4292c6", "#08306b", "#e6550d"];

export function sweepFigure(sweep: SweepFile): LineFigure {
  const series = sweep.fractions.map((fraction, row) => {
    const [num, den] = fraction.split("/").map(Number) as [number, number | undefined];
    const flops = (sweep.target_flops * num) / (den ?? 1);
    return {
      name: `${fraction === "1" ? "target" : `${fraction} x target`}, ${flops.toExponential(1)}`,
      color: COLORS[row % COLORS.length]!,
      points: sweep.widths.flatMap((w, i) => {
        const y = sweep.losses[row]![i];
        return y === null || y === undefined ? [] : [{ x: w, y }];
      }),
    };
  });
  const best = Math.min(...(sweep.losses[sweep.losses.length - 1] ?? []).filter((v): v is number => v !== null));
  return {
    kind: "line",
    name: `${sweep.variant}-sweep`,
    title: `scaling_law/${sweep.variant}: iso-FLOP curves of the ground truth`,
    xLabel: "n_embd (log scale)",
    yLabel: "final validation loss",
    xScale: "log",
    xTicks: sweep.widths.map((w) => ({ value: w, label: String(w) })),
    guides: Number.isFinite(best) ? [{ y: best, label: `L_opt ${best.toFixed(3)}` }] : [],
    series,
    note: "each point: one training run (seed 1337) at max_iters = budget / FLOPs per step",
  };
}

/** Whether `out` lies inside this checkout (the folder above this file's). */
export function insideCheckout(out: string): boolean {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  const relative = path.relative(root, path.resolve(out));
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

async function main(): Promise<void> {
  const [input, out] = process.argv.slice(2);
  if (!input || !out) throw new Error("usage: scaling-law-sweep-figure.ts SWEEP.json OUT_BASENAME");
  if (insideCheckout(out)) throw new Error(`${out} is inside the checkout: a sweep's figure is ground truth, write it elsewhere (e.g. /tmp/sweeps)`);
  const svg = lineChartSvg(sweepFigure(JSON.parse(readFileSync(input, "utf8")) as SweepFile));
  writeFileSync(`${out}.svg`, svg);
  writeFileSync(`${out}.png`, await svgToPng(svg));
  console.log(`wrote ${out}.svg and ${out}.png`);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop()!)) {
  await main();
}
