/**
 * @module
 * `rebench run` and `rebench main` review the runs they finished right after scoring them (docs/review.md):
 * each finished run gets its `review` event, and what was flagged is printed below the runs' table. A review
 * that cannot be made (a broken review.json) does not undo the runs: it is said, with the command to retry.
 */
import type { RunSummary } from "../core/index.js";
import type { RunStore } from "../store/index.js";
import type { Io } from "./io.js";

/** The runs as they are after their reviews, and the lines that say what was flagged (empty when all are clean). */
export async function reviewAfterRuns(store: RunStore, runs: readonly RunSummary[], io: Io, shown: string): Promise<{ runs: RunSummary[]; text: string }> {
  const finished = runs.filter((r) => r.state === "finished");
  if (finished.length === 0) return { runs: [...runs], text: "" };
  try {
    const { reviewRuns } = await import("../review/index.js");
    const { formatReviewed } = await import("./commands/review.js");
    const reviewed = await reviewRuns(store, { runIds: finished.map((r) => r.id) });
    const byId = new Map(reviewed.map((r) => [r.summary.id, r.summary]));
    const flagged = reviewed.filter((r) => r.review.verdict !== "clean");
    const text =
      flagged.length === 0
        ? `review: ${reviewed.length} run(s) clean (\`rebench review\`, docs/review.md)\n`
        : `review: ${flagged.length} of ${reviewed.length} run(s) flagged; read them before trusting their scores\n${formatReviewed(flagged)}\n`;
    return { runs: runs.map((r) => byId.get(r.id) ?? r), text };
  } catch (error) {
    io.err(`the runs were not reviewed: ${(error as Error).message}\nhint: fix that, then \`rebench review --db ${shown}\` reviews them\n`);
    return { runs: [...runs], text: "" };
  }
}
