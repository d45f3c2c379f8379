/**
 * @module
 * The builder's catalog (the one table in `python/rebench_env/assets/catalog.py`): every asset name, its
 * kind, dependencies and the variants that build it.
 */
import { z } from "zod";
import { AssetCatalogEntry, InfrastructureError, parseWith } from "../core/index.js";
import { runPythonForResult } from "./python.js";

export async function readAssetCatalog(): Promise<AssetCatalogEntry[]> {
  const output: string[] = [];
  const { code, result } = await runPythonForResult("rebench_env.assets", ["catalog"], {
    onLine: (line) => output.push(line),
  });
  if (code !== 0 || result === undefined) {
    throw new InfrastructureError(`the asset catalog failed (exit ${code}):\n${output.join("\n")}`);
  }
  return parseWith(z.object({ assets: z.array(AssetCatalogEntry) }), result, "the asset catalog").assets;
}
