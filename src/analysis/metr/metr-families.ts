/**
 * @module
 * METR's task family names for the seven RE-Bench environments, and ours.
 */
import type { PaperEnvironment } from "../../core/index.js";

/** METR family → our environment name. Rows of any other family are skipped (and counted) on import. */
export const METR_FAMILIES: Readonly<Record<string, PaperEnvironment>> = Object.freeze({
  ai_rd_optimize_llm_foundry: "optimize_llm_foundry",
  ai_rd_triton_cumsum: "optimize_kernel",
  ai_rd_fix_embedding: "fix_embedding",
  ai_rd_small_scaling_law: "scaling_law",
  ai_rd_restricted_mlm: "restricted_mlm",
  ai_rd_nanogpt_chat_rl: "finetune_gpt2_qa",
  ai_rd_rust_codecontests_inference: "rust_codecontests",
});
