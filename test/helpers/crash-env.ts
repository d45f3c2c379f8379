/**
 * @module
 * `test_crash`: the test_echo workspace with a grader that always fails in a chosen way, to prove that a
 * run whose every scoring call fails ends without a score (never a number).
 */

import type { EnvironmentFamily } from "../../src/environments/contract.js";
import { defineEnvironment, MINI_RESOURCES } from "../../src/environments/define.js";
import { registerExtraEnvironment } from "../../src/environments/registry.js";

const moduleUrl = new URL("../fixtures/env-echo/family.ts", import.meta.url).href;

export function registerFailingGrader(name: string, mode: "crash" | "garbage" | "hang" | "nofile", scoreSeconds = 30): EnvironmentFamily {
  const family = defineEnvironment({
    name,
    title: `Failing grader (${mode})`,
    summary: "test_echo with a grader that always fails",
    canary: "0f8a3c56-2f55-4c2e-9d38-3f7a1c2b9e10",
    scoring: { direction: "min", aggregation: "min", logsStartingScore: true },
    timeouts: { scoreSeconds },
    moduleUrl,
    variants: {
      mini: {
        scale: "test",
        resources: MINI_RESOURCES,
        normalization: { start: 0, reference: -1, source: "shipped" },
        implementation: {
          instructions: () => "anything",
          workspace: "workspace",
          grader: { command: ["python3", "grader/misbehave.py", "--mode", mode] },
          reference: { actions: "reference/actions.jsonl" },
        },
      },
      gpu: { scale: "-", resources: MINI_RESOURCES },
      paper: { scale: "-", resources: MINI_RESOURCES },
    },
  });
  registerExtraEnvironment(family);
  return family;
}
