/**
 * @module
 * What is built: every `<assets home>/<name>/asset.json`, read straight from disk (no Python), with the
 * asset's total size. Unreadable records are reported, not skipped silently.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { AssetRecord } from "../core/index.js";
import { assetsHome } from "./home.js";

export interface BuiltAsset {
  record: AssetRecord;
  /** The asset's folder (`<assets home>/<name>`). */
  path: string;
  /** Sum of its files' sizes. */
  bytes: number;
}

export interface AssetListing {
  home: string;
  assets: BuiltAsset[];
  /** Folders whose `asset.json` is missing or malformed, with the reason. */
  broken: { name: string; reason: string }[];
}

export function listAssets(home?: string): AssetListing {
  const root = assetsHome(home);
  const listing: AssetListing = { home: root, assets: [], broken: [] };
  if (!existsSync(root)) return listing;
  for (const name of readdirSync(root).sort()) {
    if (name.startsWith(".")) continue;
    const folder = path.join(root, name);
    const file = path.join(folder, "asset.json");
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, "utf8"));
    } catch (error) {
      listing.broken.push({ name, reason: `cannot read ${file}: ${(error as Error).message}` });
      continue;
    }
    const parsed = AssetRecord.safeParse(raw);
    if (!parsed.success) {
      listing.broken.push({ name, reason: `${file} is not an asset record: ${parsed.error.issues[0]?.message}` });
      continue;
    }
    const bytes = Object.values(parsed.data.files).reduce((sum, f) => sum + f.bytes, 0);
    listing.assets.push({ record: parsed.data, path: folder, bytes });
  }
  return listing;
}
