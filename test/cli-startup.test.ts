import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { COMMAND_SUMMARIES } from "../src/cli/command-summaries.js";
import { buildProgram } from "../src/cli/main.js";
import { REPO_ROOT } from "./helpers/cli.js";
import { tempDir } from "./helpers/tmp.js";

const io = { out: () => {}, err: () => {}, interactive: false };

describe("CLI start-up", () => {
  test("`rebench --help` lists every command without loading any command's module", { timeout: 120_000 }, () => {
    execFileSync("npm", ["run", "--silent", "build"], { cwd: REPO_ROOT, stdio: "pipe" });
    const dir = tempDir();
    const hooks = path.join(dir, "hooks.mjs");
    writeFileSync(hooks, "export async function resolve(s, c, next) { const r = await next(s, c); process.stderr.write(`LOADED ${r.url}\\n`); return r; }\n");
    const register = path.join(dir, "register.mjs");
    writeFileSync(register, `import { register } from "node:module"; register(${JSON.stringify(`file://${hooks}`)});\n`);
    // The hook writes every module it resolves to stderr, which is what we read (stdout, the help, is dropped).
    const modules = (...args: string[]) =>
      execFileSync("sh", ["-c", `"${process.execPath}" --import "${register}" bin/rebench.js ${args.join(" ")} 2>&1 >/dev/null`], {
        cwd: REPO_ROOT,
        encoding: "utf8",
      });
    const result = modules("--help");
    const loaded = result
      .split("\n")
      .filter((l) => l.startsWith("LOADED "))
      .map((l) => l.slice(7));
    expect(loaded.some((url) => url.endsWith("/dist/src/cli/main.bundle.js"))).toBe(true); // main.js with commander inside (scripts/bundle-cli.mjs)
    expect(loaded.filter((url) => /\/commands\/|better-sqlite3|\/environments\/|\/analysis\/|zod/.test(url))).toEqual([]);
    const report = modules("report", "--help");
    expect(report).toMatch(/\/cli\/report-bundle\/report\.js/); // the bundle of report's modules (test/report-bundle.test.ts)
    expect(report).not.toMatch(/\/commands\/human\.js/);
  });

  test("each command's module describes it with the summary `rebench --help` lists", async () => {
    const program = await buildProgram(io, [], { all: true });
    for (const [name, summary] of Object.entries(COMMAND_SUMMARIES)) {
      const command = program.commands.find((c) => c.name() === name);
      expect(command?.description(), name).toBe(summary);
      expect(command!.options.length + command!.commands.length, `${name} loaded in full`).toBeGreaterThan(0);
    }
  });
});
