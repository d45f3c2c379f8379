/**
 * @module
 * The trajectory: every event of the run in one virtualized list, loaded a page at a time as it scrolls into
 * view. Long texts show a preview with their size and expand in place (the whole item is fetched then);
 * search finds events anywhere in the run and steps through them; a running run's new events arrive live and
 * the list follows the end while "follow" is on.
 */
import type { TrajectoryItem } from "../api-types.js";
import { h } from "./dom.js";
import { bytes, when } from "./format.js";
import { ITEMS_PAGE, type Source } from "./source.js";
import { VirtualList } from "./virtual-list.js";

export interface TrajectoryView {
  element: HTMLElement;
  /** Show event `seq` (1-based) and mark it. */
  reveal(seq: number): void;
  /** New events (live). */
  add(items: TrajectoryItem[], total: number): void;
  setFollowing(on: boolean): void;
  list: VirtualList;
}

export function trajectoryView(source: Source, runId: string, total: number): TrajectoryView {
  const items = new Map<number, TrajectoryItem>();
  const loading = new Set<number>();
  const expanded = new Set<number>();
  let marked = -1;
  let term = "";
  let following = false;

  const viewport = h("div", { class: "vlist", id: "trajectory", tabindex: 0 });
  const load = (page: number) => {
    if (loading.has(page)) return;
    loading.add(page);
    void source.items(runId, page).then(
      (got) => {
        for (const item of got) if (!items.has(item.seq) || !expanded.has(item.seq)) items.set(item.seq, item);
        list.redraw(page * ITEMS_PAGE, (page + 1) * ITEMS_PAGE - 1);
      },
      () => loading.delete(page),
    );
  };
  const list: VirtualList = new VirtualList(viewport, {
    count: total,
    estimate: 56,
    render: (index) => row(index + 1),
    onRange: (first, last) => {
      for (let page = Math.floor(first / ITEMS_PAGE); page <= Math.floor(last / ITEMS_PAGE); page++) load(page);
    },
    onScroll: () => {
      if (following && !list.atEnd()) setFollowing(false);
    },
  });

  function row(seq: number): HTMLElement {
    const item = items.get(seq);
    if (!item) return h("div", { class: "item loading" }, `#${seq} loading…`);
    const open = expanded.has(seq);
    const element = h(
      "article",
      { class: `item kind-${item.kind}${seq === marked ? " marked" : ""}`, "data-seq": seq },
      h(
        "header",
        {},
        h("span", { class: "seq" }, `#${seq}`),
        h("span", { class: "title" }, ...highlight(item.title)),
        ...item.badges.map((b) => h("span", { class: "badge" }, b)),
        h("time", {}, when(item.ts)),
      ),
    );
    for (const part of item.parts) {
      const cut = !part.complete;
      element.appendChild(
        h(
          "section",
          { class: `part${part.tone ? ` tone-${part.tone}` : ""}` },
          h("div", { class: "part-label" }, part.label, h("span", { class: "size" }, bytes(part.bytes))),
          h("pre", {}, ...highlight(part.text)),
          cut ? h("button", { class: "expand", onclick: () => expand(seq) }, `show all ${bytes(part.bytes)}`) : null,
        ),
      );
    }
    if (open) element.appendChild(h("button", { class: "collapse", onclick: () => collapse(seq) }, "show less"));
    return element;
  }

  function highlight(text: string): (string | HTMLElement)[] {
    if (term === "") return [text];
    const out: (string | HTMLElement)[] = [];
    const lower = text.toLowerCase();
    let at = 0;
    for (let hit = lower.indexOf(term); hit >= 0; hit = lower.indexOf(term, hit + term.length)) {
      out.push(text.slice(at, hit), h("mark", {}, text.slice(hit, hit + term.length)));
      at = hit + term.length;
    }
    out.push(text.slice(at));
    return out;
  }

  async function expand(seq: number): Promise<void> {
    const full = await source.item(runId, seq);
    items.set(seq, full);
    expanded.add(seq);
    list.redraw(seq - 1, seq - 1);
  }

  function collapse(seq: number): void {
    expanded.delete(seq);
    items.delete(seq);
    loading.delete(Math.floor((seq - 1) / ITEMS_PAGE));
    load(Math.floor((seq - 1) / ITEMS_PAGE));
  }

  function reveal(seq: number): void {
    const previous = marked;
    marked = seq;
    if (previous > 0) list.redraw(previous - 1, previous - 1);
    list.redraw(seq - 1, seq - 1);
    list.scrollToIndex(seq - 1);
  }

  // Search: the server finds the events; previous/next step through them.
  let hits: number[] = [];
  let at = -1;
  const status = h("span", { class: "search-status", id: "search-status" }, "");
  const input = h("input", { type: "search", placeholder: "search this run", id: "search", "aria-label": "search this run" });
  const step = (by: number) => {
    if (hits.length === 0) return;
    at = (at + by + hits.length) % hits.length;
    status.textContent = `${at + 1} of ${hits.length}`;
    reveal(hits[at]!);
  };
  const search = async () => {
    term = input.value.trim().toLowerCase();
    list.redraw();
    if (term === "") {
      hits = [];
      status.textContent = "";
      return;
    }
    status.textContent = "searching…";
    const found = await source.search(runId, input.value.trim(), list.count);
    hits = found.seqs;
    at = -1;
    status.textContent = hits.length === 0 ? "no match" : `${hits.length}${found.capped ? "+" : ""} events match`;
    step(1);
  };
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter")
      void (e.shiftKey ? Promise.resolve(step(-1)) : hits.length > 0 && term === input.value.trim().toLowerCase() ? Promise.resolve(step(1)) : search());
  });
  const followBox = h("input", { type: "checkbox", id: "follow", onchange: (e) => setFollowing((e.target as HTMLInputElement).checked) });
  function setFollowing(on: boolean): void {
    following = on;
    followBox.checked = on;
    if (on) list.scrollToEnd();
  }
  const toolbar = h(
    "div",
    { class: "toolbar" },
    input,
    h("button", { id: "search-go", onclick: () => void search() }, "search"),
    h("button", { onclick: () => step(-1), "aria-label": "previous match" }, "↑"),
    h("button", { onclick: () => step(1), "aria-label": "next match", id: "search-next" }, "↓"),
    status,
    source.mode === "live" ? h("label", { class: "follow" }, followBox, "follow new events") : null,
    h("span", { class: "count", id: "event-count" }, `${total} events`),
  );
  const element = h("div", { class: "trajectory" }, toolbar, viewport);

  return {
    element,
    list,
    reveal,
    setFollowing,
    add(newItems, count) {
      for (const item of newItems) items.set(item.seq, item);
      const before = list.count;
      list.setCount(Math.max(count, ...newItems.map((i) => i.seq)));
      list.redraw(Math.max(0, before - 1), list.count - 1);
      const counter = toolbar.querySelector("#event-count");
      if (counter) counter.textContent = `${list.count} events`;
      if (following) list.scrollToEnd();
    },
  };
}
