/**
 * @module
 * A generated run as large as real ones get (10,000 events and 100 MB of observations by default), and a
 * store of many runs, appended through the store's own API as an orchestrator would: for the viewer's
 * benchmark (bench/viewer.ts) and its browser tests. Deterministic: the same options give the same events.
 */
import type { NewRunEvent, RunId, RunSpecInput } from "../../src/core/index.js";
import type { RunStore } from "../../src/store/index.js";

export const LARGE_SPEC: RunSpecInput = {
  participant: { kind: "agent", alias: "generated (large)", scaffold: "modular", model: "openai:gpt-4o" },
  environment: "optimize_kernel",
  variant: "mini",
  task: "main",
  limits: { workingSeconds: 8 * 3600, tokens: 50_000_000, costUsd: 500 },
  timeLimitSeconds: 8 * 3600,
  direction: "min",
  aggregation: "min",
  normalization: { start: 2, reference: 1, source: "shipped" },
};

export interface LargeRunOptions {
  /** Events in all (about). Default 10,000. */
  events?: number;
  /** Bytes of observation output in all (about). Default 100 MB. */
  observationBytes?: number;
  /** Leave the run running (no run_finished). Default false. */
  running?: boolean;
  /** A line that appears in one observation, for search tests. Default "needle-in-the-haystack". */
  needle?: string;
}

/** Append a large agent run: generations, actions, observations (with `<script>` in one), scores, pauses. */
export async function generateLargeRun(store: RunStore, options: LargeRunOptions = {}): Promise<RunId> {
  const total = options.events ?? 10_000;
  // Each turn is 4 events (generation, action, observation, time), and every 50th 3 more (a scoring pause).
  const turns = Math.max(1, Math.floor((total - 6) / (4 + 3 / 50)));
  const perObservation = Math.floor((options.observationBytes ?? 100e6) / turns);
  const start = Date.parse("2026-11-30T09:00:00.000Z");
  let clock = 0;
  const ts = () => {
    clock += 1000;
    return new Date(start + clock).toISOString();
  };
  const run = await store.createRun(LARGE_SPEC, { ts: new Date(start).toISOString() });
  await store.append(run.id, { type: "state_changed", to: "starting", ts: ts() });
  await store.append(run.id, { type: "state_changed", to: "running", ts: ts() });
  const line = "step 0000 loss 2.3456 tokens/s 123456 ................................................................\n";
  let best = 2;
  for (let turn = 1; turn <= turns; turn++) {
    const actionId = `a${turn}`;
    const command = `python3 train.py --step ${turn}`;
    await store.append(run.id, {
      type: "generation",
      ts: ts(),
      model: "openai:gpt-4o",
      inputTokens: 2000 + turn,
      outputTokens: 150,
      costUsd: 0.0065,
      durationMs: 1800,
      content: {
        choices: [
          {
            message: {
              role: "assistant",
              content: `Turn ${turn}: I will run the next experiment.`,
              toolCalls: [{ id: `call_${turn}`, name: "bash", arguments: { command } }],
            },
            finishReason: "tool_calls",
            rawFinishReason: "tool_calls",
          },
        ],
        attempts: 1,
        responseIds: [`resp_${turn}`],
      },
    });
    await store.append(run.id, { type: "action", ts: ts(), actionId, tool: "bash", input: { command } });
    let stdout = line.replace("0000", String(turn).padStart(4, "0")).repeat(Math.max(1, Math.floor(perObservation / line.length)));
    if (turn === Math.floor(turns / 2)) stdout = `${options.needle ?? "needle-in-the-haystack"}\n${stdout}`;
    if (turn === 3) stdout = `<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">\n${stdout}`;
    await store.append(run.id, {
      type: "observation",
      ts: ts(),
      actionId,
      tool: "bash",
      output: {
        exitCode: 0,
        signal: null,
        timedOut: false,
        truncated: false,
        durationMs: 950,
        stdout,
        stderr: turn % 7 === 0 ? "warning: slow step\n" : "",
        timeoutSeconds: 600,
      },
    });
    if (turn % 50 === 0) {
      await store.append(run.id, { type: "pause_started", ts: ts(), reason: "scoring" });
      best = Math.max(1, best - 0.01);
      const elapsedSeconds = turn * 3;
      const entry =
        turn % 150 === 0
          ? {
              timestamp: ts(),
              elapsedSeconds,
              outcome: { kind: "invalid" as const, reason: "the output is not the running sums" },
              message: { ok: false },
              details: {},
            }
          : { timestamp: ts(), elapsedSeconds, outcome: { kind: "scored" as const, value: best }, message: { seconds: Math.exp(best) }, details: {} };
      await store.append(run.id, { type: "score_logged", ts: ts(), trigger: "action", entry });
      await store.append(run.id, { type: "pause_ended", ts: ts(), reason: "scoring" });
    }
    await store.append(run.id, { type: "time_reported", ts: ts(), wallSeconds: turn * 3.2, workingSeconds: turn * 3, pausedSeconds: turn * 0.2 });
  }
  if (!options.running) {
    await store.append(run.id, { type: "submitted", ts: ts(), submission: "the generated run ends" });
    await store.append(run.id, { type: "run_finished", ts: ts(), stopReason: "submitted", finalRaw: best, normalized: 2 - best });
  }
  return run.id;
}

/**
 * Append `count` small runs across environments, participants and states (for the runs list): a tenth queued,
 * a tenth running, the rest finished, each finished one with two score log entries (so reports have curves).
 * Each run is two writes (created, then its other events at once). `onProgress` hears every 1,000th run.
 */
export async function generateManyRuns(store: RunStore, count: number, onProgress?: (done: number) => void): Promise<void> {
  const environments = ["optimize_kernel", "fix_embedding", "scaling_law", "rust_codecontests"] as const;
  const start = Date.parse("2026-10-01T00:00:00.000Z");
  for (let i = 0; i < count; i++) {
    if (onProgress && i % 1000 === 0) onProgress(i);
    const spec: RunSpecInput = {
      ...LARGE_SPEC,
      environment: environments[i % 4]!,
      participant: { kind: "agent", alias: `model-${i % 13}`, scaffold: "modular" },
    };
    const at = (seconds: number) => new Date(start + i * 60_000 + seconds * 1000).toISOString();
    const run = await store.createRun(spec, { ts: at(0) });
    if (i % 10 === 0) continue; // queued
    const events: NewRunEvent[] = [
      { type: "state_changed", to: "running", ts: at(1) },
      { type: "time_reported", ts: at(2), wallSeconds: 100 + (i % 97), workingSeconds: 90 + (i % 89), pausedSeconds: 10 },
    ];
    if (i % 10 !== 1) {
      // finished (the rest are running)
      const raw = 1 + ((i * 37) % 100) / 100;
      const entry = (value: number, elapsedSeconds: number) => ({
        timestamp: at(elapsedSeconds),
        elapsedSeconds,
        outcome: { kind: "scored" as const, value },
        message: { score: value },
        details: {},
      });
      events.push(
        { type: "score_logged", ts: at(3), trigger: "action", entry: entry(Math.min(2, raw + 0.5), 30) },
        { type: "score_logged", ts: at(4), trigger: "submit", entry: entry(raw, 60) },
        { type: "run_finished", ts: at(5), stopReason: "submitted", finalRaw: raw, normalized: 2 - raw },
      );
    }
    await store.appendMany(run.id, events);
  }
}
