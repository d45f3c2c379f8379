/**
 * @module
 * The interactive shell behind a sandbox terminal (src/sandbox/terminal.ts), the same for every backend
 * that offers one. The backend starts it as root inside the sandbox (the local backend in the agent's
 * namespaces, the container backend in the container); it drops to the agent user the way the executor's
 * `spawn` does (real and effective ids, no supplementary groups, no_new_privs, every capability set and
 * the bounding set empty), applies the agent's rlimits and umask, enters the workspace with the agent's
 * own permissions and execs `bash --rcfile RC -i`.
 */
import { InvalidInputError } from "../core/index.js";
import { UMASKS } from "./layout.js";
import type { TerminalRequest } from "./terminal.js";

/** Runs as the agent: limits first (nothing the person types runs before them), then umask, then the workspace. */
const SHIM =
  'for l in ${__RB_ULIMITS-}; do ulimit "-${l%%=*}" "${l#*=}" 2>/dev/null; done; unset __RB_ULIMITS; ' +
  `umask ${UMASKS.agent.toString(8).padStart(4, "0")}; cd -- "$1" || exit 126; exec /bin/bash --noprofile --rcfile "$2" -i`;

export interface AgentShellOptions {
  /** The agent's ids; undefined when the sandbox has no separate users (the local backend without root). */
  ids: { uid: number; gid: number } | undefined;
  workspace: string;
  rcfile: string;
}

/** The command, run as root inside the sandbox, that becomes the agent's interactive shell. */
export function agentShellArgv(options: AgentShellOptions): string[] {
  const user = options.ids ? ["--reuid", String(options.ids.uid), "--regid", String(options.ids.gid), "--clear-groups"] : [];
  const drop = ["--no-new-privs", "--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all"];
  return ["setpriv", ...user, ...drop, "--", "/bin/bash", "--noprofile", "--norc", "-c", SHIM, "rebench-terminal", options.workspace, options.rcfile];
}

/**
 * The shell's environment: the agent's base environment, the host's TERM (so full-screen programs draw
 * right), the request's variables, and the agent's rlimits for the shim (`ulimitSpec` format).
 */
export function agentShellEnv(base: Readonly<Record<string, string>>, ulimits: string, request: TerminalRequest): Record<string, string> {
  const bad = Object.keys(request.env).filter((name) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name));
  if (bad.length > 0) throw new InvalidInputError(`invalid variable names for a sandbox terminal: ${bad.join(", ")}`);
  return { ...base, TERM: process.env.TERM || "xterm-256color", ...request.env, __RB_ULIMITS: ulimits };
}
