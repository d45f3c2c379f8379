import { describe, expect, test } from "vitest";
import { type AideNode, Journal } from "./journal.js";

const node = (over: Partial<AideNode>): Omit<AideNode, "id"> => ({
  parentId: null,
  stage: "draft",
  plan: "p",
  files: {},
  command: undefined,
  execution: undefined,
  score: undefined,
  metric: null,
  buggy: false,
  bug: undefined,
  debugDepth: 0,
  ...over,
});
const policy = { numDrafts: 2, debugProb: 0.5, maxDebugDepth: 2 };

describe("Journal", () => {
  test("drafts until numDrafts drafts exist, whatever the random draw", () => {
    const j = new Journal("min");
    expect(j.nextStep(policy, () => 0)).toEqual({ stage: "draft" });
    j.add(node({ buggy: true }));
    expect(j.nextStep(policy, () => 0)).toEqual({ stage: "draft" });
  });

  test("debugs a buggy leaf below the depth limit when the draw is under debugProb, else improves the best", () => {
    const j = new Journal("min");
    const buggy = j.add(node({ buggy: true }));
    const good = j.add(node({ metric: -1 }));
    expect(j.nextStep(policy, () => 0.1)).toEqual({ stage: "debug", parent: buggy });
    expect(j.nextStep(policy, () => 0.9)).toEqual({ stage: "improve", parent: good });
    const fix = j.add(node({ parentId: buggy.id, stage: "debug", buggy: true, debugDepth: 1 }));
    expect(j.nextStep(policy, () => 0.1)).toEqual({ stage: "debug", parent: fix });
    j.add(node({ parentId: fix.id, stage: "debug", buggy: true, debugDepth: 2 }));
    // The only buggy leaf is at the depth limit: improve instead.
    expect(j.nextStep(policy, () => 0.1)).toEqual({ stage: "improve", parent: good });
  });

  test("drafts again when nothing works yet, past numDrafts", () => {
    const j = new Journal("max");
    j.add(node({ buggy: true, debugDepth: 0 }));
    j.add(node({ buggy: true }));
    expect(j.nextStep({ ...policy, debugProb: 0 }, () => 0.5)).toEqual({ stage: "draft" });
  });

  test("best follows the direction, latest on ties; with hidden scores it is the latest valid node", () => {
    const min = new Journal("min");
    min.add(node({ metric: -1 }));
    const b = min.add(node({ metric: -2 }));
    min.add(node({ metric: -1.5 }));
    expect(min.best()).toBe(b);
    const max = new Journal("max");
    max.add(node({ metric: 3 }));
    const tie = max.add(node({ metric: 3 }));
    expect(max.best()).toBe(tie);
    const hidden = new Journal("min");
    hidden.add(node({}));
    const latest = hidden.add(node({}));
    hidden.add(node({ buggy: true }));
    expect(hidden.best()).toBe(latest);
  });

  test("a node's files are its ancestors' with its own on top; touched paths cover every node", () => {
    const j = new Journal("min");
    const a = j.add(node({ files: { "a.py": "1", "b.py": "1" } }));
    const b = j.add(node({ parentId: a.id, stage: "improve", files: { "b.py": "2" } }));
    j.add(node({ files: { "c.py": "3" } }));
    expect(j.filesOf(b)).toEqual({ "a.py": "1", "b.py": "2" });
    expect(j.touchedPaths()).toEqual(["a.py", "b.py", "c.py"]);
  });
});
