/**
 * @module
 * The trajectory as blocks to read, from each event's kind alone (so a run of 10,000 events is grouped before
 * any of them is fetched): a model turn is a generation with the tool calls and results after it (up to the
 * last action or observation before the next generation, with what came between them: scoring, pauses,
 * bookkeeping); consecutive bookkeeping events (state, time, driver, Slurm) fold into one line; anything else
 * is an event of its own. Kinds the reader hid are left out. Pure: no DOM.
 */
import type { ItemKind } from "../api-types.js";

/** Kinds folded into one collapsed line: what the orchestrator records about the run, not what the agent did. */
export const BOOKKEEPING: ReadonlySet<ItemKind> = new Set<ItemKind>(["state", "time"]);

export type Block =
  /** `seqs[0]` is the generation (when shown); `turn` counts generations from 1. */
  { type: "turn"; turn: number; seqs: number[] } | { type: "fold"; seqs: number[] } | { type: "event"; seqs: [number] };

/** A block's members split into runs of bookkeeping (folded) and single events, in order. */
export type Segment = { type: "fold"; seqs: number[] } | { type: "event"; seq: number };

/** The blocks of `kinds` (index 0 is seq 1) without the `hidden` kinds. */
export function trajectoryBlocks(kinds: readonly ItemKind[], hidden: ReadonlySet<ItemKind> = new Set()): Block[] {
  const blocks: Block[] = [];
  const shown = (seq: number) => !hidden.has(kinds[seq - 1]!);
  /** Events outside a turn (or of a turn whose generation is hidden): bookkeeping runs fold, the rest stand alone. */
  const loose = (seqs: readonly number[]) => {
    for (const segment of segments(seqs, kinds)) blocks.push(segment.type === "fold" ? segment : { type: "event", seqs: [segment.seq] });
  };
  let turn = 0;
  let i = 0;
  while (i < kinds.length) {
    if (kinds[i] === "generation") {
      turn += 1;
      let end = i;
      let j = i + 1;
      for (; j < kinds.length && kinds[j] !== "generation"; j++) if (kinds[j] === "action" || kinds[j] === "observation") end = j;
      const members = range(i + 2, end + 1).filter(shown);
      if (shown(i + 1)) blocks.push({ type: "turn", turn, seqs: [i + 1, ...members] });
      else loose(members);
      i = end + 1;
      continue;
    }
    const start = i;
    while (i < kinds.length && kinds[i] !== "generation") i++;
    loose(range(start + 1, i).filter(shown));
  }
  return blocks;
}

/** `seqs` as runs of consecutive bookkeeping events (folds) and single events. */
export function segments(seqs: readonly number[], kinds: readonly ItemKind[]): Segment[] {
  const out: Segment[] = [];
  for (const seq of seqs) {
    const last = out.at(-1);
    if (!BOOKKEEPING.has(kinds[seq - 1]!)) out.push({ type: "event", seq });
    else if (last?.type === "fold") last.seqs.push(seq);
    else out.push({ type: "fold", seqs: [seq] });
  }
  return out;
}

/** Where each seq is: `blockOf[seq - 1]` is its block's index, -1 when hidden. */
export function blockIndex(blocks: readonly Block[], events: number): Int32Array {
  const of = new Int32Array(events).fill(-1);
  blocks.forEach((block, index) => {
    for (const seq of block.seqs) of[seq - 1] = index;
  });
  return of;
}

/** The first index at which two block lists differ (their common prefix's length). */
export function firstDifference(a: readonly Block[], b: readonly Block[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.type !== y.type || x.seqs.length !== y.seqs.length || x.seqs[0] !== y.seqs[0]) return i;
  }
  return n;
}

function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let n = from; n <= to; n++) out.push(n);
  return out;
}
