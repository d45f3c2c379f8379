/**
 * @module
 * The comparison page: `rebench report`'s tables and figures, computed by the server from the store as it is
 * now, for the runs the filters keep and the budgets given, one section per task (runs of different tasks are
 * never pooled). The figures are the report's own SVG (its renderer escapes every label); everything else is
 * built as text.
 */
import type { ComparisonSection, ComparisonView, RunFacetsView } from "../api-types.js";
import { clear, h, keepTyping } from "./dom.js";
import type { Source } from "./source.js";

export async function comparePage(
  root: HTMLElement,
  source: Source,
  query: URLSearchParams,
  go: (hash: string) => void,
  current: () => boolean,
): Promise<() => void> {
  const [view, facets] = await Promise.all([source.compare(query), source.runs(new URLSearchParams({ limit: "1" })).then((p) => p.facets)]);
  if (!current()) return () => undefined;
  const typing = keepTyping(root);
  clear(root);
  root.appendChild(h("h1", {}, "Comparison: agents and humans"));
  root.appendChild(
    source.mode === "live"
      ? filters(view, facets, query, go)
      : h("p", { class: "note" }, `All runs of this copy, budgets ${view.filters.budgets} (filters need the live viewer).`),
  );
  typing();
  root.appendChild(h("p", { class: "note", id: "compare-source" }, `${view.runs} comparable runs from ${view.source}.`));
  for (const note of view.notes) root.appendChild(h("p", { class: "note" }, note));
  for (const section of view.sections) root.appendChild(taskSection(section, view.sections.length > 1));
  return () => undefined;
}

/** One task's report: its runs are compared among themselves only (a hidden-score run never pools with a main one). */
function taskSection(section: ComparisonSection, several: boolean): HTMLElement {
  const element = h(
    "section",
    { class: "compare-task", "data-task": section.task },
    h("h2", { class: "task-title" }, `Task ${section.task}`, h("span", { class: "count" }, ` · ${section.runs} runs`)),
  );
  if (several) element.appendChild(h("p", { class: "note" }, `Only the ${section.task} runs: each task is compared on its own.`));
  for (const note of section.notes) element.appendChild(h("p", { class: "note" }, note));
  for (const table of section.tables) {
    const cls = (i: number) => (table.numeric[i] ? "n" : "");
    element.appendChild(h("h3", {}, table.title));
    element.appendChild(
      h(
        "table",
        { class: "report" },
        h("thead", {}, h("tr", {}, ...table.headers.map((c, i) => h("th", { class: cls(i) }, c)))),
        h("tbody", {}, ...table.rows.map((row) => h("tr", {}, ...row.map((c, i) => h("td", { class: cls(i) }, c))))),
      ),
    );
    element.appendChild(h("p", { class: "note" }, table.note));
  }
  if (section.figures.length > 0) element.appendChild(h("h3", {}, "Figures"));
  for (const figure of section.figures) {
    const holder = h("figure", { class: "report-figure", "data-name": figure.name });
    // The report's SVG renderer escapes all text it draws; parse it as SVG (never as HTML).
    const doc = new DOMParser().parseFromString(figure.svg, "image/svg+xml");
    const svgRoot = doc.documentElement;
    if (svgRoot.nodeName === "svg") holder.appendChild(document.importNode(svgRoot, true));
    element.appendChild(holder);
  }
  return element;
}

function filters(view: ComparisonView, facets: RunFacetsView, query: URLSearchParams, go: (hash: string) => void): HTMLElement {
  const form = h("form", { class: "filters", id: "compare-filters" });
  const select = (name: string, values: string[]) => {
    const element = h("select", { name }, h("option", { value: "" }, "all"));
    for (const v of values) element.appendChild(h("option", { value: v, selected: v === (query.get(name) ?? "") }, v));
    return h("label", {}, `${name} `, element);
  };
  form.append(
    select("environment", facets.environments),
    select("variant", facets.variants),
    select("participant", facets.participants),
    select("task", view.tasks),
    h("label", {}, "budgets ", h("input", { name: "budgets", value: view.filters.budgets, size: 14 })),
    h("button", { type: "submit" }, "compare"),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const next = new URLSearchParams();
    for (const [k, v] of new FormData(form)) if (typeof v === "string" && v !== "") next.set(k, v);
    go(`#/compare?${next}`);
  });
  return form;
}
