/**
 * @module
 * Mirror a host folder into a sandbox's workspace (the human path: a person edits files in `--dir`, and
 * `rebench score` scores exactly those files). Everything in the workspace is replaced; `.rebench/` (the
 * run marker) and symbolic links are not copied.
 */
import { lstat, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { InfrastructureError, shellJoin, UnavailableError } from "../core/index.js";
import type { Sandbox } from "../sandbox/sandbox.js";

export const DIR_MARKER = ".rebench";

export async function syncWorkspace(sandbox: Sandbox, dir: string): Promise<{ files: number; bytes: number }> {
  const { dirs, files } = await walk(dir, "");
  const ws = sandbox.paths.workspace;
  const mkdirs = dirs.length > 0 ? ` && mkdir -p -- ${shellJoin(dirs.map((d) => `${ws}/${d}`))}` : "";
  // A process that agent code left running (a grader runs agent code as the agent) could keep writing into the
  // workspace while it is cleared, so that a directory is never empty when find comes to remove it: the
  // agent's processes are stopped meanwhile (the commands below are new processes, not stopped). The
  // test-only process backend cannot stop them; it has no isolation to keep either.
  const pause = await sandbox.pauseAgent().catch((error: unknown) => {
    if (error instanceof UnavailableError) return undefined;
    throw error;
  });
  try {
    // Whatever agent code left there: directories without permissions are opened first, and find deletes by
    // directory descriptors, so a chain past PATH_MAX goes too.
    const cleared = await sandbox.exec(`chmod -R u+rwx . 2>/dev/null; find . -mindepth 1 -delete${mkdirs}`, { user: "agent", cwd: ws, timeoutMs: 120_000 });
    if (cleared.exitCode !== 0) {
      throw new InfrastructureError(`could not clear the sandbox workspace of run ${sandbox.id}: ${cleared.stderr.slice(-500)}`);
    }
    let bytes = 0;
    for (const file of files) {
      const data = await readFile(path.join(dir, file.path));
      bytes += data.byteLength;
      await sandbox.writeFile(`${ws}/${file.path}`, data, { user: "agent", mode: file.mode });
    }
    return { files: files.length, bytes };
  } finally {
    await pause?.release();
  }
}

async function walk(root: string, rel: string): Promise<{ dirs: string[]; files: Array<{ path: string; mode: number }> }> {
  const dirs: string[] = [];
  const files: Array<{ path: string; mode: number }> = [];
  for (const name of await readdir(path.join(root, rel))) {
    const child = rel ? `${rel}/${name}` : name;
    if (child === DIR_MARKER) continue;
    const stat = await lstat(path.join(root, child));
    if (stat.isDirectory()) {
      dirs.push(child);
      const inner = await walk(root, child);
      dirs.push(...inner.dirs);
      files.push(...inner.files);
    } else if (stat.isFile()) {
      files.push({ path: child, mode: stat.mode & 0o777 });
    }
  }
  return { dirs, files };
}
