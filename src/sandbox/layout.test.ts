import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { tempDir } from "../../test/helpers/tmp.js";
import { venvBasePrefix } from "./layout.js";

const root = tempDir("rebench-layout-");

function venvWithHome(name: string, home: string | undefined): string {
  const venv = path.join(root, name);
  mkdirSync(venv, { recursive: true });
  if (home !== undefined) writeFileSync(path.join(venv, "pyvenv.cfg"), `home = ${home}\ninclude-system-site-packages = false\nversion = 3.11.7\n`);
  return venv;
}

describe("venvBasePrefix()", () => {
  test("a venv made from a Python outside /usr (pyenv under /root) names that installation, for sandboxes to mount", () => {
    const python = path.join(root, "pyenv", "versions", "3.11.7");
    mkdirSync(path.join(python, "bin"), { recursive: true });
    expect(venvBasePrefix(venvWithHome("pyenv-venv", path.join(python, "bin")))).toBe(python);
  });

  test("a system Python, a missing installation and a venv without pyvenv.cfg need nothing more", () => {
    expect(venvBasePrefix(venvWithHome("system-venv", "/usr/bin"))).toBeUndefined();
    expect(venvBasePrefix(venvWithHome("gone-venv", path.join(root, "nowhere", "bin")))).toBeUndefined();
    expect(venvBasePrefix(venvWithHome("bare-venv", undefined))).toBeUndefined();
  });
});
