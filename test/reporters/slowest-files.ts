/**
 * @module
 * A vitest reporter beside the default one: at the end of every run, the ten test files that took longest
 * (their tests and hooks, plus importing them), so a file that grows slow is seen the day it does.
 * scripts/pytest prints the same for the Python folders.
 */
import type { Reporter, TestModule } from "vitest/node";

const SHOWN = 10;

export default class SlowestFiles implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const rows = testModules
      .map((m) => {
        const d = m.diagnostic();
        return { file: m.relativeModuleId, seconds: (d.duration + d.collectDuration) / 1000, tests: [...m.children.allTests()].length };
      })
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, SHOWN);
    if (rows.length === 0) return;
    const width = Math.max(...rows.map((r) => r.file.length));
    const lines = [`The ${rows.length} slowest test files (seconds: tests, hooks and import):`];
    for (const r of rows) lines.push(`  ${r.file.padEnd(width)}  ${r.seconds.toFixed(1).padStart(7)}  ${String(r.tests).padStart(4)} tests`);
    process.stdout.write(`\n${lines.join("\n")}\n`);
  }
}
