/**
 * @module
 * The builder's Python finds rebench_env from the checkout even where the Python environment does not
 * install it (a GPU machine's own venv linked as .venv, or REBENCH_PYTHON).
 */
import { existsSync } from "node:fs";
import { afterEach, describe, expect, test } from "vitest";
import { runPythonModule } from "./python.js";

describe("runPythonModule", () => {
  const saved = process.env.REBENCH_PYTHON;
  afterEach(() => {
    if (saved === undefined) delete process.env.REBENCH_PYTHON;
    else process.env.REBENCH_PYTHON = saved;
  });

  test.skipIf(!existsSync("/usr/bin/python3"))("imports rebench_env with a system Python that does not have it installed", async () => {
    process.env.REBENCH_PYTHON = "/usr/bin/python3";
    const lines: string[] = [];
    const code = await runPythonModule("rebench_env.secrets", ["--help"], { onLine: (line) => lines.push(line) });
    expect(lines.join("\n")).not.toContain("No module named 'rebench_env'");
    expect(code, lines.join("\n")).toBe(0);
  });
});
