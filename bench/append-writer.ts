/**
 * @module
 * One writer of bench/store-appends.ts, in its own process with its own connection: opens the store, creates
 * its run (or uses the shared one), signals ready, waits for the go file, then appends N events one after
 * the other, timing each, and writes its timings to OUT (JSON: {startMs, endMs, latenciesMs}).
 *   tsx bench/append-writer.ts DB N OUT READY GO [RUN_ID]
 */
import { existsSync, writeFileSync } from "node:fs";
import { openStore } from "../src/store/index.js";
import { sampleSpec } from "../src/store/store.contract.js";

const [db, count, out, ready, go, shared] = process.argv.slice(2);
if (!db || !count || !out || !ready || !go) {
  console.error("usage: append-writer.ts DB N OUT READY GO [RUN_ID]");
  process.exit(2);
}
const store = await openStore(db);
const runId = shared ?? (await store.createRun(sampleSpec)).id;
writeFileSync(ready, "");
const parent = process.ppid;
while (!existsSync(go)) {
  // A benchmark that died (another writer failed) never writes the go file: do not wait for it forever.
  if (process.ppid !== parent) process.exit(1);
  await new Promise((resolve) => setTimeout(resolve, 5));
}
// An event of a typical size: a command's observation with a few hundred bytes of output.
const output = { exitCode: 0, signal: null, timedOut: false, truncated: false, durationMs: 12.5, stdout: "x".repeat(400), stderr: "" };
const latencies: number[] = [];
const startMs = Date.now();
for (let i = 0; i < Number(count); i++) {
  const t = performance.now();
  await store.append(runId, { type: "observation", actionId: `a${i}`, tool: "bash", output });
  latencies.push(performance.now() - t);
}
const endMs = Date.now();
await store.close();
writeFileSync(out, JSON.stringify({ startMs, endMs, latenciesMs: latencies }));
