import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { REPO_ROOT } from "./helpers/cli.js";

// The README's commands run the compiled CLI (`node bin/rebench.js`), whose modules live under dist/
// while each environment's grader, workspace and calibration.json stay in environments/.
describe("the compiled CLI", () => {
  test("finds every environment's folder, calibration and files from dist/", { timeout: 120_000 }, () => {
    execFileSync("npm", ["run", "--silent", "build"], { cwd: REPO_ROOT, stdio: "pipe" });
    const listed = JSON.parse(execFileSync(process.execPath, ["bin/rebench.js", "environments", "list", "--json"], { cwd: REPO_ROOT, encoding: "utf8" })) as {
      name: string;
      variants: Record<string, { available: boolean; normalization: unknown; calibratedClasses: string[] }>;
    }[];
    expect(listed.length).toBeGreaterThanOrEqual(7); // the paper's seven, then any added (docs/adding-an-environment.md)
    const kernel = listed.find((f) => f.name === "optimize_kernel")!;
    expect(kernel.variants.gpu!.calibratedClasses).toContain("NVIDIA H200"); // environments/optimize_kernel/calibration.json
    // `show` renders each available variant's instructions, which some environments read from their folder.
    for (const family of listed) {
      for (const [variant, definition] of Object.entries(family.variants)) {
        if (!definition.available) continue;
        const shown = execFileSync(process.execPath, ["bin/rebench.js", "environments", "show", family.name, "--variant", variant], {
          cwd: REPO_ROOT,
          encoding: "utf8",
        });
        expect(shown, `${family.name}/${variant}`).toMatch(/available:\s+yes[\s\S]*Instructions:\n\S/);
      }
    }
  });

  test("reports the commit it was built from (dist/build.json), not the checkout's", { timeout: 120_000 }, () => {
    execFileSync("npm", ["run", "--silent", "build"], { cwd: REPO_ROOT, stdio: "pipe" });
    const stampPath = path.join(REPO_ROOT, "dist", "build.json");
    const stamp = readFileSync(stampPath, "utf8");
    const head = execFileSync("git", ["rev-parse", "--short=12", "HEAD"], { cwd: REPO_ROOT, encoding: "utf8" }).trim();
    expect(JSON.parse(stamp)).toMatchObject({ commit: head });
    const probe = () =>
      JSON.parse(
        execFileSync(
          process.execPath,
          ["--input-type=module", "-e", "const m = await import('./dist/src/core/probe-machine.js'); console.log(JSON.stringify(await m.probeMachine()))"],
          { cwd: REPO_ROOT, encoding: "utf8" },
        ),
      ) as { rebenchCommit: string };
    try {
      writeFileSync(stampPath, JSON.stringify({ commit: "0123456789ab", dirty: true }));
      expect(probe().rebenchCommit).toBe("0123456789ab-dirty");
    } finally {
      writeFileSync(stampPath, stamp);
    }
    expect(probe().rebenchCommit).toMatch(new RegExp(`^${head}(-dirty)?$`));
  });
});
