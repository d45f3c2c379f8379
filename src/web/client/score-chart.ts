/**
 * @module
 * A run's score log as a chart over working time: each scored entry a dot (its value), every other outcome a
 * red mark on the axis, and the run's aggregate so far (min, max or last valid) as a step line, with the
 * start and reference as guides (at the edge, marked, when off the chart's range). Hovering a mark shows its
 * outcome and message (as text, not JSON); clicking it scrolls the trajectory to the entry.
 */
import type { RunDetail, ScoreLogRow } from "../api-types.js";
import { scoreMessageText } from "../score-message-text.js";
import { h, svg } from "./dom.js";
import { duration, score } from "./format.js";

const W = 760;
const H = 260;
const BOX = { left: 64, right: W - 36, top: 16, bottom: H - 40 };

export function scoreChart(detail: RunDetail, onPick: (seq: number) => void): HTMLElement {
  const log = detail.scoreLog;
  if (log.length === 0) return h("p", { class: "empty", id: "score-empty" }, noScores(detail));
  const values = log.flatMap((e) => (e.value === null ? [] : [e.value]));
  const end = Math.max(1, ...log.map((e) => e.elapsedSeconds), detail.usage.workingSeconds);
  const x = (s: number) => BOX.left + (s / end) * (BOX.right - BOX.left);
  let low = values.length > 0 ? Math.min(...values) : 0;
  let high = values.length > 0 ? Math.max(...values) : 1;
  if (high - low < 1e-9) {
    low -= 0.5;
    high += 0.5;
  }
  const pad = (high - low) * 0.08;
  low -= pad;
  high += pad;
  const y = (v: number) => BOX.bottom - ((v - low) / (high - low)) * (BOX.bottom - BOX.top);
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "score-chart", role: "img", "aria-label": "score log over working time" });
  root.appendChild(svg("rect", { x: 0, y: 0, width: W, height: H, fill: "#fff" }));
  const step = niceStep((high - low) / 4);
  for (let v = Math.ceil(low / step) * step; v <= high; v += step) {
    root.appendChild(svg("line", { x1: BOX.left, x2: BOX.right, y1: y(v), y2: y(v), stroke: "#e5e5e5" }));
    root.appendChild(svg("text", { x: BOX.left - 6, y: y(v) + 4, "text-anchor": "end", class: "tick" }, score(v, 4)));
  }
  for (let i = 0; i <= 4; i++) {
    const s = (end * i) / 4;
    root.appendChild(svg("text", { x: x(s), y: BOX.bottom + 16, "text-anchor": "middle", class: "tick" }, duration(s)));
  }
  root.appendChild(svg("text", { x: (BOX.left + BOX.right) / 2, y: H - 6, "text-anchor": "middle", class: "axis" }, "working time"));
  root.appendChild(
    svg(
      "text",
      { x: 14, y: (BOX.top + BOX.bottom) / 2, "text-anchor": "middle", class: "axis", transform: `rotate(-90 14 ${(BOX.top + BOX.bottom) / 2})` },
      "raw score",
    ),
  );
  root.appendChild(svg("line", { x1: BOX.left, x2: BOX.right, y1: BOX.bottom, y2: BOX.bottom, stroke: "#444" }));
  root.appendChild(svg("line", { x1: BOX.left, x2: BOX.left, y1: BOX.top, y2: BOX.bottom, stroke: "#444" }));
  if (detail.normalization) {
    for (const [v, label] of [
      [detail.normalization.start, "start"],
      [detail.normalization.reference, "reference"],
    ] as const) {
      // A guide off the chart's range stays in sight: drawn at the edge it lies beyond, with an arrow and its value.
      const off = v > high ? "above" : v < low ? "below" : undefined;
      const at = off === "above" ? BOX.top : off === "below" ? BOX.bottom : y(v);
      const text = off ? `${label} ${score(v, 4)} ${off === "above" ? "↑" : "↓"} (off the chart)` : label;
      const guide = svg("g", { class: `guide guide-${label}${off ? ` off-chart off-${off}` : ""}` });
      guide.appendChild(svg("line", { x1: BOX.left, x2: BOX.right, y1: at, y2: at, stroke: "#999", "stroke-dasharray": off ? "1 5" : "4 4" }));
      if (off) {
        const tip = off === "above" ? -1 : 1;
        guide.appendChild(svg("path", { d: `M${BOX.right - 8},${at}l8,0l-4,${tip * 7}z`, fill: "#999", class: "guide-marker" }));
      }
      guide.appendChild(
        svg("text", { x: BOX.right - 12, y: off === "below" ? at - 6 : off === "above" ? at + 12 : at - 4, "text-anchor": "end", class: "guide" }, text),
      );
      root.appendChild(guide);
    }
  }
  const steps = aggregateSteps(log, detail.aggregation);
  if (steps.length > 0) {
    let d = `M${x(steps[0]![0])},${y(steps[0]![1])}`;
    for (let i = 1; i < steps.length; i++) d += `H${x(steps[i]![0])}V${y(steps[i]![1])}`;
    d += `H${x(end)}`;
    root.appendChild(svg("path", { d, fill: "none", stroke: "#1f77b4", "stroke-width": 2, class: "aggregate" }));
  }
  for (const entry of log) {
    const label = `${duration(entry.elapsedSeconds)} (${entry.trigger}): ${entry.value !== null ? score(entry.value, 4) : entry.outcome === "scored" ? "scored (value hidden)" : `${entry.outcome}: ${entry.why ?? ""}`}\n${scoreMessageText(entry.message, "\n")}`;
    const mark =
      entry.value !== null
        ? svg("circle", { cx: x(entry.elapsedSeconds), cy: y(entry.value), r: 5, class: "point scored" })
        : svg("path", { d: `M${x(entry.elapsedSeconds) - 5},${BOX.bottom - 5}l10,10m0,-10l-10,10`, class: "point failed" });
    mark.appendChild(svg("title", {}, label));
    mark.addEventListener("click", () => onPick(entry.seq));
    root.appendChild(mark);
  }
  return h("div", { class: "chart" }, root as unknown as HTMLElement);
}

/** What the score log says when it is empty: a failed run says it failed, and why. */
function noScores(detail: RunDetail): string {
  const { state } = detail.row;
  if (state === "failed") return `No scoring calls: the run failed before any. ${detail.error ?? "The store records no reason."}`;
  if (state === "finished") return "No scoring calls: the run ended without any.";
  return "No scoring calls yet.";
}

/** 1, 2 or 5 times a power of ten, near `raw`. */
function niceStep(raw: number): number {
  const power = 10 ** Math.floor(Math.log10(raw));
  const f = raw / power;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * power;
}

/** The aggregate after each valid entry: [seconds, value] where it changes. */
function aggregateSteps(log: readonly ScoreLogRow[], aggregation: string): [number, number][] {
  const steps: [number, number][] = [];
  let current: number | undefined;
  for (const entry of log) {
    if (entry.value === null) continue;
    const better = current === undefined || aggregation === "last" || (aggregation === "min" ? entry.value < current : entry.value > current);
    if (!better) continue;
    current = entry.value;
    steps.push([entry.elapsedSeconds, current]);
  }
  return steps;
}

export function scoreTable(detail: RunDetail, onPick: (seq: number) => void): HTMLElement {
  const table = h(
    "table",
    { class: "score-log" },
    h("thead", {}, h("tr", {}, h("th", {}, "working"), h("th", {}, "trigger"), h("th", {}, "outcome"), h("th", { class: "n" }, "raw"), h("th", {}, "message"))),
  );
  const body = h("tbody");
  for (const entry of detail.scoreLog) {
    body.appendChild(
      h(
        "tr",
        { class: `outcome-${entry.outcome}` },
        h("td", {}, h("button", { class: "link", onclick: () => onPick(entry.seq) }, duration(entry.elapsedSeconds))),
        h("td", {}, entry.trigger),
        h("td", {}, entry.why ? `${entry.outcome}: ${entry.why}` : entry.outcome),
        h("td", { class: "n" }, entry.value === null ? (entry.outcome === "scored" ? "hidden" : "-") : score(entry.value, 4)),
        h("td", { class: "message" }, scoreMessageText(entry.message) || "-"),
      ),
    );
  }
  table.appendChild(body);
  return table;
}
