/**
 * @module
 * Remove a directory tree that a sandbox's users wrote, whatever they left in it: any depth (paths far past
 * PATH_MAX, where Node's `rmSync` fails with ENAMETOOLONG), directories without read, write or search
 * permission (chmod 000, 0500), sockets, FIFOs, many files. GNU `rm` walks by directory descriptors (fts:
 * openat/unlinkat), so no path it builds grows with the depth; where it is refused (not root: a directory of
 * the invoking user's that it may not list), `chmod -R u+rwx` opens every directory first (it never follows
 * symbolic links) and `rm` runs again. It never reaches into a mount: a tree with a filesystem mounted
 * inside it (a bind mount included, which rm's --one-file-system does not see) is left whole, and the result
 * says so. Run it only once nothing writes into the tree any more.
 */
import { spawn } from "node:child_process";
import { lstat, readFile } from "node:fs/promises";
import path from "node:path";

/** The outcome: removed (or absent already), or still there with what the last attempt said. */
export type TreeRemoval = { removed: true } | { removed: false; error: string };

/** What of a command's stderr is kept for the message: its end (rm repeats every long path it names). */
const STDERR_TAIL_BYTES = 2000;

export async function removeTree(dir: string): Promise<TreeRemoval> {
  if (!(await exists(dir))) return { removed: true };
  // rm's --one-file-system misses a bind mount of the same filesystem (same device): look for mounts first.
  const inside = await mountsUnder(dir);
  if (inside.length > 0) {
    return { removed: false, error: `${inside.length === 1 ? "a filesystem is" : "filesystems are"} mounted inside it: ${inside.join(", ")}` };
  }
  const first = await run("rm", ["-rf", "--one-file-system", "--", dir]);
  if (!(await exists(dir))) return { removed: true };
  await run("chmod", ["-R", "u+rwx", "--", dir]);
  const second = await run("rm", ["-rf", "--one-file-system", "--", dir]);
  if (!(await exists(dir))) return { removed: true };
  return { removed: false, error: second.trim() || first.trim() || `${dir} is still there after rm -rf` };
}

/** Mount points at or below `dir` in this process's mount namespace (/proc/self/mountinfo, field 5). */
async function mountsUnder(dir: string): Promise<string[]> {
  let table: string;
  try {
    table = await readFile("/proc/self/mountinfo", "utf8");
  } catch {
    return [];
  }
  const root = path.resolve(dir);
  const points = table.split("\n").flatMap((line) => {
    const field = line.split(" ")[4];
    // Spaces, tabs, newlines and backslashes in a mount point are octal escapes (\040).
    return field === undefined ? [] : [field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)))];
  });
  return points.filter((point) => point === root || point.startsWith(`${root}/`));
}

async function exists(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ENOENT";
  }
}

/** Run a command to its end; resolves with the tail of its stderr (and the reason it could not start). */
function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve) => {
    let tail = Buffer.alloc(0);
    let total = 0;
    const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"] });
    child.stderr.on("data", (chunk: Buffer) => {
      total += chunk.length;
      tail = Buffer.concat([tail, chunk]);
      if (tail.length > 2 * STDERR_TAIL_BYTES) tail = tail.subarray(tail.length - STDERR_TAIL_BYTES);
    });
    child.on("error", (error) => resolve(`${command}: ${error.message}`));
    child.on("close", (code, signal) => {
      if (code === 0) return resolve("");
      const kept = tail.subarray(Math.max(0, tail.length - STDERR_TAIL_BYTES));
      const cut = total > kept.length ? `(the last ${kept.length} of ${total} bytes) …` : "";
      resolve(`${[command, ...args].join(" ")} ${signal ? `was killed by ${signal}` : `exited ${code}`}: ${cut}${kept.toString().trim()}`);
    });
  });
}
