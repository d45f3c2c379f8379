import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { REPO_ROOT } from "./helpers/cli.js";
import { tempDir } from "./helpers/tmp.js";

// scripts/bootstrap installs with `npm ci`, which refuses a lock file that is not the one npm produces for
// package.json (the committed one once lacked vite's optional Windows-only dependency, so bootstrap's
// `npm install` rewrote it on every fresh clone).
const dir = tempDir("rebench-lock-");

describe("package-lock.json", () => {
  test("npm ci accepts it: it is in sync with package.json", { timeout: 120_000 }, () => {
    for (const file of ["package.json", "package-lock.json"]) copyFileSync(path.join(REPO_ROOT, file), path.join(dir, file));
    const result = spawnSync("npm", ["ci", "--dry-run", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"], { cwd: dir, encoding: "utf8" });
    expect(result.status, result.stderr).toBe(0);
    expect(existsSync(path.join(dir, "node_modules"))).toBe(false);
  });
});
