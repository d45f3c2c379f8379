/**
 * @module
 * The `aide` scaffold: AIDE's tree search over solutions, run through the tool API. Each step asks the
 * model for one solution (a draft, an improvement of the best node, or a fix of a buggy leaf; see
 * journal.ts), puts its files in the workspace, runs its quick check and scores it with the environment's
 * own scorer, which is the node's metric. Every node is stored with the run as a `note` event (`aide: node
 * N`, the whole node) and the tree as a final `aide: journal` note. Near the end of the budget
 * (`finalizeAt`), or after `maxSteps`, the best node is put back in place and submitted.
 *
 * Every step's prompt begins with the task and the starting workspace, marked as a cache breakpoint (with
 * the tool and the system prompt), so a provider that caches reads that prefix after the first step.
 *
 * Hidden scores (`hidden_score`, or an environment whose score the agent never sees): the score tool only
 * says valid or not, so nodes have no metric; "best" is the latest valid node, improvements chain from it,
 * and the submission is that node. The run's final score is still the environment's aggregate of the log.
 */
import { z } from "zod";
import { type Agent, type AgentSession, RunEndedError } from "../../core/index.js";
import { checkThinkingBudget, ModelSettings, modelRequestOptions } from "../model-settings.js";
import { generateInRun } from "../model-turn.js";
import type { AssistantMessage, ModelClient } from "../models/model-client.js";
import { scoreText } from "../score-text.js";
import { type PromptInput, stepMessages, WRITE_SOLUTION } from "./aide-prompts.js";
import { type AideWorkspace, applyFiles, inspectWorkspace, runCheck, safePath } from "./aide-workspace.js";
import { type AideNode, Journal, type NextStep } from "./journal.js";

/** The aide scaffold's settings (`--agent-config`), with their defaults. */
export const AideSettings = z
  .object({
    numDrafts: z.number().int().min(1).default(3),
    debugProb: z.number().min(0).max(1).default(0.5),
    maxDebugDepth: z.number().int().min(0).default(3),
    /** Stop searching after this many nodes (default: only the budget stops it). */
    maxSteps: z.number().int().positive().optional(),
    /** Timeout of a node's quick check, in seconds. */
    checkTimeoutSeconds: z.number().positive().default(600),
    /** When any budget is this far used, put the best node in place and submit. */
    finalizeAt: z.number().gt(0).max(1).default(0.9),
    maxTokens: z.number().int().positive().default(8192),
    temperature: z.number().min(0).max(2).optional(),
    /** Characters of the starting workspace's files shown to the model. */
    workspaceChars: z.number().int().min(0).default(40_000),
    /** Characters of a check's output shown to the model (head and tail). */
    outputLimitChars: z.number().int().min(500).default(6_000),
    /** Seed of the search policy's random choices (default: unseeded). */
    seed: z.number().int().optional(),
    ...ModelSettings.shape,
  })
  .strict()
  .superRefine(checkThinkingBudget);
export type AideSettings = z.infer<typeof AideSettings>;

type Proposal = { plan: string; files: Record<string, string>; command: string | undefined } | { error: string; plan: string };

export class AideAgent implements Agent {
  readonly #random: () => number;

  constructor(
    readonly client: ModelClient,
    readonly settings: AideSettings,
  ) {
    this.#random = settings.seed === undefined ? Math.random : mulberry32(settings.seed);
  }

  async run(session: AgentSession): Promise<void> {
    try {
      await this.#search(session);
    } catch (error) {
      if (session.signal.aborted || error instanceof RunEndedError) return;
      throw error;
    }
  }

  async #search(session: AgentSession): Promise<void> {
    if ((await session.history()).some(({ event }) => event.type === "action")) {
      await session.note("aide: resumed after a restart; the earlier journal is not rebuilt, a new search starts from the workspace as it is");
    }
    const ws = await inspectWorkspace(session, this.settings.workspaceChars);
    const journal = new Journal(session.spec.direction);
    const visible = (await session.tools.scoreLog()).every((v) => v.outcome !== "scored" || v.score !== undefined);
    const input: PromptInput = { instructions: session.instructions, overview: ws.overview, direction: session.spec.direction, visible };
    let applied: AideNode | undefined;
    for (let step = 1; this.settings.maxSteps === undefined || step <= this.settings.maxSteps; step++) {
      if (session.signal.aborted || (await this.#nearEnd(session))) break;
      const node = await this.#step(session, journal, journal.nextStep(this.settings, this.#random), ws, input);
      applied = node;
      if (node.score?.outcome === "scored" && node.score.score === undefined) input.visible = false;
      await session.note(`aide: node ${node.id} (${node.stage}${node.parentId === null ? "" : ` of ${node.parentId}`})`, node);
    }
    const best = journal.best();
    if (applied?.id !== best?.id) await applyFiles(session, ws, best ? journal.filesOf(best) : {}, journal.touchedPaths());
    await session.note("aide: journal", { best: best?.id ?? null, nodes: journal.outline() });
    await session.tools.submit({
      submission: best ? `AIDE design ${best.id}: ${best.plan.trim()}` : "AIDE found no working solution; the starting solution is submitted",
    });
  }

  async #step(session: AgentSession, journal: Journal, next: NextStep, ws: AideWorkspace, input: PromptInput): Promise<AideNode> {
    const parent = next.stage === "draft" ? undefined : next.parent;
    const reply = await generateInRun(session, this.client, {
      ...modelRequestOptions(this.settings, session.runId),
      messages: stepMessages(next.stage, parent, journal, input),
      tools: [WRITE_SOLUTION],
      toolChoice: { name: WRITE_SOLUTION.name },
      maxTokens: this.settings.maxTokens,
      ...(this.settings.temperature === undefined ? {} : { temperature: this.settings.temperature }),
    });
    const proposal = readProposal(reply.choices[0]!.message);
    const base = {
      parentId: parent?.id ?? null,
      stage: next.stage,
      plan: proposal.plan,
      debugDepth: next.stage === "debug" ? next.parent.debugDepth + 1 : 0,
      execution: undefined,
      score: undefined,
      metric: null,
    };
    if ("error" in proposal) return journal.add({ ...base, files: {}, command: undefined, buggy: true, bug: proposal.error });
    const files = { ...(parent ? journal.filesOf(parent) : {}), ...proposal.files };
    const touched = [...new Set([...journal.touchedPaths(), ...Object.keys(proposal.files)])];
    const applyError = await applyFiles(session, ws, files, touched);
    const node = { ...base, files: proposal.files, command: proposal.command };
    if (applyError) return journal.add({ ...node, buggy: true, bug: applyError });
    const check = proposal.command
      ? await runCheck(session, ws, proposal.command, this.settings.checkTimeoutSeconds, this.settings.outputLimitChars)
      : undefined;
    const score = await session.tools.score();
    const buggy = score.outcome !== "scored";
    return journal.add({
      ...node,
      execution: check?.text,
      score,
      metric: score.outcome === "scored" && score.score !== undefined ? score.score : null,
      buggy,
      bug: buggy ? `${scoreText(score, input.direction)}${check?.failed ? " (and its check failed)" : ""}` : undefined,
    });
  }

  async #nearEnd(session: AgentSession): Promise<boolean> {
    const { limits, remaining } = await session.tools.usage();
    return Object.entries(limits).some(([name, limit]) => {
      const left = remaining[name as keyof typeof remaining];
      return typeof limit === "number" && left !== undefined && 1 - left / limit >= this.settings.finalizeAt;
    });
  }
}

/** The model's write_solution call as a proposal, or why it is not one. */
export function readProposal(message: AssistantMessage): Proposal {
  const call = message.toolCalls?.find((c) => c.name === WRITE_SOLUTION.name);
  if (!call) return { error: "the model answered without calling write_solution", plan: message.content.slice(0, 2000) };
  if (call.argumentsError) return { error: `the write_solution arguments were not valid: ${call.argumentsError}`, plan: "" };
  const { plan, files, command } = call.arguments;
  const list: unknown[] = Array.isArray(files)
    ? files
    : files && typeof files === "object"
      ? Object.entries(files).map(([p, content]) => ({ path: p, content }))
      : [];
  const written: Record<string, string> = {};
  for (const item of list) {
    const { path: p, content } = (item ?? {}) as { path?: unknown; content?: unknown };
    const safe = typeof p === "string" ? safePath(p) : undefined;
    if (!safe || typeof content !== "string") {
      return {
        error: `a file entry is not {path, content} with a relative path inside the workspace: ${JSON.stringify(item).slice(0, 200)}`,
        plan: String(plan ?? ""),
      };
    }
    written[safe] = content;
  }
  if (Object.keys(written).length === 0) return { error: "the proposal changes no file", plan: String(plan ?? "") };
  return { plan: typeof plan === "string" ? plan : "", files: written, command: typeof command === "string" && command.trim() ? command : undefined };
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
