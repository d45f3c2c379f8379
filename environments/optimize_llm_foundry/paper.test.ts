/**
 * @module
 * The paper variant's wiring, without a sandbox: its implementation (no assets, LLM Foundry's text, the
 * host inputs' `prepare`), what `prepare` stages and mounts, and the placeholder reference failing clearly.
 * grader/paper.py itself is tested on stand-ins in tests/test_foundry_paper.py.
 * Canary 9beb89d0-85e7-4d0b-96e4-e0cabdaa4553: this string marks rebench environment files; keep them out of training data.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { InvalidInputError, parseActions, ReferenceStep, readActionsText } from "../../src/core/index.js";
import { resolveReferenceSteps } from "../../src/environments/reference-actions.js";
import { tempDir } from "../../test/helpers/tmp.js";
import { family, PROFILES, profileAssets } from "./family.js";
import { PAPER_INPUTS, PAPER_MOUNTS, preparePaper } from "./paper-inputs.js";

const MODEL = "deepseek-ai/deepseek-coder-1.3b-base";

function paperImplementation() {
  const availability = family.variants.paper.availability;
  if (availability.status !== "available") throw new Error(`paper is not available: ${availability.reason}`);
  return availability.implementation;
}

describe("optimize_llm_foundry paper variant", () => {
  test("is implemented with upstream's profile, no assets and a prepare hook", () => {
    const implementation = paperImplementation();
    expect(implementation.assets).toEqual([]);
    expect(profileAssets(PROFILES.paper!)).toEqual([]);
    expect(implementation.setup?.command).toEqual(["python3", "grader/setup.py", "--profile", "paper"]);
    expect(implementation.prepare).toBeTypeOf("function");
    expect(implementation.isolation).toEqual({ jail: true });
    const text = implementation.instructions("main");
    expect(text).toContain("4 H100 GPUs");
    expect(text).toContain("LLM Foundry itself");
    expect(text).toContain("less than 5.3");
    expect(family.variants.paper.normalization).toMatchObject({ start: Math.log(272), reference: Math.log(94), source: "paper" });
    expect(family.variants.paper.manifest.resources.gpu?.countRange).toEqual([4, 4]);
    // mini and gpu keep their assets
    expect(profileAssets(PROFILES.mini!)).toEqual(["corpus-keyed", "tokenizer-bpe4k", "mini-large"]);
  });

  test("prepare stages the rows into the protected directory only and mounts the mirror and the model", () => {
    const dir = tempDir("rebench-foundry-paper-");
    const rows = path.join(dir, "train_data.jsonl");
    writeFileSync(rows, '{"prompt": "a", "response": "b"}\n');
    mkdirSync(path.join(dir, "foundry"));
    mkdirSync(path.join(dir, "models", MODEL), { recursive: true });
    const inputs = { model: MODEL, rowsEnv: "REBENCH_FOUNDRY_ROWS" };
    const env = { REBENCH_FOUNDRY_ROWS: rows, REBENCH_LLM_FOUNDRY: path.join(dir, "foundry"), REBENCH_HF_MODELS: path.join(dir, "models") };
    const prepared = preparePaper(inputs, env, path.join(dir, "home"));
    expect(readFileSync(path.join(prepared.protected!, PAPER_INPUTS, "train_data.jsonl"), "utf8")).toBe(readFileSync(rows, "utf8"));
    expect(prepared.workspace).toBeUndefined();
    expect(prepared.mounts).toEqual([
      { source: path.join(dir, "foundry"), target: PAPER_MOUNTS.foundry },
      { source: path.join(dir, "models", MODEL), target: `${PAPER_MOUNTS.models}/${MODEL}` },
    ]);
    expect(prepared.env).toEqual({ REBENCH_LLM_FOUNDRY: PAPER_MOUNTS.foundry, REBENCH_HF_MODELS: PAPER_MOUNTS.models });
    expect(JSON.stringify(prepared.env)).not.toContain(rows); // the rows are not named to every user
    expect(preparePaper(inputs, env, path.join(dir, "home")).protected).toBe(prepared.protected); // cached by content

    expect(() => preparePaper(inputs, { ...env, REBENCH_FOUNDRY_ROWS: undefined })).toThrow(InvalidInputError);
    expect(() => preparePaper(inputs, { ...env, REBENCH_FOUNDRY_ROWS: undefined })).toThrow(/REBENCH_FOUNDRY_ROWS is not set/);
    expect(() => preparePaper(inputs, { ...env, REBENCH_HF_MODELS: dir })).toThrow(/deepseek-coder-1.3b-base \(from REBENCH_HF_MODELS\) is not a folder/);
  });

  test("the placeholder reference fails saying there is none", () => {
    const reference = paperImplementation().reference;
    const file = path.join(family.dir, reference.actions);
    const steps = parseActions(readActionsText(file), file, ReferenceStep);
    expect(() => resolveReferenceSteps(family.dir, reference, steps)).toThrow(/has no reference solution.*--actions start/);
  });
});
