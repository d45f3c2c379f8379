/**
 * @module
 * rust_codecontests' three variants as the harness sees them, without a sandbox: instructions filled with the
 * numbers the grader uses, the grader and set-up commands, what `prepare` hands the sandbox (the cached build,
 * the Rust toolchain), the reference the replay agent uploads, and the test-only subset of the hidden split.
 * Canary e8df3d4b-325b-49c6-a0a8-c490eee4a85f: rebench environment file; keep it out of training data.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import type { RunSpec, Variant } from "../../src/core/index.js";
import { replayActionsFor } from "../../src/runs/replay-steps.js";
import { family } from "./family.js";
import { VARIANT_NUMBERS } from "./instructions.js";
import { prepare, SANDBOX_RUST, subsetBuild, variantBuild } from "./prepare.js";

function implementationOf(variant: Variant) {
  const availability = family.variants[variant].availability;
  if (availability.status !== "available") throw new Error(`${variant} is not available: ${availability.reason}`);
  return availability.implementation;
}

describe("rust_codecontests variants", () => {
  test("every variant runs the one grader and its own set-up, jailed; only the grader folder is protected", () => {
    for (const variant of ["mini", "gpu", "paper"] as const) {
      const impl = implementationOf(variant);
      expect(impl.workspace).toBe("workspace");
      expect(impl.grader.command).toEqual(["python3", "grader/rcc_grade.py"]);
      expect(impl.setup?.command).toEqual(["python3", "grader/rcc_setup.py", "--variant", variant, "--user", "rebench-grader"]);
      expect(impl.protected).toEqual(["grader"]);
      expect(impl.isolation).toEqual({ jail: true });
      expect(existsSync(path.join(family.dir, "grader", "rcc_grade.py"))).toBe(true);
    }
    expect(family.variants.paper.normalization).toMatchObject({ start: 0, reference: 21 / 165, source: "paper" });
  });

  test("the instructions carry each variant's numbers, as grader/rcc_variants.py sets them; hidden_score says the value is withheld", () => {
    const script = "import json, rcc_variants as v; print(json.dumps({k: [c.scoring_budget_usd, c.agent_budget_usd] for k, c in v.VARIANTS.items()}))";
    const python = existsSync(path.resolve(family.dir, "../../.venv/bin/python")) ? path.resolve(family.dir, "../../.venv/bin/python") : "python3";
    const budgets = JSON.parse(execFileSync(python, ["-c", script], { cwd: path.join(family.dir, "grader"), encoding: "utf8" })) as Record<
      string,
      [number | null, number]
    >;
    for (const variant of ["mini", "gpu", "paper"] as const) {
      const numbers = VARIANT_NUMBERS[variant];
      expect([numbers.scoringBudgetUsd, numbers.agentBudgetUsd]).toEqual(budgets[variant]);
      const text = implementationOf(variant).instructions("main");
      expect(text).toContain(`held-out test set of ${numbers.hidden}\nproblems`);
      expect(text).toContain(`budget of $${numbers.agentBudgetUsd.toFixed(2)} for the whole task`);
      expect(text).not.toMatch(/\{\w+\}|<!--/);
      expect(text).not.toContain("withheld");
    }
    expect(implementationOf("mini").instructions("main")).toContain("own model budget of $0.60");
    expect(implementationOf("paper").instructions("main")).toContain("no credit limit of its own");
    expect(implementationOf("mini").instructions("hidden_score")).toContain("will not show you the score value");
  });

  test("prepare hands the sandbox the cached build (hidden split protected, no reference) and the Rust toolchain", async () => {
    const prepared = await prepare("mini");
    expect(readdirSync(prepared.workspace!).sort()).toEqual(["data", "rcc_module_runner.py", "rust_codecontests_utils.py"]);
    expect(readdirSync(prepared.protected as string).sort()).toEqual(["bin", "build.json", "model", "problems", "test.jsonl"]);
    expect(
      readFileSync(path.join(prepared.protected as string, "test.jsonl"), "utf8")
        .trim()
        .split("\n"),
    ).toHaveLength(44);
    const sysroot = execFileSync("rustc", ["--print", "sysroot"], { encoding: "utf8" }).trim();
    if (!sysroot.startsWith("/usr")) {
      expect(prepared.mounts).toEqual([{ source: sysroot, target: SANDBOX_RUST }]);
      expect(prepared.path).toEqual([`${SANDBOX_RUST}/bin`]);
    }
    expect(prepared.env?.REBENCH_RUSTC).toMatch(/\/bin\/rustc$/);
    expect(await variantBuild("mini")).toBe(path.dirname(prepared.workspace!)); // cached: the same folder again
  });

  test("a subset build keeps that many hidden problems spread over the ratings", async () => {
    const subset = subsetBuild(await variantBuild("mini"), 12);
    const ratings = readFileSync(path.join(subset, "protected", "test.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { cf_rating: number }).cf_rating);
    expect(ratings).toHaveLength(12);
    expect(Math.max(...ratings) - Math.min(...ratings)).toBeGreaterThanOrEqual(600);
  });

  test("the reference replay uploads the reference scaffold from the build, scores and submits", () => {
    const spec = { environment: "rust_codecontests", variant: "mini", task: "main", config: { actions: "reference" } } as unknown as RunSpec;
    const steps = replayActionsFor(spec);
    expect(steps.map((s) => s.tool)).toEqual(["python", "score", "submit"]);
    const code = (steps[0] as { input: { code: string } }).input.code;
    expect(code).toContain('pathlib.Path("solution/solve_code_contests_rust.py")');
    const uploaded = Buffer.from(/b64decode\("([^"]*)"\)/.exec(code)![1]!, "base64").toString("utf8");
    expect(uploaded).toContain("async def generate_solution(client, semaphore, problem)");
    expect(uploaded).toContain("e8df3d4b-325b-49c6-a0a8-c490eee4a85f");
    // The reference lives only in the encrypted archive and the build; the repository has no plain copy.
    expect(existsSync(path.join(family.dir, "reference", "solve_code_contests_rust.py"))).toBe(false);
  });
});
