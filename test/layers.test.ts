import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { layerViolations, readLayerTable } from "./helpers/layers.js";
import { tempDir } from "./helpers/tmp.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TABLE = readLayerTable(path.join(ROOT, "docs", "architecture.md"));

describe("the layers of docs/architecture.md", () => {
  test("the table names every folder of src/, and the environments", () => {
    expect([...TABLE.keys()].sort()).toEqual(
      [
        "src/agents",
        "src/analysis",
        "src/assets",
        "src/cli",
        "src/core",
        "src/environments",
        "src/runs",
        "src/sandbox",
        "src/scoring",
        "src/slurm",
        "src/review",
        "src/store",
        "src/web",
        "environments",
      ].sort(),
    );
    expect(TABLE.get("src/core")).toEqual(new Set());
    expect(TABLE.get("src/agents")).toEqual(new Set(["src/core"]));
  });

  test("no module of the tree imports a layer its row does not name", () => {
    expect(layerViolations(ROOT, TABLE)).toEqual([]);
  });

  test("a forbidden import is found: a scaffold importing the run layer, a dynamic import of the CLI", () => {
    const root = tempDir();
    const write = (file: string, text: string) => {
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      writeFileSync(path.join(root, file), text);
    };
    write("src/agents/bad-agent.ts", 'import { drive } from "../runs/drive-run.js";\nimport type { Agent } from "../core/index.js";\n');
    write("src/analysis/late.ts", 'const cli = await import("../cli/main.js");\n');
    write("src/agents/bad-agent.test.ts", 'import { drive } from "../runs/drive-run.js";\n'); // tests are exempt
    write("environments/x/family.ts", 'import { y } from "../../src/runs/run-environment.js";\nimport { z } from "./helper.js";\n');
    expect(layerViolations(root, TABLE)).toEqual([
      { file: "src/agents/bad-agent.ts", imports: "../runs/drive-run.js", from: "src/agents", to: "src/runs" },
      { file: "src/analysis/late.ts", imports: "../cli/main.js", from: "src/analysis", to: "src/cli" },
      { file: "environments/x/family.ts", imports: "../../src/runs/run-environment.js", from: "environments", to: "src/runs" },
    ]);
  });
});
