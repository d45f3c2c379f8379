/**
 * @module
 * The trajectory: the run's events grouped as a reader takes them (turns.ts: each model turn with its tool
 * calls and their results under it, bookkeeping folded into one line that opens on a click, the rest one by
 * one), filtered by kind, in one virtualized list whose rows are those blocks. The grouping needs only each
 * event's kind (the outline), so the events themselves are loaded a page at a time as their blocks scroll
 * into view. Long texts show a preview with their size and expand in place (the whole item is fetched then);
 * search finds events anywhere in the run and steps through them (opening their fold, showing their kind);
 * a running run's new events arrive live and the list follows the end while "follow" is on.
 */
import type { ItemKind, TrajectoryItem, TrajectoryOutline } from "../api-types.js";
import { clear, h } from "./dom.js";
import { bytes, when } from "./format.js";
import { ITEMS_PAGE, type Source } from "./source.js";
import { type Block, BOOKKEEPING, blockIndex, firstDifference, segments, trajectoryBlocks } from "./turns.js";
import { VirtualList } from "./virtual-list.js";

export interface TrajectoryView {
  element: HTMLElement;
  /** Show event `seq` (1-based) and mark it. */
  reveal(seq: number): void;
  /** New events (live). */
  add(items: TrajectoryItem[]): void;
  /** Events known so far (the outline's, then the live ones). */
  events(): number;
  setFollowing(on: boolean): void;
  list: VirtualList;
}

/** The filter's kinds, in the order a reader meets them. */
const KIND_ORDER: readonly ItemKind[] = ["generation", "action", "observation", "score", "pause", "note", "state", "time", "start", "end", "review", "other"];
/** Usual heights of drawn items, in pixels (a generation with its message and call, an output's preview). */
const HEIGHTS: Partial<Record<ItemKind, number>> = { generation: 120, action: 70, observation: 150, score: 110 };
const KIND_HINTS: Partial<Record<ItemKind, string>> = {
  state: "state changes, the driver attaching, Slurm jobs (folded)",
  time: "working, paused and wall time reported (folded)",
};

export function trajectoryView(source: Source, runId: string, outline: TrajectoryOutline): TrajectoryView {
  const kinds: ItemKind[] = [...outline.kinds];
  const items = new Map<number, TrajectoryItem>();
  const loading = new Set<number>();
  const expanded = new Set<number>();
  const hidden = new Set<ItemKind>();
  /** Folds opened by the reader, by their first seq. */
  const unfolded = new Set<number>();
  let blocks: Block[] = trajectoryBlocks(kinds, hidden);
  let blockOf = blockIndex(blocks, kinds.length);
  let marked = -1;
  let term = "";
  let following = false;

  const viewport = h("div", { class: "vlist", id: "trajectory", tabindex: 0 });
  /** Draw the blocks holding any of the seqs `first` to `last` again. */
  const redrawSeqs = (first: number, last: number) => {
    let lo = Number.POSITIVE_INFINITY;
    let hi = -1;
    for (let seq = first; seq <= Math.min(last, kinds.length); seq++) {
      const index = blockOf[seq - 1] ?? -1;
      if (index < 0) continue;
      lo = Math.min(lo, index);
      hi = Math.max(hi, index);
    }
    if (hi >= 0) list.redraw(lo, hi);
  };
  const load = (page: number) => {
    if (loading.has(page)) return;
    loading.add(page);
    void source.items(runId, page).then(
      (got) => {
        for (const item of got) if (!items.has(item.seq) || !expanded.has(item.seq)) items.set(item.seq, item);
        redrawSeqs(page * ITEMS_PAGE + 1, (page + 1) * ITEMS_PAGE);
      },
      () => loading.delete(page),
    );
  };
  // Heights before a block is drawn, near what its events usually take: the scroll bar is only as true as these.
  const estimate = (index: number) => {
    const block = blocks[index];
    if (!block || block.type === "fold") return 30;
    if (block.type === "event") return HEIGHTS[kinds[block.seqs[0] - 1]!] ?? 56;
    return 24 + segments(block.seqs, kinds).reduce((sum, s) => sum + (s.type === "fold" ? 30 : (HEIGHTS[kinds[s.seq - 1]!] ?? 56)), 0);
  };
  const list: VirtualList = new VirtualList(viewport, {
    count: blocks.length,
    estimate,
    render: (index) => renderBlock(blocks[index]!),
    onRange: (first, last) => {
      const from = blocks[first]?.seqs[0];
      const to = blocks[last]?.seqs.at(-1);
      if (from === undefined || to === undefined) return;
      for (let page = Math.floor((from - 1) / ITEMS_PAGE); page <= Math.floor((to - 1) / ITEMS_PAGE); page++) load(page);
    },
    onScroll: () => {
      if (following && !list.atEnd()) setFollowing(false);
    },
  });

  /** Group again (a filter changed, events arrived): rows before the first changed block keep their place. */
  function regroup(): void {
    const old = blocks;
    blocks = trajectoryBlocks(kinds, hidden);
    blockOf = blockIndex(blocks, kinds.length);
    list.reset(blocks.length, firstDifference(old, blocks));
  }

  function renderBlock(block: Block): HTMLElement {
    if (block.type === "event") return itemElement(block.seqs[0]);
    const element = block.type === "fold" ? foldElement(block.seqs) : turnElement(block);
    if (element.querySelector(".item.loading")) element.classList.add("loading");
    return element;
  }

  /** A model turn: its generation (message, reasoning, tool calls) with the calls' actions and results under it. */
  function turnElement(block: Extract<Block, { type: "turn" }>): HTMLElement {
    const [generation, ...rest] = block.seqs;
    const calls = rest.filter((seq) => kinds[seq - 1] === "action").length;
    const tools = h("div", { class: "turn-tools" });
    for (const segment of segments(rest, kinds)) tools.appendChild(segment.type === "fold" ? foldElement(segment.seqs) : itemElement(segment.seq));
    return h(
      "section",
      { class: "turn", "data-turn": block.turn },
      h("div", { class: "turn-head" }, `turn ${block.turn}`, h("span", { class: "count" }, ` · ${calls} tool call${calls === 1 ? "" : "s"}`)),
      itemElement(generation!),
      rest.length > 0 ? tools : null,
    );
  }

  /** Bookkeeping events as one line ("3 bookkeeping events: state ×2, time"); a click shows them. */
  function foldElement(seqs: readonly number[]): HTMLElement {
    const first = seqs[0]!;
    const open = unfolded.has(first);
    const counts = new Map<ItemKind, number>();
    for (const seq of seqs) counts.set(kinds[seq - 1]!, (counts.get(kinds[seq - 1]!) ?? 0) + 1);
    const what = [...counts].map(([kind, n]) => (n > 1 ? `${kind} ×${n}` : kind)).join(", ");
    const titles = seqs.map((seq) => items.get(seq)?.title).filter((t): t is string => t !== undefined);
    const summary = titles.length > 0 && !open ? `: ${titles.join(" · ")}` : "";
    const fold = h(
      "div",
      { class: `fold${open ? " open" : ""}`, "data-first": first },
      h(
        "button",
        { class: "fold-toggle", "aria-expanded": open ? "true" : "false", onclick: () => toggleFold(first) },
        `${open ? "▾" : "▸"} ${seqs.length} bookkeeping event${seqs.length === 1 ? "" : "s"} (${what})`,
        h("span", { class: "fold-summary" }, summary),
      ),
    );
    if (open) for (const seq of seqs) fold.appendChild(itemElement(seq));
    return fold;
  }

  function toggleFold(first: number): void {
    if (unfolded.has(first)) unfolded.delete(first);
    else unfolded.add(first);
    const index = blockOf[first - 1] ?? -1;
    if (index >= 0) list.redraw(index, index);
  }

  function itemElement(seq: number): HTMLElement {
    const item = items.get(seq);
    if (!item) return h("div", { class: "item loading", "data-seq": seq }, `#${seq} loading…`);
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
    redrawSeqs(seq, seq);
  }

  function collapse(seq: number): void {
    expanded.delete(seq);
    items.delete(seq);
    loading.delete(Math.floor((seq - 1) / ITEMS_PAGE));
    load(Math.floor((seq - 1) / ITEMS_PAGE));
  }

  function reveal(seq: number): void {
    const kind = kinds[seq - 1];
    if (kind === undefined) return;
    if (hidden.has(kind)) {
      hidden.delete(kind);
      drawFilter();
      regroup();
    }
    const index = blockOf[seq - 1] ?? -1;
    if (index < 0) return;
    if (BOOKKEEPING.has(kind)) {
      const block = blocks[index]!;
      const members = block.type === "turn" ? block.seqs.slice(1) : block.seqs;
      for (const segment of segments(members, kinds)) if (segment.type === "fold" && segment.seqs.includes(seq)) unfolded.add(segment.seqs[0]!);
    }
    const previous = marked;
    marked = seq;
    if (previous > 0) redrawSeqs(previous, previous);
    list.redraw(index, index);
    list.scrollToIndex(index, (row) => {
      const element = row.querySelector(`[data-seq="${seq}"]`);
      return element ? element.getBoundingClientRect().top - row.getBoundingClientRect().top : 0;
    });
  }

  // The filter: a box per kind the run has, with its count; unchecking one leaves those events out.
  const filterBar = h("div", { class: "kind-filter", id: "kind-filter" });
  function drawFilter(): void {
    clear(filterBar);
    const counts = new Map<ItemKind, number>();
    for (const kind of kinds) counts.set(kind, (counts.get(kind) ?? 0) + 1);
    filterBar.appendChild(h("span", { class: "label" }, "show"));
    for (const kind of KIND_ORDER) {
      const n = counts.get(kind);
      if (n === undefined) continue;
      const box = h("input", {
        type: "checkbox",
        name: "kind",
        value: kind,
        checked: !hidden.has(kind),
        onchange: (e) => {
          if ((e.target as HTMLInputElement).checked) hidden.delete(kind);
          else hidden.add(kind);
          regroup();
        },
      });
      filterBar.appendChild(h("label", { class: `kind kind-${kind}`, title: KIND_HINTS[kind] }, box, ` ${kind} `, h("span", { class: "count" }, String(n))));
    }
  }
  drawFilter();

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
    const found = await source.search(runId, input.value.trim(), kinds.length);
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
  const counter = h("span", { class: "count", id: "event-count" }, `${kinds.length} events`);
  const toolbar = h(
    "div",
    { class: "toolbar" },
    input,
    h("button", { id: "search-go", onclick: () => void search() }, "search"),
    h("button", { onclick: () => step(-1), "aria-label": "previous match" }, "↑"),
    h("button", { onclick: () => step(1), "aria-label": "next match", id: "search-next" }, "↓"),
    status,
    source.mode === "live" ? h("label", { class: "follow" }, followBox, "follow new events") : null,
    counter,
  );
  const element = h("div", { class: "trajectory" }, toolbar, filterBar, viewport);

  return {
    element,
    list,
    reveal,
    setFollowing,
    events: () => kinds.length,
    add(newItems) {
      for (const item of newItems) {
        items.set(item.seq, item);
        kinds[item.seq - 1] = item.kind;
      }
      // Events the update skipped (it sends at most a few pages) are "other" until a page brings them.
      for (let i = 0; i < kinds.length; i++) kinds[i] ??= "other";
      regroup();
      counter.textContent = `${kinds.length} events`;
      if (newItems.length > 0) drawFilter();
      if (following) list.scrollToEnd();
    },
  };
}
