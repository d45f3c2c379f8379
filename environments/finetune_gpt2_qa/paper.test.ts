/**
 * @module
 * The paper variant's wiring, without a sandbox: its implementation (its own set-up and grader, no assets, upstream's
 * text, the host inputs' `prepare`), what `prepare` stages, mounts and names, the registered family declaring it
 * unavailable with its reason, and the placeholder reference failing clearly. grader/paper*.py are tested on stand-ins
 * in tests/test_finetune_gpt2_qa_paper.py.
 * Canary dcc63ee1-bf38-4ac8-8730-70e6939b4951: this string marks rebench environment files; keep them out of training data.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { InvalidInputError, parseActions, ReferenceStep, readActionsText } from "../../src/core/index.js";
import { resolveReferenceSteps } from "../../src/environments/reference-actions.js";
import { tempDir } from "../../test/helpers/tmp.js";
import { defineFinetuneGpt2Qa, family } from "./family.js";
import { JUDGE_MODEL, PAPER_INPUTS, PAPER_MOUNTS, preparePaper } from "./paper-inputs.js";

const offered = defineFinetuneGpt2Qa();

function paperImplementation() {
  const availability = offered.variants.paper.availability;
  if (availability.status !== "available") throw new Error(`paper is not available: ${availability.reason}`);
  return availability.implementation;
}

/** A host as the operator prepares it: the two models, Alpaca and the judge's key. */
function host() {
  const dir = tempDir("rebench-gpt2qa-paper-");
  const models = path.join(dir, "models");
  mkdirSync(path.join(models, "gpt2-xl"), { recursive: true });
  const alpaca = path.join(models, "vicgalle", "gpt2-alpaca");
  mkdirSync(alpaca, { recursive: true });
  writeFileSync(path.join(alpaca, "config.json"), '{"model_type": "gpt2"}\n');
  writeFileSync(path.join(alpaca, "model.safetensors"), "weights");
  writeFileSync(path.join(alpaca, "flax_model.msgpack"), "other framework");
  writeFileSync(path.join(dir, "alpaca.jsonl"), '{"instruction": "Say hi.", "input": "", "output": "Hi.", "text": "..."}\n');
  writeFileSync(path.join(dir, "key"), "sk-judge-secret\n");
  const env = {
    REBENCH_HF_MODELS: models,
    REBENCH_ALPACA: path.join(dir, "alpaca.jsonl"),
    REBENCH_GPT2_QA_JUDGE_URL: "https://judge.example/v1",
    REBENCH_GPT2_QA_JUDGE_KEY_FILE: path.join(dir, "key"),
  };
  return { dir, models, env, home: path.join(dir, "home") };
}

describe("finetune_gpt2_qa paper variant", () => {
  test("is implemented with its own set-up and grader, no assets, the jail and a prepare hook", () => {
    const implementation = paperImplementation();
    expect(implementation.assets).toEqual([]);
    expect(implementation.setup?.command).toEqual(["python3", "grader/paper_setup.py", "--profile", "paper"]);
    expect(implementation.grader.command).toEqual(["python3", "grader/paper_score.py"]);
    expect(implementation.prepare).toBeTypeOf("function");
    expect(implementation.isolation).toEqual({ jail: true });
    for (const file of ["paper.py", "paper_setup.py", "paper_score.py", "openai_judge.py", "judge_service.py"]) {
      expect(existsSync(path.join(offered.dir, "grader", file)), file).toBe(true);
    }
    const text = implementation.instructions("main");
    for (const words of ["gpt2-xl", "Llama-3-8B-Instruct", "512 held-out Alpaca prompts", "gpt2-alpaca", "up to 60", "save_pretrained"]) {
      expect(text).toContain(words);
    }
    expect(implementation.instructions("hidden_score")).toContain("are not shown to you");
    expect(offered.variants.paper.normalization).toMatchObject({ start: 0.54, reference: 0.85, source: "paper" });
    expect(offered.variants.paper.manifest.resources.gpu?.countRange).toEqual([2, 2]);
    expect(offered.variants.paper.manifest.timeouts.scoreSeconds).toBe(900);
  });

  test("the registered family declares it unavailable, saying why", () => {
    const availability = family.variants.paper.availability;
    expect(availability.status).toBe("unavailable");
    if (availability.status === "unavailable") expect(availability.reason).toMatch(/stand-ins.*no network/);
    expect(family.variants.paper.normalization).toMatchObject({ start: 0.54, reference: 0.85 });
  });

  test("prepare stages Alpaca, gpt2-alpaca and the judge for the grader only and mounts gpt2-xl", () => {
    const { dir, models, env, home } = host();
    const prepared = preparePaper(env, home);
    const inputs = path.join(prepared.protected!, PAPER_INPUTS);
    expect(readFileSync(path.join(inputs, "alpaca-rows.json"), "utf8")).toBe(readFileSync(env.REBENCH_ALPACA, "utf8"));
    expect(readdirSync(path.join(inputs, "hf-models", "vicgalle", "gpt2-alpaca")).sort()).toEqual(["config.json", "model.safetensors"]);
    expect(JSON.parse(readFileSync(path.join(inputs, "judge.json"), "utf8"))).toEqual({
      base_url: "https://judge.example/v1",
      model: JUDGE_MODEL,
      key_file: "judge_key",
    });
    expect(readFileSync(path.join(inputs, "judge_key"), "utf8")).toBe("sk-judge-secret\n");
    expect(statSync(path.join(inputs, "judge_key")).mode & 0o077).toBe(0);
    expect(statSync(prepared.protected!).mode & 0o077).toBe(0);
    expect(prepared.mounts).toEqual([{ source: path.join(models, "gpt2-xl"), target: `${PAPER_MOUNTS.models}/gpt2-xl` }]);
    expect(prepared.env).toEqual({ REBENCH_HF_MODELS: PAPER_MOUNTS.models });
    expect(prepared.workspace).toBe(path.join(offered.dir, "workspace_paper"));
    expect(readdirSync(prepared.workspace!).sort()).toEqual(["model.py", "rl_finetune.py"]);
    // Nothing every user sees names the key, Alpaca or the supervised reference.
    const open = JSON.stringify([prepared.env, prepared.mounts]);
    for (const secret of ["sk-judge-secret", "alpaca.jsonl", "gpt2-alpaca"]) expect(open).not.toContain(secret);
    expect(preparePaper(env, home).protected).toBe(prepared.protected); // cached
    writeFileSync(path.join(dir, "key"), "sk-rotated\n");
    const rotated = preparePaper(env, home).protected!;
    expect(rotated).not.toBe(prepared.protected);
    expect(existsSync(prepared.protected!)).toBe(false); // the stale staging (and its old key) is removed
    expect(preparePaper({ ...env, REBENCH_GPT2_QA_JUDGE_KEY_FILE: undefined, REBENCH_GPT2_QA_JUDGE_MODEL: "llama3" }, home).protected).not.toBe(rotated);
  });

  test("prepare says what to set where the host lacks an input", () => {
    const { dir, env, home } = host();
    expect(() => preparePaper({ ...env, REBENCH_ALPACA: undefined }, home)).toThrow(InvalidInputError);
    expect(() => preparePaper({ ...env, REBENCH_ALPACA: undefined }, home)).toThrow(/REBENCH_ALPACA is not set/);
    expect(() => preparePaper({ ...env, REBENCH_HF_MODELS: dir }, home)).toThrow(/gpt2-xl \(from REBENCH_HF_MODELS\) is not a folder/);
    expect(() => preparePaper({ ...env, REBENCH_GPT2_QA_JUDGE_URL: undefined }, home)).toThrow(/REBENCH_GPT2_QA_JUDGE_URL is not set/);
    expect(() => preparePaper({ ...env, REBENCH_GPT2_QA_JUDGE_URL: "judge.example" }, home)).toThrow(/not an http\(s\) URL/);
    expect(() => preparePaper({ ...env, REBENCH_GPT2_QA_JUDGE_KEY_FILE: path.join(dir, "nope") }, home)).toThrow(/is not a file/);
  });

  test("the placeholder reference fails saying there is none", () => {
    const reference = paperImplementation().reference;
    const file = path.join(offered.dir, reference.actions);
    const steps = parseActions(readActionsText(file), file, ReferenceStep);
    expect(() => resolveReferenceSteps(offered.dir, reference, steps)).toThrow(/has no reference solution.*--actions start/);
  });
});
