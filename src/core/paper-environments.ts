/**
 * @module
 * The paper's seven environment names, apart from src/core/ids.ts (their zod type) so that `rebench report`
 * on METR's files orders environments without loading zod.
 */

/**
 * The seven environments of the RE-Bench paper, in its order: what METR's published runs name (the importer
 * maps their task families to these) and the order reports list environments in. Not the registry: rebench's
 * environments are what src/environments/registry.ts registers, and an environment outside this list needs
 * no change here.
 */
export const PAPER_ENVIRONMENTS = [
  "optimize_llm_foundry",
  "optimize_kernel",
  "fix_embedding",
  "scaling_law",
  "restricted_mlm",
  "finetune_gpt2_qa",
  "rust_codecontests",
] as const;
