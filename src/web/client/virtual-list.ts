/**
 * @module
 * A scrolling list that keeps only what is on screen (plus a margin) in the DOM, so a run of 10,000 events
 * scrolls as lightly as one of ten. Rows may differ in height: each starts at an estimate, is measured once
 * drawn, and rows above the viewport that change height move the scroll position by as much, so what is on
 * screen stays put (at the end of the list, the end stays in view).
 */

export interface VirtualListOptions {
  count: number;
  /** Estimated row height in pixels before a row is measured (of row `index`, when a function). */
  estimate: number | ((index: number) => number);
  /** Draw row `index` (0-based). */
  render(index: number): HTMLElement;
  /** Called with the rows about to be drawn, so the caller can load their data. */
  onRange?(first: number, last: number): void;
  /** Called after the user scrolls (not after programmatic scrolls). */
  onScroll?(): void;
}

const OVERSCAN_PX = 600;

export class VirtualList {
  readonly viewport: HTMLElement;
  readonly #inner: HTMLElement;
  readonly #options: VirtualListOptions;
  #heights: number[] = [];
  #offsets: number[] = [0];
  #dirty = true;
  #drawn = new Map<number, HTMLElement>();
  #frame = 0;
  #programmatic = false;

  constructor(viewport: HTMLElement, options: VirtualListOptions) {
    this.viewport = viewport;
    this.#options = options;
    this.#inner = document.createElement("div");
    this.#inner.className = "vlist-inner";
    viewport.appendChild(this.#inner);
    this.#heights = Array.from({ length: options.count }, (_, i) => this.#estimate(i));
    viewport.addEventListener("scroll", () => {
      if (!this.#programmatic) options.onScroll?.();
      this.#programmatic = false;
      this.#schedule();
    });
    new ResizeObserver(() => this.#schedule()).observe(viewport);
    this.#draw();
  }

  get count(): number {
    return this.#heights.length;
  }

  /** Grow (or shrink) the list; new rows start at the estimate. */
  setCount(count: number): void {
    this.reset(count, this.#heights.length);
  }

  /** The rows from `from` on are new (the list was regrouped or filtered): drop their heights and draw them again. */
  reset(count: number, from = 0): void {
    const keep = Math.min(from, count, this.#heights.length);
    this.#heights.length = keep;
    for (let i = keep; i < count; i++) this.#heights.push(this.#estimate(i));
    for (const index of [...this.#drawn.keys()]) if (index >= keep) this.#remove(index);
    this.#dirty = true;
    this.#draw();
  }

  /** Draw rows again (their data arrived, or one was expanded). */
  redraw(first = 0, last = this.count - 1): void {
    for (const index of [...this.#drawn.keys()]) if (index >= first && index <= last) this.#remove(index);
    this.#draw();
  }

  /** Scroll so that row `index` (or the point `within` its element, when given) is near the top. */
  scrollToIndex(index: number, within?: (row: HTMLElement) => number): void {
    this.#layout();
    this.#programmatic = true;
    this.viewport.scrollTop = Math.max(0, (this.#offsets[index] ?? 0) - 40);
    this.#draw();
    // Rows drawn there may have other heights than estimated: settle once more.
    const row = this.#drawn.get(index);
    this.#programmatic = true;
    this.viewport.scrollTop = Math.max(0, (this.#offsets[index] ?? 0) + (row && within ? within(row) : 0) - 40);
    this.#draw();
  }

  scrollToEnd(): void {
    this.#layout();
    this.#programmatic = true;
    this.viewport.scrollTop = this.viewport.scrollHeight;
    this.#draw();
  }

  atEnd(): boolean {
    return this.viewport.scrollTop + this.viewport.clientHeight >= this.viewport.scrollHeight - 30;
  }

  /** The rows now in the DOM (first, last), for tests and for the caller's loading. */
  drawnRange(): [number, number] {
    const keys = [...this.#drawn.keys()];
    return keys.length === 0 ? [0, -1] : [Math.min(...keys), Math.max(...keys)];
  }

  #estimate(index: number): number {
    const { estimate } = this.#options;
    return typeof estimate === "number" ? estimate : estimate(index);
  }

  #schedule(): void {
    if (this.#frame) return;
    this.#frame = requestAnimationFrame(() => {
      this.#frame = 0;
      this.#draw();
    });
  }

  #remove(index: number): void {
    this.#drawn.get(index)?.remove();
    this.#drawn.delete(index);
  }

  #layout(): void {
    if (!this.#dirty) return;
    const offsets = new Array<number>(this.#heights.length + 1);
    offsets[0] = 0;
    for (let i = 0; i < this.#heights.length; i++) offsets[i + 1] = offsets[i]! + this.#heights[i]!;
    this.#offsets = offsets;
    this.#inner.style.height = `${offsets[this.#heights.length]}px`;
    this.#dirty = false;
  }

  /** The first row whose bottom is below `y`. */
  #rowAt(y: number): number {
    let lo = 0;
    let hi = this.#heights.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.#offsets[mid + 1]! <= y) lo = mid + 1;
      else hi = mid;
    }
    return Math.max(0, lo);
  }

  #draw(): void {
    for (let pass = 0; pass < 4; pass++) {
      this.#layout();
      if (this.count === 0) return;
      const top = this.viewport.scrollTop;
      // Scrolled to the end (not merely short): rows measured taller must not push the end out of the view.
      const pinned = top > 0 && this.atEnd();
      const first = this.#rowAt(Math.max(0, top - OVERSCAN_PX));
      let last = first;
      const bottom = top + this.viewport.clientHeight + OVERSCAN_PX;
      while (last < this.count - 1 && this.#offsets[last + 1]! < bottom) last++;
      this.#options.onRange?.(first, last);
      for (const index of [...this.#drawn.keys()]) if (index < first || index > last) this.#remove(index);
      for (let i = first; i <= last; i++) {
        let row = this.#drawn.get(i);
        if (!row) {
          row = this.#options.render(i);
          row.classList.add("vlist-row");
          row.dataset.index = String(i);
          this.#drawn.set(i, row);
          this.#inner.appendChild(row);
        }
        row.style.transform = `translateY(${this.#offsets[i]}px)`;
      }
      // Measure: rows above the first visible one that changed height shift the view by as much.
      const anchor = this.#rowAt(top);
      let shift = 0;
      let changed = false;
      for (let i = first; i <= last; i++) {
        const height = this.#drawn.get(i)!.offsetHeight;
        if (height > 0 && Math.abs(height - this.#heights[i]!) > 0.5) {
          if (i < anchor) shift += height - this.#heights[i]!;
          this.#heights[i] = height;
          changed = true;
        }
      }
      if (!changed) return;
      this.#dirty = true;
      if (pinned) {
        this.#layout();
        this.#programmatic = true;
        this.viewport.scrollTop = this.viewport.scrollHeight;
      } else if (shift !== 0) {
        this.#layout();
        this.#programmatic = true;
        this.viewport.scrollTop = top + shift;
      }
    }
  }
}
