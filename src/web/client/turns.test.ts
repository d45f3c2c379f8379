import { expect, test } from "vitest";
import type { ItemKind } from "../api-types.js";
import { blockIndex, firstDifference, segments, trajectoryBlocks } from "./turns.js";

// A modular agent's run as the orchestrator writes it: created, state, two turns (the second scores: its
// pause and score come between the action and its result), time after each result, then the end.
const RUN: ItemKind[] = [
  "start", // 1
  "state", // 2
  "state", // 3
  "generation", // 4
  "action", // 5
  "observation", // 6
  "time", // 7
  "generation", // 8
  "action", // 9
  "pause", // 10
  "score", // 11
  "pause", // 12
  "observation", // 13
  "time", // 14
  "end", // 15
];

test("trajectoryBlocks() groups each generation with its tool calls and results, and folds bookkeeping", () => {
  expect(trajectoryBlocks(RUN)).toEqual([
    { type: "event", seqs: [1] },
    { type: "fold", seqs: [2, 3] },
    { type: "turn", turn: 1, seqs: [4, 5, 6] },
    { type: "fold", seqs: [7] },
    { type: "turn", turn: 2, seqs: [8, 9, 10, 11, 12, 13] },
    { type: "fold", seqs: [14] },
    { type: "event", seqs: [15] },
  ]);
});

test("trajectoryBlocks() leaves hidden kinds out; a turn whose generation is hidden falls apart into events", () => {
  expect(trajectoryBlocks(RUN, new Set<ItemKind>(["state", "time", "pause", "observation"]))).toEqual([
    { type: "event", seqs: [1] },
    { type: "turn", turn: 1, seqs: [4, 5] },
    { type: "turn", turn: 2, seqs: [8, 9, 11] },
    { type: "event", seqs: [15] },
  ]);
  expect(trajectoryBlocks(RUN, new Set<ItemKind>(["generation", "pause"]))).toEqual([
    { type: "event", seqs: [1] },
    { type: "fold", seqs: [2, 3] },
    { type: "event", seqs: [5] },
    { type: "event", seqs: [6] },
    { type: "fold", seqs: [7] },
    { type: "event", seqs: [9] },
    { type: "event", seqs: [11] },
    { type: "event", seqs: [13] },
    { type: "fold", seqs: [14] },
    { type: "event", seqs: [15] },
  ]);
});

test("a turn's bookkeeping between its tool calls folds inside it; a run without generations has no turns", () => {
  const kinds: ItemKind[] = ["generation", "action", "observation", "time", "action", "observation", "time"];
  expect(trajectoryBlocks(kinds)).toEqual([
    { type: "turn", turn: 1, seqs: [1, 2, 3, 4, 5, 6] },
    { type: "fold", seqs: [7] },
  ]);
  expect(segments([2, 3, 4, 5, 6], kinds)).toEqual([
    { type: "event", seq: 2 },
    { type: "event", seq: 3 },
    { type: "fold", seqs: [4] },
    { type: "event", seq: 5 },
    { type: "event", seq: 6 },
  ]);
  expect(trajectoryBlocks(["start", "action", "observation", "time"]).map((b) => b.type)).toEqual(["event", "event", "event", "fold"]);
});

test("blockIndex() finds each seq's block; firstDifference() where a live run's blocks changed", () => {
  const blocks = trajectoryBlocks(RUN, new Set<ItemKind>(["time"]));
  const of = blockIndex(blocks, RUN.length);
  expect([...of]).toEqual([0, 1, 1, 2, 2, 2, -1, 3, 3, 3, 3, 3, 3, -1, 4]);
  // A result arriving after the time report pulls the report into the turn: only the last blocks change.
  const before = trajectoryBlocks(RUN.slice(0, 7));
  const after = trajectoryBlocks([...RUN.slice(0, 7), "observation"]);
  expect(firstDifference(before, after)).toBe(2);
  expect(firstDifference(before, before)).toBe(before.length);
});
