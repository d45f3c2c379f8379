/**
 * @module
 * The viewer's pages in the browser: a router over the address's hash (`#/runs?…`, `#/run/ID`,
 * `#/compare?…`), so the same files work served live and as a static export, and the data source the page
 * was given (index.html's `rebench-mode`).
 */
import { comparePage } from "./compare-page.js";
import { clear, h } from "./dom.js";
import { runPage } from "./run-page.js";
import { runsPage } from "./runs-page.js";
import { LiveSource, type Source, StaticSource } from "./source.js";

const mode = document.querySelector('meta[name="rebench-mode"]')?.getAttribute("content");
const source: Source = mode === "static" ? new StaticSource() : new LiveSource();
const root = document.getElementById("app")!;
let leave: () => void = () => undefined;
let generation = 0;

function go(hash: string): void {
  if (location.hash === hash) void route();
  else location.hash = hash;
}

async function route(): Promise<void> {
  leave();
  leave = () => undefined;
  const mine = ++generation;
  const address = location.hash;
  // A page draws only while its route is the newest: a slow answer to an older address must not draw over
  // a newer page (a filter changed twice quickly lost the second change to the first's late redraw).
  const current = () => mine === generation;
  const hash = location.hash.replace(/^#\/?/, "");
  const [path = "", search = ""] = hash.split("?");
  const query = new URLSearchParams(search);
  for (const link of document.querySelectorAll("nav a"))
    link.classList.toggle("active", (link as HTMLAnchorElement).hash.slice(2).split("?")[0] === path.split("/")[0]);
  try {
    let stop: () => void;
    if (path.startsWith("run/")) stop = await runPage(root, source, decodeURIComponent(path.slice(4)), current);
    else if (path === "compare") stop = await comparePage(root, source, query, go, current);
    else stop = await runsPage(root, source, query, go, current);
    document.title = `${root.querySelector("h1")?.textContent ?? "runs"} · rebench`;
    if (current()) {
      leave = stop;
      // Which address the page shows (tests wait for it: a new hash leaves the old page up until the new one draws).
      root.dataset.shown = address;
    } else stop();
  } catch (error) {
    if (!current()) return;
    clear(root);
    root.appendChild(
      h(
        "div",
        { class: "error", role: "alert" },
        h("h1", {}, "Cannot show this page"),
        h("p", {}, error instanceof Error ? error.message : String(error)),
        h("p", {}, h("a", { href: "#/runs" }, "back to the runs")),
      ),
    );
    root.dataset.shown = address;
  }
}

async function start(): Promise<void> {
  const meta = await source.meta().catch(() => undefined);
  const info = document.getElementById("store");
  if (info && meta) info.textContent = meta.mode === "static" ? `published copy of ${meta.store}, ${meta.exportedAt ?? ""}` : meta.store;
  const notes = document.getElementById("notes");
  if (notes && meta) for (const note of meta.notes) notes.appendChild(h("p", { class: "note" }, note));
  window.addEventListener("hashchange", () => void route());
  await route();
}

void start();
