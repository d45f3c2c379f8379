/**
 * @module
 * The host side of a container sandbox's terminal, run as its own process (the command that
 * container-terminal.ts returns, under `script` in `rebench human`): it creates the exec with a TTY,
 * puts this process's terminal in raw mode and passes bytes both ways, and window-size changes on. When
 * the person's terminal hangs up (or this process is told to stop), the shell inside gets SIGHUP, as a
 * local terminal's would: an exec's shell otherwise outlives its detached client. Exits with the shell's
 * status. Reads its TerminalBridgeSpec from $REBENCH_TERMINAL_EXEC.
 */

import { runInContainer } from "./container-setup.js";
import { TERMINAL_SPEC_VARIABLE, type TerminalBridgeSpec } from "./container-terminal.js";
import { DockerApi } from "./docker-api.js";

/** How long the shell gets to end after a hang-up before the bridge leaves anyway. */
const HANGUP_WAIT_MS = 5000;

async function bridge(spec: TerminalBridgeSpec): Promise<number> {
  const api = new DockerApi(spec.socketPath);
  const exec = await api.json<{ Id: string }>("POST", `/containers/${spec.container}/exec`, {
    ...spec.exec,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    Tty: true,
  });
  const session = await api.startExec(exec.Id, { tty: true });
  const { stdin, stdout } = process;
  stdout.on("error", () => undefined); // the terminal is gone: nothing left to show
  session.onStdout((chunk) => stdout.write(chunk));
  if (stdin.isTTY) stdin.setRawMode(true);
  stdin.on("data", (chunk: Buffer) => session.socket.write(chunk));

  const resize = () => {
    if (stdout.isTTY) void api.json("POST", `/exec/${exec.Id}/resize?h=${stdout.rows}&w=${stdout.columns}`).catch(() => undefined);
  };
  stdout.on("resize", resize);
  resize();

  let hungUp = false;
  let giveUp: () => void = () => {};
  const gaveUp = new Promise<void>((resolve) => {
    giveUp = resolve;
  });
  const hangUp = () => {
    if (hungUp) return;
    hungUp = true;
    void runInContainer(api, spec.container, ["sh", "-c", `p=$(cat ${spec.pidFile}) && kill -HUP "$p"`])
      .catch(() => undefined)
      .then(() => setTimeout(giveUp, HANGUP_WAIT_MS));
  };
  for (const signal of ["SIGHUP", "SIGTERM", "SIGINT"] as const) process.on(signal, hangUp);
  stdin.on("end", hangUp);
  stdin.on("error", hangUp);

  await Promise.race([session.ended, gaveUp]);
  if (stdin.isTTY) stdin.setRawMode(false);
  stdin.destroy();
  const info = await api.json<{ ExitCode: number | null; Running?: boolean }>("GET", `/exec/${exec.Id}/json`).catch(() => undefined);
  await runInContainer(api, spec.container, ["rm", "-f", spec.pidFile]).catch(() => undefined);
  if (hungUp) return 129;
  return info?.ExitCode ?? 1;
}

const text = process.env[TERMINAL_SPEC_VARIABLE];
if (!text) {
  process.stderr.write(`terminal-bridge: $${TERMINAL_SPEC_VARIABLE} is not set (rebench runs this file itself)\n`);
  process.exit(2);
}
bridge(JSON.parse(text) as TerminalBridgeSpec).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`rebench: the container terminal failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
