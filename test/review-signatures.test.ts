/**
 * The enforcement test of review signatures (docs/review.md, "Adding a signature"): every exploit file of every
 * environment is caught by a shared trajectory rule or one of its environment's signatures, read from its steps
 * exactly as a run of it records them; every signature catches the exploits it names; and no variant's reference
 * solution sets any rule off. A new exploit without the signature that catches it fails here.
 */
import { describe, expect, test } from "vitest";
import { registerBuiltins } from "../src/cli/builtins.js";
import { readExploits } from "../src/environments/exploit-files.js";
import { listEnvironments } from "../src/environments/registry.js";
import { environmentSignatures } from "../src/review/environment-signatures.js";
import { reviewContext } from "../src/review/review-context.js";
import { TRAJECTORY_RULES } from "../src/review/trajectory-rules.js";
import { trajectorySignals } from "../src/review/trajectory-signals.js";
import { stepTexts } from "../src/review/trajectory-text.js";
import { replayActionsFor } from "../src/runs/replay-steps.js";

registerBuiltins();
const families = listEnvironments().filter((f) => f.name !== "test_echo");

describe("review signatures", () => {
  test("the seven environments each declare their signatures in review.json", () => {
    expect(families.map((f) => f.name).sort()).toHaveLength(7);
    for (const family of families) expect(environmentSignatures(family.name, family.dir).version, family.name).toBe(`${family.name}@1`);
  });

  for (const family of families) {
    test(`every exploit of ${family.name} is caught by a rule, and each signature catches the exploits it names`, () => {
      const signatures = environmentSignatures(family.name, family.dir);
      const exploits = readExploits(family.dir);
      const uncaught: string[] = [];
      for (const exploit of exploits) {
        const context = reviewContext({ environment: family.name, variant: exploit.variants?.[0] ?? "mini" });
        if (trajectorySignals(stepTexts(exploit.steps), context.rules).length === 0) uncaught.push(exploit.name);
      }
      expect(uncaught, `exploits of ${family.name} that no rule catches: add a signature to its review.json`).toEqual([]);
      for (const rule of signatures.rules) {
        for (const name of rule.exploits) {
          const exploit = exploits.find((e) => e.name === name);
          expect(exploit, `${rule.id} names the exploit ${name}, which ${family.name}/exploits/ does not have`).toBeDefined();
          expect(trajectorySignals(stepTexts(exploit!.steps), [rule]).length, `${rule.id} does not catch ${name}`).toBe(1);
        }
      }
      for (const off of signatures.sharedRulesOff) expect(TRAJECTORY_RULES.map((r) => r.id)).toContain(off);
    });

    test(`no rule fires on the reference solutions of ${family.name}`, () => {
      let references = 0;
      for (const variant of ["mini", "gpu"] as const) {
        let steps: ReturnType<typeof replayActionsFor>;
        try {
          steps = replayActionsFor({ environment: family.name, variant, task: "main", config: { actions: "reference" } } as Parameters<
            typeof replayActionsFor
          >[0]);
        } catch {
          continue;
        }
        references += 1;
        const fired = trajectorySignals(stepTexts(steps), reviewContext({ environment: family.name, variant }).rules);
        expect(
          fired.map((f) => `${f.signal}: ${f.excerpt}`),
          `${family.name}/${variant}`,
        ).toEqual([]);
      }
      expect(references).toBeGreaterThan(0);
    });
  }
});
