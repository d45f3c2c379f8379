/**
 * @module
 * The runs list: filters (environment, variant, participant, state, normalized score range), a sort on any
 * column, pages from the server, a link per run. The query lives in the address (`#/runs?…`), so a list can
 * be shared or reloaded; running runs refresh every few seconds.
 */
import type { RunRow, RunsPage } from "../api-types.js";
import { clear, h, keepTyping } from "./dom.js";
import { duration, ended, score, when } from "./format.js";
import type { Source } from "./source.js";

const COLUMNS: { key: string; header: string; value: (r: RunRow) => string; numeric?: boolean; unsorted?: boolean }[] = [
  { key: "created", header: "created", value: (r) => when(r.createdAt) },
  { key: "environment", header: "environment", value: (r) => r.environment },
  { key: "variant", header: "variant", value: (r) => (r.task === "main" ? r.variant : `${r.variant} · ${r.task}`) },
  { key: "participant", header: "participant", value: (r) => r.participant },
  { key: "state", header: "state", value: (r) => (r.stopReason ? `${r.state} (${r.stopReason})` : r.state) },
  { key: "working", header: "working", value: (r) => duration(r.workingSeconds), numeric: true },
  { key: "scores", header: "scores", value: (r) => `${r.validScores}/${r.scoreCalls}`, numeric: true },
  { key: "raw", header: "raw", value: (r) => (r.scoresWithheld ? "hidden" : score(r.rawScore ?? r.rawScoreSoFar, 4)), numeric: true },
  { key: "normalized", header: "normalized", value: (r) => (r.scoresWithheld ? "hidden" : score(r.normalizedScore)), numeric: true },
  { key: "review", header: "review", value: (r) => r.review?.verdict ?? "-", unsorted: true },
];

const STATES = ["queued", "starting", "running", "paused", "scoring", "finished", "failed", "moved"];

export async function runsPage(
  root: HTMLElement,
  source: Source,
  query: URLSearchParams,
  go: (hash: string) => void,
  current: () => boolean,
): Promise<() => void> {
  const page = await source.runs(query);
  if (!current()) return () => undefined;
  const set = (changes: Record<string, string | undefined>, keepOffset = false) => {
    // A form of an older address acts no more: Chrome fires the change of a field with unapplied text as the
    // next drawing removes it, which navigated from the old address (and its filters) over the new one.
    if (!current()) return;
    const next = new URLSearchParams(query);
    for (const [k, v] of Object.entries(changes)) {
      if (v === undefined || v === "") next.delete(k);
      else next.set(k, v);
    }
    if (!keepOffset) next.delete("offset");
    if (location.hash === `#/runs?${next}`) return; // already there (Enter, then the field's change as it goes)
    go(`#/runs?${next}`);
  };
  const typing = keepTyping(root);
  clear(root);
  root.appendChild(h("h1", {}, "Runs"));
  root.appendChild(filters(page, query, set));
  typing();
  const table = h("table", { class: "runs", id: "runs-table" });
  const header = h("tr");
  const sort = query.get("sort") ?? "created";
  const desc = query.get("desc") === "1";
  for (const column of COLUMNS) {
    const arrow = column.key === sort ? (desc ? " ▼" : " ▲") : "";
    header.appendChild(
      h(
        "th",
        { class: column.numeric ? "n" : "" },
        column.unsorted
          ? column.header
          : h(
              "button",
              { class: "sort", "data-sort": column.key, onclick: () => set({ sort: column.key, desc: column.key === sort && !desc ? "1" : undefined }) },
              column.header + arrow,
            ),
      ),
    );
  }
  header.appendChild(h("th", {}, "run"));
  table.appendChild(h("thead", {}, header));
  const body = h("tbody");
  const fill = (rows: RunRow[]) => {
    clear(body);
    for (const run of rows) {
      const tr = h("tr", { class: `row-${run.state}` });
      for (const column of COLUMNS) {
        const text = column.value(run);
        const kind = column.key === "review" && run.review ? ` verdict verdict-${run.review.verdict}` : "";
        tr.appendChild(h("td", { class: `${column.numeric ? "n" : ""}${kind}`.trim() }, text));
      }
      tr.appendChild(h("td", {}, h("a", { href: `#/run/${encodeURIComponent(run.runId)}`, class: "run-link" }, run.runId)));
      body.appendChild(tr);
    }
  };
  fill(page.runs);
  table.appendChild(body);
  root.appendChild(page.total === 0 ? h("p", { class: "empty" }, "No runs match these filters.") : table);
  root.appendChild(pager(page, set));
  // Runs in progress change: look again every few seconds while any is on the page.
  let timer: number | undefined;
  if (source.mode === "live" && page.runs.some((r) => !ended(r.state))) {
    timer = window.setInterval(() => {
      if (document.visibilityState === "visible") void source.runs(query).then((again) => fill(again.runs));
    }, 3000);
  }
  return () => window.clearInterval(timer);
}

function filters(page: RunsPage, query: URLSearchParams, set: (changes: Record<string, string | undefined>) => void): HTMLElement {
  const select = (name: string, label: string, values: string[]) => {
    const current = query.get(name) ?? "";
    const element = h("select", { name, onchange: (e) => set({ [name]: (e.target as HTMLSelectElement).value }) }, h("option", { value: "" }, `all`));
    for (const value of values) element.appendChild(h("option", { value, selected: value === current }, value));
    return h("label", {}, `${label} `, element);
  };
  const states = h("fieldset", { class: "states" }, h("legend", {}, "state"));
  const chosen = new Set((query.get("state") ?? "").split(",").filter(Boolean));
  for (const state of STATES) {
    const box = h("input", {
      type: "checkbox",
      name: "state",
      value: state,
      checked: chosen.has(state),
      onchange: (e) => {
        const on = (e.target as HTMLInputElement).checked;
        if (on) chosen.add(state);
        else chosen.delete(state);
        set({ state: [...chosen].join(",") || undefined });
      },
    });
    states.appendChild(h("label", {}, box, state));
  }
  const range = (name: string, label: string) =>
    h(
      "label",
      {},
      `${label} `,
      h("input", {
        type: "number",
        step: "0.05",
        name,
        value: query.get(name) ?? "",
        class: "score-input",
        onchange: (e) => set({ [name]: (e.target as HTMLInputElement).value }),
        // Enter applies the field even where no change event follows (text put back after a redraw: keepTyping).
        onkeydown: (e) => {
          if ((e as KeyboardEvent).key === "Enter") set({ [name]: (e.target as HTMLInputElement).value });
        },
      }),
    );
  return h(
    "form",
    { class: "filters", onsubmit: (e) => e.preventDefault() },
    select("environment", "environment", page.facets.environments),
    select("variant", "variant", page.facets.variants),
    select("participant", "participant", page.facets.participants),
    states,
    h("span", { class: "range" }, "normalized score ", range("min", "from"), range("max", "to")),
  );
}

function pager(page: RunsPage, set: (changes: Record<string, string | undefined>, keepOffset?: boolean) => void): HTMLElement {
  const last = Math.min(page.offset + page.runs.length, page.total);
  return h(
    "div",
    { class: "pager" },
    h(
      "button",
      { disabled: page.offset === 0, id: "prev-page", onclick: () => set({ offset: String(Math.max(0, page.offset - page.limit)) }, true) },
      "← previous",
    ),
    h("span", { id: "page-status" }, page.total === 0 ? "no runs" : `runs ${page.offset + 1}–${last} of ${page.total}`),
    h("button", { disabled: last >= page.total, id: "next-page", onclick: () => set({ offset: String(page.offset + page.limit) }, true) }, "next →"),
  );
}
