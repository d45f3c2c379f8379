/**
 * @module
 * The shapes the Python asset builder (`python -m rebench_env.assets`) writes: each asset's record
 * (`asset.json` in its folder) and the outcome of a build. `python/rebench_env/assets/store.py` and
 * `__main__.py` write them.
 */
import { z } from "zod";

export const ASSET_KINDS = ["corpus", "tokenizer", "tokens", "model"] as const;
export const AssetKind = z.enum(ASSET_KINDS);
export type AssetKind = z.infer<typeof AssetKind>;

/** The asset sets `rebench assets build --variant V` builds (`tiny` is the seconds-long one tests use). */
export const ASSET_VARIANTS = ["mini", "gpu", "tiny"] as const;
export const AssetVariant = z.enum(ASSET_VARIANTS);
export type AssetVariant = z.infer<typeof AssetVariant>;

const JsonObject = z.record(z.string(), z.unknown());

/** `asset.json`: what was built, from what (the key hashes `inputs`), and every file's size and sha256. */
export const AssetRecord = z.object({
  name: z.string().min(1),
  kind: AssetKind,
  key: z.string().regex(/^[0-9a-f]{64}$/),
  inputs: JsonObject,
  summary: JsonObject,
  files: z.record(z.string(), z.object({ bytes: z.number().int().nonnegative(), sha256: z.string() })),
  builtAt: z.string(),
  buildSeconds: z.number().nonnegative(),
  format: z.number().int(),
});
export type AssetRecord = z.infer<typeof AssetRecord>;

/** One asset in a build: `built` now, `cached` (already current), or `kept` (inputs not on this machine). */
export const AssetBuildEntry = z.object({
  name: z.string(),
  kind: AssetKind,
  status: z.enum(["built", "cached", "kept"]),
  key: z.string(),
  seconds: z.number().nonnegative(),
  path: z.string(),
  summary: JsonObject,
});
export type AssetBuildEntry = z.infer<typeof AssetBuildEntry>;

export const AssetBuildErrorType = z.enum(["unknown_asset", "inputs_missing", "device_unavailable", "failed"]);

/** What the builder writes to its `--result` file. */
export const AssetBuildOutcome = z.object({
  ok: z.boolean(),
  assets: z.array(AssetBuildEntry),
  seconds: z.number().nonnegative().optional(),
  error: z.object({ type: AssetBuildErrorType, message: z.string() }).optional(),
});
export type AssetBuildOutcome = z.infer<typeof AssetBuildOutcome>;

/** One row of the builder's catalog (`python -m rebench_env.assets catalog`): every asset it can build. */
export const AssetCatalogEntry = z.object({
  name: z.string(),
  kind: AssetKind,
  description: z.string(),
  deps: z.array(z.string()),
  variants: z.array(z.string()),
  spec: JsonObject,
});
export type AssetCatalogEntry = z.infer<typeof AssetCatalogEntry>;
