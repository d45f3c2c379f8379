/**
 * @module
 * An optional capability of a sandbox backend: an interactive terminal inside the sandbox, as the agent
 * user, for the human baseline mode (`rebench human`). The backend returns the host command that, run with
 * the person's terminal attached (inside `script`, which records it), gives them an interactive bash in
 * the workspace with the environment variables asked for. Backends that cannot offer one leave it out, and
 * `rebench human` says so before it starts a run.
 *
 * The shell is confined exactly like `exec` as the agent (terminal.case.ts is the contract): for the
 * `local` backend, `nsenter` into the agent's namespaces and cgroups, then `setpriv` to the agent
 * (local/local-terminal.ts); for the `container` backend, an engine exec with a TTY bridged to the
 * person's terminal (container/container-terminal.ts); both end in agent-shell.ts.
 */
import type { Sandbox, SandboxBackend } from "./sandbox.js";

export interface TerminalRequest {
  /** Variables for the shell, added to the agent user's environment. */
  env: Readonly<Record<string, string>>;
  /** A bash rcfile (a path inside the sandbox) the interactive shell reads instead of ~/.bashrc. */
  rcfile: string;
}

export interface TerminalCommand {
  /** What to run on the host (argv[0] looked up on the host's PATH). */
  argv: string[];
  /** The host environment of that command. */
  env: Record<string, string>;
  /** Its working directory on the host, if it matters. */
  cwd?: string;
}

export interface TerminalSandbox extends Sandbox {
  /**
   * The host command for one terminal (each call: a new shell). The local backend needs the agent's
   * namespace running (any `exec` as the agent starts it) and says so otherwise.
   */
  terminalCommand(request: TerminalRequest): TerminalCommand;
}

export interface TerminalBackend extends SandboxBackend {
  /** Its sandboxes implement `terminalCommand`. */
  readonly terminals: true;
}

export function hasTerminals(backend: SandboxBackend): backend is TerminalBackend {
  return (backend as Partial<TerminalBackend>).terminals === true;
}

export function terminalOf(sandbox: Sandbox): TerminalSandbox | undefined {
  return typeof (sandbox as Partial<TerminalSandbox>).terminalCommand === "function" ? (sandbox as TerminalSandbox) : undefined;
}
