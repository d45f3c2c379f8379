/**
 * @module
 * The local sandbox's interactive terminal (for `rebench human`): the same way in as the agent's commands
 * get, from the host. `sh` joins the sandbox's agent cgroups (its memory, process and CPU limits), then
 * `nsenter` enters every namespace of the agent executor's namespace (its mounts, so no /protected; its
 * empty network; its pid namespace, so the shell dies with the sandbox), and `setpriv` drops to
 * rebench-agent with no capabilities before bash starts (src/sandbox/agent-shell.ts). Nothing of the
 * grader's namespace is reachable from there.
 *
 * The shell keeps the person's (host) pty. Full-screen programs, /dev/tty, job control and tmux inside
 * work; only the pty's name does not exist in the namespace's own /dev/pts, so `tty` says "not a tty".
 * (A pty allocated inside, relayed by util-linux `script`, fixed that but did not pass a hang-up on to
 * the shell: it kept running after the person's terminal closed.)
 */
import { InfrastructureError } from "../../core/index.js";
import { agentShellArgv, agentShellEnv } from "../agent-shell.js";
import { SANDBOX_PATHS, ulimitSpec } from "../layout.js";
import type { TerminalCommand, TerminalRequest } from "../terminal.js";
import { type ExecutorConfig, namespaceInitPid } from "./executor-process.js";
import type { HostDirs } from "./host-dirs.js";
import { type CgroupVersion, sandboxGroups } from "./limit-groups.js";

export interface LocalTerminalOptions {
  dirs: HostDirs;
  id: string;
  /** Whether the sandbox's limits are cgroups (else the rlimits in `config.limits` stand in). */
  cgroups: boolean | CgroupVersion;
  /** The agent executor's configuration: the agent's ids, base environment and rlimits. */
  config: ExecutorConfig;
}

/** The host command for an interactive shell as the agent in a running local sandbox. */
export function localTerminalCommand(options: LocalTerminalOptions, request: TerminalRequest): TerminalCommand {
  const init = namespaceInitPid(options.dirs, "agent");
  if (init === undefined) {
    throw new InfrastructureError(`the agent's namespace of sandbox ${options.id} is not running, so no terminal can enter it`, {
      hint: "run a command in the sandbox first (its first command as the agent starts the namespace)",
    });
  }
  const { config } = options;
  const agent = config.users.agent;
  const ids = agent && agent.uid !== null && agent.gid !== null ? { uid: agent.uid, gid: agent.gid } : undefined;
  const join = options.cgroups ? `${sandboxGroups(options.id, options.cgroups).joinScript("agent")} && ` : "";
  // --all enters the user namespace too where the sandbox has one (without root), keeping our ids there.
  const enter = ["nsenter", "--target", String(init), "--all", "--preserve-credentials", "--root", "--wd"];
  const shell = agentShellArgv({ ids, workspace: SANDBOX_PATHS.workspace, rcfile: request.rcfile });
  return {
    argv: ["sh", "-c", `${join}exec "$@"`, "rebench-terminal", ...enter, ...shell],
    // The variables pass through sh, nsenter and setpriv unchanged to the shell inside.
    env: agentShellEnv(config.env.agent ?? {}, ulimitSpec(config.limits), request),
  };
}
