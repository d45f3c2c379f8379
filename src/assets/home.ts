/**
 * @module
 * Where assets live: `<rebench home>/assets`, the home being `$REBENCH_HOME` or `~/.rebench`
 * (the same rule as `rebench_env.assets.assets_home` in Python).
 */
import path from "node:path";
import { rebenchHome } from "../core/home.js";

export { rebenchHome };

export function assetsHome(home: string = rebenchHome()): string {
  return path.join(home, "assets");
}
