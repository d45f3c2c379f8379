import { execFile, execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { BUILT, hostileTreeCommand } from "../../test/helpers/hostile-tree.js";
import { tempDir } from "../../test/helpers/tmp.js";
import { removeTree } from "./remove-tree.js";

const root = tempDir("rebench-remove-tree-");
chmodSync(root, 0o755); // the unprivileged user's tree lives below
const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;
const TSX = fileURLToPath(new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url));
const MODULE = fileURLToPath(new URL("./remove-tree.ts", import.meta.url));

/** Run bash `command`, as `uid` when given; resolves with its stdout. */
function bash(command: string, uid?: number): Promise<string> {
  const argv = uid === undefined ? ["bash", "-c", command] : ["setpriv", `--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", "bash", "-c", command];
  return new Promise((resolve, reject) => {
    execFile(argv[0]!, argv.slice(1), { cwd: root }, (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)));
  });
}

/** Build the hostile tree at `tree` (as `uid`); returns a function that kills its background writer. */
async function build(tree: string, uid?: number): Promise<() => void> {
  const out = await bash(hostileTreeCommand(tree), uid);
  const pid = Number(BUILT.exec(out)?.[1]);
  expect(pid).toBeGreaterThan(0);
  return () => {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  };
}

describe("removeTree()", () => {
  test("removes a chain past PATH_MAX, sealed directories, a FIFO, a socket and 2,000 files while a process writes into it", async () => {
    const tree = path.join(root, "hostile");
    const stop = await build(tree);
    try {
      expect(await removeTree(tree)).toEqual({ removed: true });
      expect(existsSync(tree)).toBe(false);
    } finally {
      stop();
    }
  });

  test("removes what is left of such a tree after Node's rmSync failed on it", async () => {
    const tree = path.join(root, "premise");
    const stop = await build(tree);
    try {
      expect(() => rmSync(tree, { recursive: true, force: true })).toThrow(/ENAMETOOLONG/);
      expect(await removeTree(tree)).toEqual({ removed: true });
      expect(existsSync(tree)).toBe(false);
    } finally {
      stop();
    }
  });

  test.skipIf(!isRoot)("as an unprivileged user, also directories of its own it may not list or write (chmod 000, 0500)", async () => {
    const home = path.join(root, "nobody");
    mkdirSync(home);
    chmodSync(home, 0o777);
    const tree = path.join(home, "hostile");
    const stop = await build(tree, NOBODY);
    try {
      // rm alone is refused there (the premise of the chmod pass).
      await expect(bash(`rm -rf ${tree}`, NOBODY)).rejects.toThrow(/Permission denied/);
      const script = `import { removeTree } from ${JSON.stringify(MODULE)};\nconsole.log(JSON.stringify(await removeTree(${JSON.stringify(tree)})));\n`;
      writeFileSync(path.join(home, "remove.mts"), script);
      expect(await bash(`node --import ${TSX} ${path.join(home, "remove.mts")}`, NOBODY)).toBe('{"removed":true}\n');
      expect(existsSync(tree)).toBe(false);
    } finally {
      stop();
    }
  });

  test.skipIf(!isRoot)("never reaches into a mount: a tree with a bind mount inside is left whole, and the result says why", async () => {
    const tree = path.join(root, "mounted");
    const outside = path.join(root, "outside");
    mkdirSync(path.join(tree, "inner"), { recursive: true });
    mkdirSync(outside);
    writeFileSync(path.join(outside, "keep.txt"), "kept");
    execFileSync("mount", ["--bind", outside, path.join(tree, "inner")]);
    try {
      const result = await removeTree(tree);
      expect(result).toEqual({ removed: false, error: `a filesystem is mounted inside it: ${path.join(tree, "inner")}` });
      expect(readFileSync(path.join(outside, "keep.txt"), "utf8")).toBe("kept");
      expect(existsSync(path.join(tree, "inner", "keep.txt"))).toBe(true);
    } finally {
      execFileSync("umount", [path.join(tree, "inner")]);
    }
    expect(await removeTree(tree)).toEqual({ removed: true });
    expect(readFileSync(path.join(outside, "keep.txt"), "utf8")).toBe("kept");
  });

  test("a tree that is not there is removed already", async () => {
    expect(await removeTree(path.join(root, "never-made"))).toEqual({ removed: true });
  });
});
