/**
 * @module
 * The comparison page: `rebench report`'s tables and figures, computed by the server from the store as it is
 * now, for the runs the filters keep and the budgets given. The figures are the report's own SVG (its
 * renderer escapes every label); everything else is built as text.
 */
import type { ComparisonView, RunFacetsView } from "../api-types.js";
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
  for (const table of view.tables) {
    const cls = (i: number) => (table.numeric[i] ? "n" : "");
    root.appendChild(h("h2", {}, table.title));
    root.appendChild(
      h(
        "table",
        { class: "report" },
        h("thead", {}, h("tr", {}, ...table.headers.map((c, i) => h("th", { class: cls(i) }, c)))),
        h("tbody", {}, ...table.rows.map((row) => h("tr", {}, ...row.map((c, i) => h("td", { class: cls(i) }, c))))),
      ),
    );
    root.appendChild(h("p", { class: "note" }, table.note));
  }
  if (view.figures.length > 0) root.appendChild(h("h2", {}, "Figures"));
  for (const figure of view.figures) {
    const holder = h("figure", { class: "report-figure", "data-name": figure.name });
    // The report's SVG renderer escapes all text it draws; parse it as SVG (never as HTML).
    const doc = new DOMParser().parseFromString(figure.svg, "image/svg+xml");
    const element = doc.documentElement;
    if (element.nodeName === "svg") holder.appendChild(document.importNode(element, true));
    root.appendChild(holder);
  }
  return () => undefined;
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
