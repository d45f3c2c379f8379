/**
 * @module
 * The warning `rebench run`, `main`, `calibrate` and `exploits` print (through `runAgentBatch`) for each
 * run with score entries flagged as taken under contention: a timing-sensitive variant scored while other
 * work used the machine, whose timing is then not comparable with a quiet machine's (src/core/contention.ts).
 */
import { type Contention, contentionOf, describeOtherWork, type RunSummary } from "../core/index.js";
import type { RunStore } from "../store/index.js";
import type { Io } from "./io.js";

/** One warning per contended run, printed to stderr and returned (for `--json` output). */
export async function warnContended(io: Io, store: RunStore, runs: readonly RunSummary[]): Promise<string[]> {
  const warnings: string[] = [];
  for (const run of runs) {
    if (run.contendedScores === 0) continue;
    const flagged = (await store.scoreLog(run.id)).map(contentionOf).filter((c): c is Contention => c?.flagged === true);
    const worst = flagged.reduce<Contention | undefined>((a, c) => (a === undefined || (c.otherCpus ?? 0) > (a.otherCpus ?? 0) ? c : a), undefined);
    if (worst === undefined) continue;
    const { environment, variant } = run.spec;
    const what = run.scoreCalls === 1 ? "was scored" : `had ${flagged.length} of its ${run.scoreCalls} scorings taken`;
    const warning =
      `warning: run ${run.id} (${environment}/${variant}) ${what} while other work used ${flagged.length > 1 ? "up to " : ""}` +
      `${describeOtherWork(worst)}: this timing is not comparable; score again on a quiet machine`;
    io.err(`rebench: ${warning}\n`);
    warnings.push(warning);
  }
  return warnings;
}
