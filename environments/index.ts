/**
 * @module
 * Every environment of rebench, one line each: adding an environment is its folder and its line here
 * (docs/adding-an-environment.md). src/environments/registry.ts registers what this module exports, the
 * paper's seven in the paper's order (src/core/paper-environments.ts), then the others by name.
 */
export { family as finetuneGpt2Qa } from "./finetune_gpt2_qa/family.js";
export { family as fixEmbedding } from "./fix_embedding/family.js";
export { family as optimizeKernel } from "./optimize_kernel/family.js";
export { family as optimizeLlmFoundry } from "./optimize_llm_foundry/family.js";
export { family as restrictedMlm } from "./restricted_mlm/family.js";
export { family as rustCodecontests } from "./rust_codecontests/family.js";
export { family as scalingLaw } from "./scaling_law/family.js";
