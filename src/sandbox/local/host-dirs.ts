/**
 * @module
 * A local sandbox on the host: one directory per sandbox holding what its namespaces mount (the agent's
 * home with the workspace, the protected directory, /tmp, rebench's runtime directories), with the
 * ownership and modes that keep the agent out of the grader's files, and the bubblewrap command line
 * that builds each namespace from them.
 */
import { chmodSync, chownSync, cpSync, existsSync, lchownSync, lstatSync, mkdirSync, readdirSync, readlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { IN_SANDBOX, PYTHON_DATA_HIDDEN, SANDBOX_PATHS, venvBasePrefix } from "../layout.js";
import type { SandboxMount } from "../sandbox.js";
import { resolveCommand } from "../which.js";

export type Role = "agent" | "grader";

export interface Ids {
  uid: number;
  gid: number;
}

/** The uids that own the sandbox's files; undefined when not root (then the invoking user owns all). */
export interface Owners {
  agent: Ids;
  grader: Ids;
}

export class HostDirs {
  constructor(readonly root: string) {}

  get home(): string {
    return path.join(this.root, "home");
  }
  get workspace(): string {
    return path.join(this.root, "home", "workspace");
  }
  get protected(): string {
    return path.join(this.root, "protected");
  }
  get tmp(): string {
    return path.join(this.root, "tmp");
  }
  /** Mounted at /run/rebench in `role`'s namespace. */
  run(role: Role): string {
    return path.join(this.root, "run", role);
  }
  /** The agent executor's broker directory, also mounted into the grader's namespace. */
  get broker(): string {
    return path.join(this.run("agent"), "broker");
  }
  controlSocket(role: Role): string {
    return path.join(this.run(role), "control.sock");
  }
  executorConfig(role: Role): string {
    return path.join(this.run(role), "executor.json");
  }
  log(role: Role): string {
    return path.join(this.root, "log", `${role}.log`);
  }
  info(role: Role): string {
    return path.join(this.root, "log", `${role}.info.json`);
  }
  get metadata(): string {
    return path.join(this.root, "sandbox.json");
  }
  /** An empty file, bound over hidden files. */
  get emptyFile(): string {
    return path.join(this.root, "empty");
  }

  /** Create the directories, fill workspace and protected, and set owners and modes. */
  create(options: { workspaceFrom?: string; protectedFrom?: string; owners: Owners | undefined }): void {
    const { owners } = options;
    const mountPoints = [this.broker, path.join(this.run("grader"), "broker"), path.join(this.run("agent"), "shell"), path.join(this.run("grader"), "shell")];
    for (const dir of [this.workspace, this.protected, this.tmp, ...mountPoints, path.dirname(this.log("agent"))]) {
      mkdirSync(dir, { recursive: true });
    }
    if (options.workspaceFrom) cpSync(options.workspaceFrom, this.workspace, { recursive: true });
    if (options.protectedFrom) cpSync(options.protectedFrom, this.protected, { recursive: true });
    writeFileSync(this.emptyFile, "", { mode: 0o444 });
    chmodSync(this.root, 0o755);
    chmodSync(path.join(this.root, "run"), 0o755);
    chmodSync(this.run("agent"), 0o711); // traversable (the shell state lives below), not listable
    chmodSync(this.run("grader"), 0o711);
    chmodSync(path.dirname(this.log("agent")), 0o700);
    chmodSync(this.tmp, 0o1777);
    chmodSync(this.protected, 0o700);
    chmodSync(this.home, 0o755);
    if (owners) {
      chownTree(this.home, owners.agent);
      chownTree(this.protected, owners.grader);
      chownSync(this.broker, 0, owners.grader.gid);
      chmodSync(this.broker, 0o750);
    }
  }

  /**
   * bubblewrap arguments that build `role`'s namespace (without the command). With `sharedNet`, no network
   * namespace of its own: the caller starts bubblewrap inside the agent's (see `startExecutor`'s `joinNetOf`),
   * so agent and grader share one loopback, as the users of one container do.
   */
  bwrapArgs(
    role: Role,
    options: {
      privileged: boolean;
      venv: string | undefined;
      pythonDir: string;
      mounts: readonly SandboxMount[];
      path?: readonly string[];
      sharedNet?: boolean;
      gpuNodes?: readonly string[];
      /** Host paths masked: a directory by an empty read-only tmpfs, a file by /dev/null. */
      hide?: readonly string[];
    },
  ): string[] {
    const args = ["--unshare-pid", ...(options.sharedNet ? [] : ["--unshare-net"]), "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"];
    args.push("--hostname", "rebench", "--new-session", "--info-fd", "3");
    // The agent's executor also gets CAP_SYS_ADMIN, only to mount the uncovered proc that jails need
    // (sandbox_jail.py) before it drops every capability but EXECUTOR_CAPS.
    const startCaps = role === "agent" ? ["CAP_SYS_ADMIN"] : [];
    if (!options.privileged) args.push("--unshare-user", ...startCaps.flatMap((cap) => ["--cap-add", cap]));
    else args.push("--cap-drop", "ALL", ...[...Object.keys(EXECUTOR_CAPS), "CAP_SETPCAP", ...startCaps].flatMap((cap) => ["--cap-add", cap]));
    args.push(...systemBinds());
    for (const hidden of options.hide ?? []) args.push(...maskArgs(hidden, this.emptyFile));
    // A writable /dev/shm of the namespace's own (bubblewrap's is root's, 0755): POSIX semaphores and shared
    // memory, which Python's multiprocessing and torch's data loaders need.
    args.push("--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--tmpfs", "/dev/shm", "--tmpfs", "/run", "--dir", "/var");
    for (const node of options.gpuNodes ?? []) args.push("--dev-bind", node, node);
    args.push("--bind", this.tmp, SANDBOX_PATHS.tmp, "--symlink", "../tmp", "/var/tmp");
    args.push("--dir", "/home", "--bind", this.home, SANDBOX_PATHS.home);
    // Shell state in memory: rewritten after every command, and ext4 truncation costs milliseconds.
    // It lives as long as the namespace (an orchestrator restart keeps it; a replaced executor does not).
    args.push("--bind", this.run(role), SANDBOX_PATHS.run, "--tmpfs", IN_SANDBOX.shellState);
    if (role === "grader") {
      args.push("--bind", this.protected, SANDBOX_PATHS.protected);
      args.push("--bind", this.broker, IN_SANDBOX.brokerDir);
    }
    args.push(...parents(SANDBOX_PATHS.python), "--ro-bind", options.pythonDir, SANDBOX_PATHS.python);
    for (const data of PYTHON_DATA_HIDDEN.filter((dir) => existsSync(path.join(options.pythonDir, dir)))) {
      const target = `${SANDBOX_PATHS.python}/${data}`;
      args.push("--perms", "0755", "--tmpfs", target, "--remount-ro", target); // empty, as SandboxSpec.hide's folders
    }
    const bwrap = resolveCommand("bwrap");
    if (bwrap) args.push(...parents(SANDBOX_PATHS.bwrap), "--ro-bind", bwrap, SANDBOX_PATHS.bwrap);
    if (options.venv) {
      // At the sandbox's fixed path (PATH names it), and at the host's too: console scripts' shebangs name that.
      args.push("--ro-bind", options.venv, SANDBOX_PATHS.venv);
      args.push(...parents(options.venv), "--ro-bind", options.venv, options.venv);
      const base = venvBasePrefix(options.venv);
      if (base) args.push(...parents(base), "--ro-bind", base, base);
    }
    for (const mount of options.mounts) {
      args.push(...parents(mount.target), mount.readOnly === false ? "--bind" : "--ro-bind", mount.source, mount.target);
    }
    args.push("--chdir", "/");
    return args;
  }
}

/**
 * What the root executor keeps inside its namespace (switching users, killing their processes, files),
 * by number: the executor shrinks its bounding set to these (so root commands get no more) and clears
 * the ambient set bubblewrap fills, which would otherwise survive the switch to an unprivileged user.
 */
export const EXECUTOR_CAPS: Readonly<Record<string, number>> = {
  CAP_CHOWN: 0,
  CAP_DAC_OVERRIDE: 1,
  CAP_DAC_READ_SEARCH: 2,
  CAP_FOWNER: 3,
  CAP_FSETID: 4,
  CAP_KILL: 5,
  CAP_SETGID: 6,
  CAP_SETUID: 7,
};

/**
 * Directories above a mount point, traversable by everyone (bubblewrap would create them 0700, and a
 * venv or asset under /tmp, /home or /run would be out of the grader's and agent's reach). Under the
 * read-only system binds (/usr, /etc, ...) they exist already.
 */
function parents(target: string): string[] {
  const top = target.split("/")[1]!;
  if (READONLY_TOPS.has(top)) return [];
  const stop = SYSTEM_TOPS.has(top) ? `/${top}` : "/"; // the namespace has those already
  const args: string[] = [];
  for (let dir = path.dirname(target); dir !== stop && dir !== "/"; dir = path.dirname(dir)) {
    args.unshift("--perms", "0755", "--dir", dir);
  }
  return args;
}

/** Top-level directories bound read-only from the host: what lies below them exists already. */
const READONLY_TOPS = new Set(["usr", "etc", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "proc", "dev"]);
/** Top-level directories the namespace already has (system binds, /home, /tmp, /run...). */
const SYSTEM_TOPS = new Set([...READONLY_TOPS, "tmp", "var", "home", "run"]);

/**
 * bubblewrap arguments that hide `target` (which exists on the host): an empty directory or file in its place
 * (a regular file, `empty`: /dev/null would be a device on a nodev mount, which no one may open).
 */
function maskArgs(target: string, empty: string): string[] {
  try {
    return lstatSync(target).isDirectory() ? ["--perms", "0755", "--tmpfs", target, "--remount-ro", target] : ["--ro-bind", empty, target];
  } catch {
    return []; // not on this host: nothing to hide
  }
}

/** The host's system directories, read-only; /bin, /lib... as the host has them (symlinks on merged /usr). */
function systemBinds(): string[] {
  const args = ["--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"];
  for (const name of ["bin", "sbin", "lib", "lib32", "lib64", "libx32"]) {
    const host = `/${name}`;
    if (!existsSync(host)) continue;
    if (lstatSync(host).isSymbolicLink()) args.push("--symlink", readlinkSync(host), host);
    else args.push("--ro-bind", host, host);
  }
  return args;
}

/** chown -R without following symlinks. */
export function chownTree(root: string, owner: Ids): void {
  lchownSync(root, owner.uid, owner.gid);
  if (!lstatSync(root).isDirectory()) return;
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const child = path.join(root, entry.name);
    if (entry.isDirectory()) chownTree(child, owner);
    else lchownSync(child, owner.uid, owner.gid);
  }
}
