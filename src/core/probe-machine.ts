/**
 * @module
 * The machine this process runs on, as calibration records it: CPU model and cores, memory, the GPU model
 * (nvidia-smi, when present), the OS, and rebench's version and git commit. Probed once per process.
 * The compiled CLI reports the commit it was built from (`dist/build.json`, written by scripts/stamp-build),
 * not the checkout's HEAD: the two differ when dist/ is stale or was carried to another machine.
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { MachineInfo } from "./machine.js";

let probed: Promise<MachineInfo> | undefined;

/** This machine (cached for the process). */
export function probeMachine(): Promise<MachineInfo> {
  probed ??= probe();
  return probed;
}

async function probe(): Promise<MachineInfo> {
  const gpus = await output("nvidia-smi", ["--query-gpu=name", "--format=csv,noheader"]);
  const build = rebenchBuild();
  const gpuNames = (gpus ?? "")
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  return {
    cpuModel: os.cpus()[0]?.model.trim().replace(/\s+/g, " ") || "unknown CPU",
    ...cpuGeneration(),
    cores: os.availableParallelism(),
    memoryGb: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    gpu: gpuNames[0] ?? null,
    gpuCount: gpuNames.length,
    os: `${os.type()} ${os.release()}${distribution()}`,
    rebenchVersion: build.version,
    rebenchCommit: build.commit,
  };
}

/** `{ cpuGeneration: "family F model M" }` from the first processor of /proc/cpuinfo (x86 Linux); `{}` elsewhere. */
function cpuGeneration(): { cpuGeneration?: string } {
  let text: string;
  try {
    text = readFileSync("/proc/cpuinfo", "utf8");
  } catch {
    return {};
  }
  return cpuGenerationOf(text);
}

/** The generation fields of a /proc/cpuinfo text: its first processor's `cpu family` and `model` numbers. */
export function cpuGenerationOf(cpuinfo: string): { cpuGeneration?: string } {
  const first = cpuinfo.split(/\n\s*\n/)[0] ?? "";
  const field = (name: string) => first.match(new RegExp(`^${name}\\s*:\\s*(\\d+)\\s*$`, "m"))?.[1];
  const family = field("cpu family");
  const model = field("model");
  return family !== undefined && model !== undefined ? { cpuGeneration: `family ${family} model ${model}` } : {};
}

let build: { version: string; commit: string | null } | undefined;

/**
 * This rebench: its version, and its commit as `<commit>[-dirty]` (the build's stamp when this code runs from
 * `<root>/dist`, else the checkout's HEAD; null outside a git checkout). Read once per process.
 */
export function rebenchBuild(): { version: string; commit: string | null } {
  if (build) return build;
  const root = packageRoot();
  build = { version: root ? packageVersion(root) : "unknown", commit: root ? rebenchCommit(root) : null };
  return build;
}

function rebenchCommit(root: string): string | null {
  const dist = path.join(root, "dist");
  if (fileURLToPath(import.meta.url).startsWith(dist + path.sep)) {
    try {
      const stamp = JSON.parse(readFileSync(path.join(dist, "build.json"), "utf8")) as { commit?: string | null; dirty?: boolean };
      if (stamp.commit) return `${stamp.commit}${stamp.dirty ? "-dirty" : ""}`;
    } catch {
      // built before stamps existed: fall back to git
    }
  }
  const git = (...args: string[]) => {
    try {
      return execFileSync("git", ["-C", root, ...args], { timeout: 15_000, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    } catch {
      return undefined;
    }
  };
  const commit = git("rev-parse", "--short=12", "HEAD");
  const dirty = git("status", "--porcelain", "--untracked-files=no");
  return commit ? `${commit.trim()}${dirty && dirty.trim() !== "" ? "-dirty" : ""}` : null;
}

/** stdout of a command, or undefined when it is missing, fails or takes over 15 s. */
function output(command: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: 15_000, encoding: "utf8" }, (error, stdout) => resolve(error ? undefined : stdout));
  });
}

/** The folder of rebench's package.json, from the sources or the compiled files. */
function packageRoot(): string | undefined {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(path.join(dir, "package.json")) && packageName(dir) === "rebench") return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function packageJson(dir: string): { name?: string; version?: string } {
  try {
    return JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { name?: string; version?: string };
  } catch {
    return {};
  }
}

function packageName(dir: string): string | undefined {
  return packageJson(dir).name;
}

function packageVersion(dir: string): string {
  return packageJson(dir).version ?? "unknown";
}

function distribution(): string {
  try {
    const name = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync("/etc/os-release", "utf8"))?.[1];
    return name ? ` (${name})` : "";
  } catch {
    return "";
  }
}
