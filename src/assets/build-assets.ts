/**
 * @module
 * Build assets through the Python builder (`python -m rebench_env.assets build`) and return its outcome,
 * with the builder's failures mapped to rebench's error classes. Progress lines stream to `onProgress`.
 */
import { createRequire } from "node:module";
import {
  type AssetBuildOutcome,
  AssetBuildOutcome as AssetBuildOutcomeSchema,
  type AssetVariant,
  InfrastructureError,
  NotFoundError,
  parseWith,
  UnavailableError,
} from "../core/index.js";
import { assetsHome, rebenchHome } from "./home.js";
import { runPythonForResult } from "./python.js";

export interface BuildAssetsOptions {
  /** Which set to build when `only` is empty (default `mini`). */
  variant?: AssetVariant;
  /** Asset names to build (with their dependencies) instead of a whole variant. */
  only?: readonly string[];
  /** rebench home (default `$REBENCH_HOME`, else `~/.rebench`); assets go to `<home>/assets`. */
  home?: string;
  /** CPU model builds at once (default 2, one thread each). */
  jobs?: number;
  /** Each progress line of the builder, e.g. `[mini-small] step 100/600 loss 5.1234 (40s)`. */
  onProgress?: (line: string) => void;
  signal?: AbortSignal;
}

/** The npm package tiktoken's GPT-2 ranks, which the builder turns into a file Python's tiktoken loads. */
export function gpt2RanksJson(): string {
  return createRequire(import.meta.url).resolve("tiktoken/encoders/gpt2.json");
}

/** Build what is missing or stale; resolves with the outcome, throws a RebenchError on failure. */
export async function buildAssets(options: BuildAssetsOptions = {}): Promise<AssetBuildOutcome> {
  const home = options.home ?? rebenchHome();
  const args = ["build", "--home", home, "--gpt2-json", gpt2RanksJson()];
  if (options.only && options.only.length > 0) for (const name of options.only) args.push("--only", name);
  else args.push("--variant", options.variant ?? "mini");
  if (options.jobs !== undefined) args.push("--jobs", String(options.jobs));
  const { code, result } = await runPythonForResult("rebench_env.assets", args, {
    ...(options.onProgress ? { onLine: options.onProgress } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (options.signal?.aborted) throw new InfrastructureError("the asset build was stopped; nothing half-built was kept");
  if (result === undefined) {
    const how = code > 128 ? `was killed (exit code ${code})` : `exited with code ${code} without a result`;
    throw new InfrastructureError(`the asset builder ${how}; nothing half-built was kept`, {
      hint: "run the build again: finished assets are kept; the output above says why it stopped",
    });
  }
  const outcome = parseWith(AssetBuildOutcomeSchema, result, "the asset builder's result");
  if (!outcome.ok) throw errorFor(outcome, assetsHome(home));
  return outcome;
}

function errorFor(outcome: AssetBuildOutcome, where: string): Error {
  const error = outcome.error ?? { type: "failed" as const, message: "the asset build failed" };
  switch (error.type) {
    case "unknown_asset":
      return new NotFoundError(error.message, { hint: "rebench assets list --catalog shows every name" });
    case "inputs_missing":
      return new UnavailableError(error.message, { hint: "scripts/install-system installs the Debian texts" });
    case "device_unavailable":
      return new UnavailableError(error.message, { hint: "build the gpu assets on a machine with a CUDA GPU" });
    case "failed":
      return new InfrastructureError(`building assets in ${where} failed: ${error.message}`, {
        hint: "the builder's output above has the traceback; nothing half-built was kept",
      });
  }
}
