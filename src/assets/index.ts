/**
 * @module
 * Offline assets (corpus, tokenizers, token files, small pretrained GPTs): building them through the
 * Python builder and listing what is built.
 */
export { type BuildAssetsOptions, buildAssets, gpt2RanksJson } from "./build-assets.js";
export { readAssetCatalog } from "./catalog.js";
export { corpusSourcePaths } from "./hidden-sources.js";
export { assetsHome, rebenchHome } from "./home.js";
export { type AssetListing, type BuiltAsset, listAssets } from "./list-assets.js";
export { pythonExecutable, repoRoot, runPythonForResult, runPythonModule } from "./python.js";
