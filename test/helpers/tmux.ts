/**
 * @module
 * Drive an interactive program from a test through tmux, as a person at a terminal would: start it in a
 * detached session on a private tmux server, type keys, and wait for text to appear on the screen.
 */
import { execFileSync, spawnSync } from "node:child_process";

export function tmuxAvailable(): boolean {
  return spawnSync("tmux", ["-V"]).status === 0;
}

export class TmuxSession {
  readonly #socket: string;

  /** Start `command` (a shell command line) in a new session of a private tmux server. */
  constructor(command: string, options: { cwd: string; env?: Record<string, string>; width?: number; height?: number }) {
    this.#socket = `rebench-test-${process.pid}-${Date.now().toString(36)}`;
    const env = Object.entries(options.env ?? {})
      .map(([k, v]) => `${k}=${shellQuote(v)}`)
      .join(" ");
    this.#tmux([
      "new-session",
      "-d",
      "-s",
      "main",
      "-x",
      String(options.width ?? 200),
      "-y",
      String(options.height ?? 50),
      "-c",
      options.cwd,
      `env ${env} ${command}; echo "REBENCH_EXIT=$?"; sleep 3600`,
    ]);
  }

  #tmux(args: string[]): string {
    return execFileSync("tmux", ["-L", this.#socket, ...args], { encoding: "utf8" });
  }

  /** Type `text` and press Enter. */
  type(text: string): void {
    this.#tmux(["send-keys", "-t", "main", "-l", text]);
    this.#tmux(["send-keys", "-t", "main", "Enter"]);
  }

  /** Press keys by tmux name (`C-c`, `Up`, ...), not typed as text. */
  keys(...names: string[]): void {
    this.#tmux(["send-keys", "-t", "main", ...names]);
  }

  /** The screen and its scroll-back. */
  screen(): string {
    return this.#tmux(["capture-pane", "-p", "-J", "-t", "main", "-S", "-500"]);
  }

  /** Wait until the screen matches `pattern` (counting from `after` matches of it); the screen then. */
  async waitFor(pattern: RegExp, options: { timeoutMs?: number; count?: number } = {}): Promise<string> {
    const deadline = Date.now() + (options.timeoutMs ?? 30_000);
    const count = options.count ?? 1;
    const global = new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`);
    for (;;) {
      const screen = this.screen();
      if ((screen.match(global) ?? []).length >= count) return screen;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern} (${count}x); the screen:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  close(): void {
    try {
      this.#tmux(["kill-server"]);
    } catch {
      // already gone
    }
  }
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
