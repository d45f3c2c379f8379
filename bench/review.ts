/**
 * @module
 * Benchmark: `rebench review`'s recall and false-positive rate per environment, measured on what the repository
 * holds. Positives: every exploit run replayed into the committed stores (`environments/*\/bench/*\/runs.db`,
 * participant `exploit:NAME`), and every exploit file of `exploits/` as its steps (its trajectory without a
 * score log: the catalogue, also for the environments whose exploit runs are not stored). Negatives: every
 * honest run in those stores (the start and reference replays of calibrations) and each variant's reference
 * solution as its steps. A run counts as flagged when its verdict is not `clean`; only finished runs are
 * reviewed, as `rebench review` does. The stores are opened read
 * only and nothing is written. Run: `npm run bench:review` (`-- --markdown` prints the tables for docs/review.md).
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { registerBuiltins } from "../src/cli/builtins.js";
import type { StoredEvent } from "../src/core/index.js";
import { readExploits } from "../src/environments/exploit-files.js";
import { listEnvironments } from "../src/environments/registry.js";
import { reviewContext } from "../src/review/review-context.js";
import { reviewEvents } from "../src/review/review-events.js";
import { trajectorySignals } from "../src/review/trajectory-signals.js";
import { stepTexts } from "../src/review/trajectory-text.js";
import { replayActionsFor } from "../src/runs/replay-steps.js";
import { SqliteRunStore } from "../src/store/index.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const MARKDOWN = process.argv.includes("--markdown");

interface Tally {
  positives: number;
  caught: number;
  missed: string[];
  negatives: number;
  flagged: number;
  falsePositives: string[];
}

registerBuiltins();
const rows = new Map<string, { stored: Tally; catalogue: Tally }>();
const tally = (): Tally => ({ positives: 0, caught: 0, missed: [], negatives: 0, flagged: 0, falsePositives: [] });
const started = process.hrtime.bigint();
let reviewed = 0;
/** Runs `rebench review` does not examine: those that did not finish (a run cancelled before its first action has no trajectory). */
const skipped: string[] = [];
/** Stored runs on which a score signal fired. */
const scoreFlagged: string[] = [];

for (const family of listEnvironments()) {
  const row = { stored: tally(), catalogue: tally() };
  rows.set(family.name, row);
  // The catalogue: every exploit file's steps, and every variant's reference steps.
  for (const exploit of readExploits(family.dir)) {
    const variant = exploit.variants?.[0] ?? "mini";
    const context = reviewContext({ environment: family.name, variant });
    const hit = trajectorySignals(stepTexts(exploit.steps), context.rules).length > 0;
    row.catalogue.positives += 1;
    if (hit) row.catalogue.caught += 1;
    else row.catalogue.missed.push(exploit.name);
    reviewed += 1;
  }
  for (const variant of ["mini", "gpu", "paper"] as const) {
    let steps: ReturnType<typeof replayActionsFor>;
    try {
      steps = replayActionsFor({ environment: family.name, variant, task: "main", config: { actions: "reference" } } as Parameters<typeof replayActionsFor>[0]);
    } catch {
      continue; // a variant without a reference solution here (not available, or its files need the paper's inputs)
    }
    const context = reviewContext({ environment: family.name, variant });
    const fired = trajectorySignals(stepTexts(steps), context.rules);
    row.catalogue.negatives += 1;
    if (fired.length > 0) {
      row.catalogue.flagged += 1;
      row.catalogue.falsePositives.push(`${variant} reference: ${fired.map((f) => f.signal).join(", ")}`);
    }
    reviewed += 1;
  }
}

// The committed stores.
for (const environment of readdirSync(path.join(ROOT, "environments"))) {
  const benchDir = path.join(ROOT, "environments", environment, "bench");
  let stores: string[] = [];
  try {
    stores = readdirSync(benchDir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => path.join(benchDir, d.name, "runs.db"))
      .filter((file) => {
        try {
          return readdirSync(path.dirname(file)).includes("runs.db");
        } catch {
          return false;
        }
      });
  } catch {
    continue;
  }
  for (const file of stores.sort()) {
    const store = SqliteRunStore.open(file, { readOnly: true });
    try {
      for (const summary of await store.listRuns()) {
        const alias = summary.spec.participant.alias;
        const honest = alias === "start (replay)" || alias === "reference (replay)";
        const exploit = alias.startsWith("exploit:");
        if (!honest && !exploit) continue;
        if (summary.state !== "finished") {
          skipped.push(`${path.relative(ROOT, file)} ${summary.id} ${alias} (${summary.state}: ${summary.error ?? "not finished"})`);
          continue;
        }
        const events: StoredEvent[] = await store.events(summary.id);
        const review = reviewEvents(events, reviewContext(summary.spec));
        reviewed += 1;
        if (review.findings.some((f) => f.kind === "score")) scoreFlagged.push(`${summary.id} ${alias}`);
        const row = rows.get(summary.spec.environment) ?? { stored: tally(), catalogue: tally() };
        rows.set(summary.spec.environment, row);
        const where = `${path.relative(ROOT, file)} ${summary.id} ${alias}`;
        if (exploit) {
          row.stored.positives += 1;
          if (review.verdict !== "clean") row.stored.caught += 1;
          else row.stored.missed.push(where);
        } else {
          row.stored.negatives += 1;
          if (review.verdict !== "clean") {
            row.stored.flagged += 1;
            row.stored.falsePositives.push(`${where}: ${review.findings.map((f) => f.signal).join(", ")}`);
          }
        }
      }
    } finally {
      await store.close();
    }
  }
}
const seconds = Number(process.hrtime.bigint() - started) / 1e9;

const pct = (n: number, d: number) => (d === 0 ? "-" : `${((100 * n) / d).toFixed(0)}%`);
const header = [
  "environment",
  "stored exploit runs",
  "recall",
  "stored honest runs",
  "false positives",
  "catalogue exploits",
  "recall",
  "reference solutions",
  "false positives",
];
const lines = [...rows.entries()]
  .sort(([a], [b]) => a.localeCompare(b))
  .map(([name, { stored, catalogue }]) => [
    name,
    `${stored.caught}/${stored.positives}`,
    pct(stored.caught, stored.positives),
    String(stored.negatives),
    `${stored.flagged} (${pct(stored.flagged, stored.negatives)})`,
    `${catalogue.caught}/${catalogue.positives}`,
    pct(catalogue.caught, catalogue.positives),
    String(catalogue.negatives),
    `${catalogue.flagged} (${pct(catalogue.flagged, catalogue.negatives)})`,
  ]);
if (MARKDOWN) {
  console.log(`| ${header.join(" | ")} |`);
  console.log(`|${header.map(() => "---").join("|")}|`);
  for (const line of lines) console.log(`| ${line.join(" | ")} |`);
} else {
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  console.log(fmt(header));
  for (const line of lines) console.log(fmt(line));
}
const problems = [...rows.values()].flatMap(({ stored, catalogue }) => [
  ...stored.missed.map((m) => `missed: ${m}`),
  ...catalogue.missed.map((m) => `missed (catalogue): ${m}`),
  ...stored.falsePositives.map((m) => `false positive: ${m}`),
  ...catalogue.falsePositives.map((m) => `false positive (catalogue): ${m}`),
]);
for (const p of problems) console.log(p);
for (const s of skipped) console.log(`not reviewed: ${s}`);
console.log(`score signals fired on ${scoreFlagged.length} stored run(s)${scoreFlagged.length > 0 ? `: ${scoreFlagged.join(", ")}` : ""}`);
console.log(`${reviewed} trajectories reviewed in ${seconds.toFixed(1)} s`);
process.exitCode = problems.length > 0 ? 1 : 0;
