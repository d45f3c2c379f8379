import { existsSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { PAPER_ENVIRONMENTS, VARIANTS } from "../core/index.js";
import { getEnvironment, getVariant, listEnvironments, requireImplementation } from "./registry.js";

describe("the environment registry", () => {
  test("holds the paper's seven environments in its order, each with mini, gpu and paper variants", () => {
    expect(
      listEnvironments()
        .map((f) => f.name)
        .filter((n) => (PAPER_ENVIRONMENTS as readonly string[]).includes(n)),
    ).toEqual([...PAPER_ENVIRONMENTS]);
    for (const family of listEnvironments()) {
      expect(Object.keys(family.variants).sort()).toEqual([...VARIANTS].sort());
      // An environment added beside the paper's (docs/adding-an-environment.md) need not have a paper variant.
      if ((PAPER_ENVIRONMENTS as readonly string[]).includes(family.name)) expect(family.variants.paper.normalization?.source).toBe("paper");
    }
  });

  test("every folder of environments/ with a family.ts is listed: its one line in environments/index.ts registers it", () => {
    const root = fileURLToPath(new URL("../../environments/", import.meta.url));
    const folders = readdirSync(root).filter((name) => existsSync(`${root}${name}/family.ts`));
    expect(folders.length).toBeGreaterThanOrEqual(7);
    expect(
      listEnvironments()
        .map((f) => f.name)
        .sort(),
    ).toEqual(folders.sort());
  });

  test("paper variants carry the paper's start and reference raw scores", () => {
    const paper = (name: string) => getVariant(name, "paper").normalization;
    expect(paper("optimize_kernel")).toMatchObject({ start: 1.5535302804958044, reference: 0.4700036292457356 });
    expect(paper("optimize_llm_foundry")).toMatchObject({ start: 5.605802066295998, reference: 4.543294782270004 });
    expect(paper("fix_embedding")).toMatchObject({ start: 2.196224077002636, reference: 0.2623642644674909 });
    expect(paper("scaling_law")).toMatchObject({ start: 0.2356, reference: 0.84 });
    expect(paper("restricted_mlm")).toMatchObject({ start: 1.8141730640649552, reference: 1.1314021114911004 });
    expect(paper("finetune_gpt2_qa")).toMatchObject({ start: 0.54, reference: 0.85 });
    expect(paper("rust_codecontests")).toMatchObject({ start: 0, reference: 0.12727272727272726 });
  });

  test("scaling_law has only the main task and hides its score; the others offer hidden_score", () => {
    const scaling = getEnvironment("scaling_law");
    expect(scaling.tasks).toEqual(["main"]);
    expect(scaling.variants.mini.manifest.scoring).toMatchObject({ visibleToAgent: false, aggregation: "last", direction: "max" });
    expect(getEnvironment("optimize_kernel").tasks).toEqual(["main", "hidden_score"]);
  });

  test("unknown names and variants fail with the list of known ones", () => {
    expect(() => getEnvironment("triton_cumsum")).toThrow(/unknown environment "triton_cumsum"/);
    expect(() => getVariant("optimize_kernel", "huge")).toThrow(/unknown variant "huge"/);
  });

  test("each family has its own canary, and no two share one", () => {
    const canaries = listEnvironments().map((f) => f.variants.mini.manifest.canary);
    expect(canaries.length).toBeGreaterThanOrEqual(PAPER_ENVIRONMENTS.length);
    expect(new Set(canaries).size).toBe(canaries.length);
  });

  test("an unavailable variant explains itself", () => {
    const unavailable = listEnvironments()
      .flatMap((f) => VARIANTS.map((v) => ({ f, v, d: f.variants[v] })))
      .find(({ d }) => d.availability.status === "unavailable");
    if (!unavailable) return;
    expect(() => requireImplementation(unavailable.f.name, unavailable.v)).toThrow(/is not available: /);
  });
});
