/**
 * @module
 * The run page: what the run is and how it stands (state, scores, provenance), usage against every budget,
 * the score log as a chart and a table, pauses with their reasons, AIDE's tree of solutions, a human run's
 * terminal recording, and the trajectory (grouped by model turn, bookkeeping folded, filtered by kind). A failed
 * run says so at the top, with its error. A run in progress updates in place as its events arrive.
 */
import type { AideNodeView, ReviewView, RunDetail, RunRow } from "../api-types.js";
import { clear, h } from "./dom.js";
import { amount, duration, ended, score, when } from "./format.js";
import { scoreChart, scoreTable } from "./score-chart.js";
import type { Source } from "./source.js";
import { trajectoryView } from "./trajectory-view.js";

export async function runPage(root: HTMLElement, source: Source, id: string, current: () => boolean): Promise<() => void> {
  // The outline (each event's kind) groups the trajectory before any event is fetched.
  const [first, outline] = await Promise.all([source.run(id), source.outline(id)]);
  let detail = first;
  if (!current()) return () => undefined;
  clear(root);
  const head = h("div", { class: "run-head" });
  const overview = h("section", { class: "overview" });
  const charts = h("section", { class: "scores" });
  const drawTop = () => {
    clear(head);
    clear(overview);
    clear(charts);
    head.appendChild(header(detail.row));
    if (detail.row.state === "failed") head.appendChild(failure(detail));
    if (detail.review) head.appendChild(review(detail.review, (seq) => trajectory.reveal(seq)));
    overview.appendChild(summary(detail));
    overview.appendChild(budgets(detail));
    overview.appendChild(pauses(detail));
    charts.appendChild(h("h2", {}, "Score log"));
    charts.appendChild(scoreChart(detail, (seq) => trajectory.reveal(seq)));
    if (detail.scoreLog.length > 0)
      charts.appendChild(
        h(
          "div",
          { class: "score-table" },
          scoreTable(detail, (seq) => trajectory.reveal(seq)),
        ),
      );
  };
  const trajectory = trajectoryView(source, detail.row.runId, outline);
  drawTop();
  root.append(head, ...detail.withheld.map((w) => h("p", { class: "note" }, w)), overview, charts);
  if (detail.aide) root.appendChild(aide(detail.aide, (seq) => trajectory.reveal(seq)));
  if (detail.recording) {
    const holder = h("section", { class: "recording" }, h("h2", {}, "Terminal recording"));
    root.appendChild(holder);
    const [{ playback }, recording] = await Promise.all([import("./playback.js"), source.recording(detail.row.runId)]);
    holder.appendChild(playback(recording));
    if (!current()) return () => undefined;
  }
  root.appendChild(h("h2", {}, "Trajectory"));
  root.appendChild(trajectory.element);
  const running = () => !ended(detail.row.state);
  if (source.mode !== "live" || !running()) return () => undefined;
  let refreshing = false;
  const stop = source.follow(
    detail.row.runId,
    // Events appended between the two answers come again, from the older of them.
    Math.min(detail.row.events, trajectory.events()),
    (update) => {
      trajectory.add(update.items);
      // The header, score log and budgets come from the detail: fetch it again when the run moved.
      if (!refreshing && (update.items.length > 0 || update.row.state !== detail.row.state)) {
        refreshing = true;
        void source.run(id).then((again) => {
          detail = again;
          refreshing = false;
          drawTop();
        });
      }
    },
    () => undefined,
  );
  trajectory.setFollowing(true);
  return stop;
}

function header(row: RunRow): HTMLElement {
  return h(
    "div",
    {},
    h("p", { class: "crumbs" }, h("a", { href: "#/runs" }, "runs"), ` / ${row.runId}`),
    h("h1", {}, `${row.environment}/${row.variant}`, h("span", { class: "task" }, ` (${row.task})`), " by ", row.participant),
    h(
      "p",
      { class: "state-line" },
      h("span", { class: `state state-${row.state}`, id: "run-state" }, row.state),
      row.stopReason ? ` (${row.stopReason})` : "",
      row.scaffold ? ` · scaffold ${row.scaffold}` : "",
      ` · ${row.events} events`,
    ),
  );
}

/** The latest review: its verdict, who reviewed, and each finding with links to the events it names. */
function review(view: ReviewView, reveal: (seq: number) => void): HTMLElement {
  const link = (seq: number) => h("button", { class: "event-link", "data-seq": String(seq), onclick: () => reveal(seq) }, `#${seq}`);
  return h(
    "section",
    { class: `review review-${view.verdict}`, id: "run-review" },
    h(
      "p",
      {},
      h("strong", {}, "Review: "),
      h("span", { class: `verdict verdict-${view.verdict}`, id: "review-verdict" }, view.verdict),
      ` · ${view.rules}${view.monitor ? ` · monitor ${view.monitor}` : ""} · event `,
      link(view.seq),
    ),
    view.findings.length === 0
      ? h("p", { class: "note" }, "No signal fired.")
      : h(
          "ul",
          { class: "findings" },
          ...view.findings.map((f) =>
            h(
              "li",
              { class: `finding finding-${f.severity}` },
              h("span", { class: `verdict verdict-${f.severity}` }, f.severity),
              " ",
              h("code", {}, f.signal),
              `: ${f.summary}`,
              f.seqs.length > 0
                ? h(
                    "span",
                    { class: "finding-events" },
                    f.seqs.length === 1 ? " · event " : " · events ",
                    ...f.seqs.flatMap((seq, i) => (i === 0 ? [link(seq)] : [" ", link(seq)])),
                  )
                : "",
              f.excerpt ? h("pre", { class: "excerpt" }, f.excerpt) : "",
            ),
          ),
        ),
  );
}

/** A failed run says so at the top, with the error the store recorded. */
function failure(detail: RunDetail): HTMLElement {
  return h(
    "p",
    { class: "failure", id: "run-failure", role: "alert" },
    h("strong", {}, "This run failed"),
    `: ${detail.error ?? "the store records no reason"}`,
  );
}

function dl(pairs: [string, string][]): HTMLElement {
  const list = h("dl");
  for (const [k, v] of pairs) list.append(h("dt", {}, k), h("dd", {}, v));
  return list;
}

/** "the calibration of AMD EPYC, 2 cores, 2026-11-29, N=5", "paper constants", ... */
function normalizedBy(norm: NonNullable<RunDetail["normalization"]>): string {
  const by = norm.by ?? norm.source ?? "?";
  return norm.source === "calibration" && by !== "calibration" ? `the calibration of ${by}` : `${by} constants`;
}

function summary(detail: RunDetail): HTMLElement {
  const { row } = detail;
  const withheld = row.scoresWithheld ? "hidden" : undefined;
  const norm = detail.normalization;
  return h(
    "div",
    { class: "card" },
    h("h2", {}, "Run"),
    dl([
      [
        "raw score",
        withheld ??
          `${score(row.rawScore ?? row.rawScoreSoFar, 4)}${row.state === "finished" ? "" : " (so far)"} · ${detail.aggregation} of the log, ${detail.direction === "min" ? "lower" : "higher"} is better`,
      ],
      ["normalized", withheld ?? (norm ? score(row.normalizedScore) : `none: ${detail.normalizationMissing ?? "no normalization constants"}`)],
      ["normalized by", norm ? `${normalizedBy(norm)}: start ${score(norm.start, 4)} → reference ${score(norm.reference, 4)}` : "none"],
      ["machine class", detail.machineClass ?? "not recorded"],
      ["created", when(row.createdAt)],
      ["started", when(detail.startedAt)],
      ["finished", when(detail.finishedAt)],
      ["time limit", duration(detail.timeLimitSeconds)],
      [
        "provenance",
        detail.provenance ? `rebench ${String(detail.provenance.rebenchVersion)} (${String(detail.provenance.rebenchCommit ?? "no commit")})` : "not recorded",
      ],
      ...(detail.error ? ([["error", detail.error]] as [string, string][]) : []),
    ]),
  );
}

function budgets(detail: RunDetail): HTMLElement {
  const table = h(
    "table",
    { class: "budgets", id: "budgets" },
    h("thead", {}, h("tr", {}, h("th", {}, "budget"), h("th", { class: "n" }, "used"), h("th", { class: "n" }, "limit"), h("th", {}, ""))),
  );
  const body = h("tbody");
  for (const b of detail.budgets) {
    const fraction = b.limit ? Math.min(1, b.used / b.limit) : 0;
    const bar = h("div", { class: "bar" }, h("div", { class: `fill${fraction >= 1 ? " full" : ""}`, style: `width:${(fraction * 100).toFixed(1)}%` }));
    body.appendChild(
      h(
        "tr",
        {},
        h("td", {}, b.name),
        h("td", { class: "n" }, amount(b.used, b.unit)),
        h("td", { class: "n" }, b.limit === null ? "none" : amount(b.limit, b.unit)),
        h("td", {}, b.limit === null ? "" : bar),
      ),
    );
  }
  table.appendChild(body);
  return h(
    "div",
    { class: "card" },
    h("h2", {}, "Usage and budgets"),
    table,
    h(
      "p",
      { class: "note" },
      `paused ${duration(detail.usage.pausedSeconds)} (not working time); ${detail.usage.inputTokens} input + ${detail.usage.outputTokens} output tokens`,
    ),
  );
}

function pauses(detail: RunDetail): HTMLElement {
  const card = h("div", { class: "card" }, h("h2", {}, "Pauses"));
  if (detail.pauses.length === 0) {
    card.appendChild(h("p", { class: "empty" }, "none"));
    return card;
  }
  const byReason = new Map<string, { n: number; seconds: number }>();
  for (const p of detail.pauses) {
    const r = byReason.get(p.reason) ?? { n: 0, seconds: 0 };
    r.n += 1;
    r.seconds += p.seconds ?? 0;
    byReason.set(p.reason, r);
  }
  card.appendChild(h("p", {}, [...byReason].map(([reason, r]) => `${reason}: ${r.n} (${duration(r.seconds)})`).join(" · ")));
  const list = h("table", { class: "pauses" }, h("thead", {}, h("tr", {}, h("th", {}, "reason"), h("th", {}, "from"), h("th", { class: "n" }, "length"))));
  const body = h("tbody");
  for (const p of detail.pauses.slice(0, 200))
    body.appendChild(
      h("tr", {}, h("td", {}, p.reason), h("td", {}, when(p.startedAt)), h("td", { class: "n" }, p.seconds === null ? "ongoing" : duration(p.seconds))),
    );
  list.appendChild(body);
  card.appendChild(h("details", {}, h("summary", {}, `${detail.pauses.length} pause${detail.pauses.length === 1 ? "" : "s"}`), list));
  return card;
}

function aide(tree: NonNullable<RunDetail["aide"]>, onPick: (seq: number) => void): HTMLElement {
  const children = new Map<number | null, AideNodeView[]>();
  for (const node of tree.nodes) children.set(node.parentId, [...(children.get(node.parentId) ?? []), node]);
  const branch = (parent: number | null): HTMLElement | null => {
    const nodes = children.get(parent);
    if (!nodes) return null;
    return h(
      "ul",
      {},
      ...nodes.map((node) =>
        h(
          "li",
          { class: `aide-node${node.buggy ? " buggy" : ""}${node.id === tree.best ? " best" : ""}` },
          h("button", { class: "link", onclick: () => onPick(node.seq) }, `node ${node.id}`),
          ` ${node.stage} · ${node.buggy ? "buggy" : `metric ${score(node.metric, 4)}`}${node.id === tree.best ? " · best" : ""}`,
          h("div", { class: "plan" }, node.plan.length > 300 ? `${node.plan.slice(0, 300)}…` : node.plan),
          branch(node.id),
        ),
      ),
    );
  };
  return h("section", { class: "aide", id: "aide-tree" }, h("h2", {}, `AIDE tree (${tree.nodes.length} nodes)`), branch(null));
}
