/**
 * @module
 * What a rust_codecontests run needs from the host before its sandbox exists: the variant's build (problems,
 * compiled references, the model's tables, the reference scaffold; `assets/build.py`, about 20 s) cached under
 * `<rebench home>/cache/rust_codecontests/<variant>-<key>` where the key hashes everything the build reads, and
 * the host's Rust toolchain mounted read-only at /opt/rust (rustup keeps it under /root, which the sandbox's
 * users cannot reach), on every user's PATH and in `REBENCH_RUSTC` for the grader.
 * Canary e8df3d4b-325b-49c6-a0a8-c490eee4a85f: rebench environment file; keep it out of training data.
 */
import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { pythonExecutable } from "../../src/assets/python.js";
import { rebenchHome } from "../../src/core/index.js";
import type { VariantPreparation } from "../../src/environments/contract.js";
import { sourceDir } from "../../src/environments/source-dir.js";

export type RccVariant = "mini" | "gpu" | "paper";

const HERE = sourceDir(import.meta.url); // environments/rust_codecontests also when run from dist/
/** Where the toolchain appears inside the sandbox. */
export const SANDBOX_RUST = "/opt/rust";
/** What the build reads: a change to any of these makes a new build. */
const BUILD_INPUTS = ["sources.enc", "assets", "grader"];

function cacheRoot(): string {
  return path.join(rebenchHome(), "cache", "rust_codecontests");
}

/** The checkout's Python (`$REBENCH_PYTHON` or `.venv`), else the system's python3. */
function python(): string {
  try {
    return pythonExecutable();
  } catch {
    return "python3";
  }
}

/** The host's rustc sysroot (rustup's toolchain folder, or /usr), from `rustc --print sysroot`. */
export function rustSysroot(): string {
  try {
    return execFileSync("rustc", ["--print", "sysroot"], { encoding: "utf8", timeout: 30_000, stdio: ["ignore", "pipe", "pipe"] }).trim();
  } catch (error) {
    throw new Error(
      `rust_codecontests compiles Rust, and rustc does not run here (${(error as Error).message.split("\n")[0]}): install Rust (rustup or Debian's rustc)`,
    );
  }
}

/** The archive and the Python files under `dir` (caches and notes do not change a build). */
function filesUnder(dir: string): string[] {
  if (!statSync(dir).isDirectory()) return [dir];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => !e.name.startsWith(".") && e.name !== "__pycache__" && (e.isDirectory() || e.name.endsWith(".py")))
    .flatMap((e) => filesUnder(path.join(dir, e.name)))
    .sort();
}

/** The build's cache key: the variant, rustc's version and every input file's path and bytes. */
export function buildKey(variant: RccVariant): string {
  const hash = createHash("sha256").update(`${variant}\n`);
  hash.update(execFileSync("rustc", ["-vV"], { encoding: "utf8", timeout: 30_000 }));
  for (const file of BUILD_INPUTS.flatMap((input) => filesUnder(path.join(HERE, input)))) {
    hash.update(`${path.relative(HERE, file)}\n`).update(readFileSync(file));
  }
  return hash.digest("hex").slice(0, 16);
}

/** The cached build of `variant` (built now when missing); its folder holds workspace/, protected/, reference/. */
export async function variantBuild(variant: RccVariant): Promise<string> {
  const key = buildKey(variant);
  const out = path.join(cacheRoot(), `${variant}-${key}`);
  if (existsSync(path.join(out, "protected", "build.json"))) return out;
  const temporary = `${out}.tmp-${process.pid}-${Date.now().toString(36)}`;
  try {
    await promisify(execFile)(
      python(),
      [path.join(HERE, "assets", "build.py"), "--variant", variant, "--out", temporary, "--cache", path.join(cacheRoot(), "bin")],
      { timeout: 900_000, maxBuffer: 16 << 20 },
    );
  } catch (error) {
    rmSync(temporary, { recursive: true, force: true });
    const stderr = (error as { stderr?: string }).stderr ?? "";
    throw new Error(`building rust_codecontests/${variant} failed: ${stderr.slice(-1500) || (error as Error).message}`);
  }
  try {
    renameSync(temporary, out);
  } catch {
    rmSync(temporary, { recursive: true, force: true }); // another run built the same key first
  }
  for (const stale of readdirSync(cacheRoot()).filter((n) => n.startsWith(`${variant}-`) && !n.includes(".tmp-") && !n.startsWith(path.basename(out)))) {
    rmSync(path.join(cacheRoot(), stale), { recursive: true, force: true });
  }
  return out;
}

/**
 * A copy of `build` whose hidden split keeps `count` problems spread over the ratings (every k-th by rating):
 * quicker scoring calls for tests of the wiring. Made once per build, beside it.
 */
export function subsetBuild(build: string, count: number): string {
  const out = `${build}-subset${count}`;
  if (existsSync(path.join(out, "protected", "test.jsonl"))) return out;
  const temporary = `${out}.tmp-${process.pid}`;
  cpSync(build, temporary, { recursive: true });
  const file = path.join(temporary, "protected", "test.jsonl");
  const problems = readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { name: string; cf_rating: number });
  problems.sort((a, b) => a.cf_rating - b.cf_rating || a.name.localeCompare(b.name));
  const every = Math.max(1, Math.floor(problems.length / count));
  const kept = problems.filter((_, i) => i % every === 0).slice(0, count);
  writeFileSync(file, kept.map((p) => `${JSON.stringify(p)}\n`).join(""));
  try {
    renameSync(temporary, out);
  } catch {
    rmSync(temporary, { recursive: true, force: true });
  }
  return out;
}

/**
 * The variant's preparation: its build's workspace and protected files, and the Rust toolchain. `subset`
 * (tests only) keeps that many hidden problems.
 */
export async function prepare(variant: RccVariant, subset?: number): Promise<VariantPreparation> {
  const full = await variantBuild(variant);
  const build = subset === undefined ? full : subsetBuild(full, subset);
  const sysroot = rustSysroot();
  const onSystem = sysroot === "/usr" || sysroot.startsWith("/usr/");
  const root = onSystem ? sysroot : SANDBOX_RUST;
  return {
    workspace: path.join(build, "workspace"),
    protected: path.join(build, "protected"),
    mounts: onSystem ? [] : [{ source: sysroot, target: SANDBOX_RUST }],
    path: onSystem ? [] : [`${SANDBOX_RUST}/bin`],
    env: { REBENCH_RUSTC: `${root}/bin/rustc` },
  };
}

/** Fill `dest` with the reference scaffold for the replay agent (the build is made first if missing). */
export function referenceFiles(variant: RccVariant): (dest: string) => void {
  return (dest) => {
    const out = path.join(cacheRoot(), `${variant}-${buildKey(variant)}`);
    if (!existsSync(path.join(out, "reference"))) {
      execFileSync(python(), [path.join(HERE, "assets", "build.py"), "--variant", variant, "--out", out, "--cache", path.join(cacheRoot(), "bin")], {
        stdio: ["ignore", "ignore", "pipe"],
        timeout: 900_000,
      });
    }
    cpSync(path.join(out, "reference"), dest, { recursive: true });
  };
}
