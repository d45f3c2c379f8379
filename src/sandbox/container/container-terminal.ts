/**
 * @module
 * The container sandbox's interactive terminal (for `rebench human`): an exec session with a TTY through
 * the engine's API, so it works with Docker and with podman's compatible service alike, local or not.
 * The host command is terminal-bridge.ts, which creates the exec and bridges it to the person's terminal.
 * The exec starts as root only to record its pid (so a hang-up can reach it) and then becomes the agent
 * through src/sandbox/agent-shell.ts: the container's namespaces, limits and read-only root as the
 * agent's commands have them, the agent's ids with no capabilities, the workspace.
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { agentShellArgv, agentShellEnv } from "../agent-shell.js";
import { runtimeFiles, SANDBOX_PATHS, ulimitSpec } from "../layout.js";
import type { TerminalCommand, TerminalRequest } from "../terminal.js";
import { CONTAINER_IDS } from "./container-setup.js";

/** The host variable that carries the bridge's TerminalBridgeSpec (JSON). */
export const TERMINAL_SPEC_VARIABLE = "REBENCH_TERMINAL_EXEC";

/** What terminal-bridge.ts needs to open the terminal. */
export interface TerminalBridgeSpec {
  /** The engine's unix socket. */
  socketPath: string;
  container: string;
  /** The exec to create (the bridge adds the TTY and attach flags). */
  exec: { Cmd: string[]; Env: string[]; User: string; WorkingDir: string };
  /** Where, inside the container, the exec's first process writes its pid (root's, under /run). */
  pidFile: string;
}

export interface ContainerTerminalOptions {
  socketPath: string;
  container: string;
  /** The container executor's configuration (containerExecutorConfig): the agent's environment and rlimits. */
  config: Record<string, unknown>;
}

/** The host command for an interactive shell as the agent in a container sandbox. */
export function containerTerminalCommand(options: ContainerTerminalOptions, request: TerminalRequest): TerminalCommand {
  const config = options.config as { env?: Record<string, Record<string, string>>; limits?: Parameters<typeof ulimitSpec>[0] };
  const env = agentShellEnv(config.env?.agent ?? {}, ulimitSpec(config.limits ?? {}), request);
  const pidFile = `${SANDBOX_PATHS.run}/terminals/${randomUUID()}.pid`;
  const record = `mkdir -p ${path.posix.dirname(pidFile)} && echo $$ > ${pidFile} && exec "$@"`;
  const shell = agentShellArgv({ ids: CONTAINER_IDS.agent, workspace: SANDBOX_PATHS.workspace, rcfile: request.rcfile });
  const spec: TerminalBridgeSpec = {
    socketPath: options.socketPath,
    container: options.container,
    pidFile,
    exec: { User: "root", WorkingDir: "/", Env: Object.entries(env).map(([k, v]) => `${k}=${v}`), Cmd: ["sh", "-c", record, "rebench-terminal", ...shell] },
  };
  // The bridge sits beside this file: compiled (dist/, .js) or the sources (.ts, run through tsx).
  const here = fileURLToPath(import.meta.url);
  const bridge = path.join(path.dirname(here), `terminal-bridge${path.extname(here)}`);
  const typescript = bridge.endsWith(".ts");
  return {
    argv: [process.execPath, ...(typescript ? ["--import", "tsx"] : []), bridge],
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", TERM: env.TERM!, [TERMINAL_SPEC_VARIABLE]: JSON.stringify(spec) },
    // tsx is found from the checkout.
    ...(typescript ? { cwd: runtimeFiles().repoRoot } : {}),
  };
}
