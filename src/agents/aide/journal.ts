/**
 * @module
 * AIDE's journal: the tree of solutions tried so far, and the search policy over it (Jiang et al., "AIDE:
 * AI-Driven Exploration in the Space of Code", 2025). Until `numDrafts` drafts exist, draft a new solution;
 * then, with probability `debugProb`, debug a buggy leaf that has been debugged fewer than `maxDebugDepth`
 * times in a row; otherwise improve the best node, or draft again when no node works yet. A node's metric
 * is the environment's own score (the `score` tool), never the model's reading of its logs. Where scores
 * are hidden from the agent, nodes are only valid or buggy, and "best" degrades to the latest valid node.
 * Pure: the agent does the I/O.
 */
import type { Direction, ScoreView } from "../../core/index.js";

export type Stage = "draft" | "improve" | "debug";

export interface AideNode {
  id: number;
  parentId: number | null;
  stage: Stage;
  plan: string;
  /** Files this node writes (relative to the workspace), on top of its ancestors' files. */
  files: Record<string, string>;
  /** The model's quick check, run in the workspace before scoring. */
  command: string | undefined;
  /** The check's result as shown to the model (head and tail). */
  execution: string | undefined;
  score: ScoreView | undefined;
  /** The score value where the agent may see it, else null. */
  metric: number | null;
  /** No usable solution: the proposal, applying it or scoring it failed (the score is not `scored`). */
  buggy: boolean;
  /** Why the node is buggy, for the debug prompt. */
  bug: string | undefined;
  /** Debug steps in a row that led to this node (0 for drafts and improvements). */
  debugDepth: number;
}

export interface SearchPolicy {
  /** Drafts before the search starts improving; AIDE's default 5, ours 3 for hour-scale budgets. */
  numDrafts: number;
  /** Probability of debugging a buggy leaf instead of improving the best node. */
  debugProb: number;
  /** The longest chain of debug steps on one line of solutions. */
  maxDebugDepth: number;
}

export type NextStep = { stage: "draft" } | { stage: "improve" | "debug"; parent: AideNode };

export class Journal {
  readonly nodes: AideNode[] = [];

  constructor(readonly direction: Direction) {}

  add(node: Omit<AideNode, "id">): AideNode {
    const added = { ...node, id: this.nodes.length + 1 };
    this.nodes.push(added);
    return added;
  }

  get(id: number): AideNode {
    const node = this.nodes[id - 1];
    if (!node) throw new Error(`the journal has no node ${id}`);
    return node;
  }

  children(node: AideNode): AideNode[] {
    return this.nodes.filter((n) => n.parentId === node.id);
  }

  /** The best working node: best metric in the run's direction (latest on ties); with hidden scores, the latest valid one. */
  best(): AideNode | undefined {
    const good = this.nodes.filter((n) => !n.buggy);
    const measured = good.filter((n) => n.metric !== null);
    if (measured.length === 0) return good.at(-1);
    return measured.reduce((best, n) => ((this.direction === "min" ? n.metric! <= best.metric! : n.metric! >= best.metric!) ? n : best));
  }

  nextStep(policy: SearchPolicy, random: () => number): NextStep {
    const drafts = this.nodes.filter((n) => n.stage === "draft").length;
    if (drafts < policy.numDrafts) return { stage: "draft" };
    if (random() < policy.debugProb) {
      const debuggable = this.nodes.filter((n) => n.buggy && n.debugDepth < policy.maxDebugDepth && this.children(n).length === 0);
      if (debuggable.length > 0) return { stage: "debug", parent: debuggable[Math.floor(random() * debuggable.length)]! };
    }
    const best = this.best();
    return best ? { stage: "improve", parent: best } : { stage: "draft" };
  }

  /** Every file a node and its ancestors write, the node's own last. */
  filesOf(node: AideNode): Record<string, string> {
    const chain: AideNode[] = [];
    for (let n: AideNode | undefined = node; n; n = n.parentId === null ? undefined : this.get(n.parentId)) chain.unshift(n);
    return Object.assign({}, ...chain.map((n) => n.files)) as Record<string, string>;
  }

  /** Every path any node wrote (so applying a node can restore the others' files). */
  touchedPaths(): string[] {
    return [...new Set(this.nodes.flatMap((n) => Object.keys(n.files)))].sort();
  }

  /** What the model is told of earlier working designs (AIDE's memory), newest last. */
  memory(limit = 10): string {
    const good = this.nodes.filter((n) => !n.buggy).slice(-limit);
    if (good.length === 0) return "";
    return good
      .map((n) => `Design ${n.id} (${n.stage}): ${n.plan.trim()}\nResult: ${n.metric === null ? "valid (score not shown)" : `score ${n.metric}`}`)
      .join("\n-------------------------------\n");
  }

  /** The tree in one line per node, for the journal note stored with the run. */
  outline(): Array<Pick<AideNode, "id" | "parentId" | "stage" | "metric" | "buggy" | "debugDepth">> {
    return this.nodes.map(({ id, parentId, stage, metric, buggy, debugDepth }) => ({ id, parentId, stage, metric, buggy, debugDepth }));
  }
}
