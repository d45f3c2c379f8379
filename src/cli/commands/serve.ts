/**
 * @module
 * `rebench serve`: the run viewer over the run store (src/web), until interrupted; `--export DIR` writes the
 * same pages as static files instead. Read only: it never starts, changes or resumes a run.
 */
import { existsSync } from "node:fs";
import type { Command } from "commander";
import { InvalidInputError, NotFoundError } from "../../core/index.js";
import { openStore, resolveStore } from "../../store/index.js";
import { exportBundle } from "../../web/export-bundle.js";
import { isLoopback, startViewer } from "../../web/viewer-server.js";
import { COMMAND_SUMMARIES } from "../command-summaries.js";
import type { Io } from "../io.js";
import { dbOption } from "../store-option.js";

interface ServeOptions {
  db?: string;
  port: string;
  host: string;
  export?: string;
}

export function registerServe(program: Command, io: Io): void {
  dbOption(
    program
      .command("serve")
      .description(COMMAND_SUMMARIES.serve)
      .option("--port <n>", "port to listen on (0: any free port)", "7878")
      .option("--host <host>", "address to listen on; anything but loopback needs the token printed at start", "127.0.0.1")
      .option("--export <dir>", "write the pages as static files to DIR (hidden scores and protected contents left out) and exit")
      .addHelpText(
        "after",
        "\nExample:\n  rebench serve --db runs.db            # then open http://127.0.0.1:7878/\n" +
          "  rebench serve --host 0.0.0.0 --port 8080   # prints a URL with the token\n" +
          "  rebench serve --export site/          # static pages for any web server",
      ),
  ).action((options: ServeOptions) => runServe(options, io));
}

async function runServe(options: ServeOptions, io: Io): Promise<void> {
  const target = resolveStore(options.db);
  // A SQLite file that is not there would be created empty; a PostgreSQL database is checked by connecting.
  if (target.kind === "sqlite" && !existsSync(target.path)) {
    throw new NotFoundError(`no run store at ${target.path}`, {
      hint: "record runs first (`rebench main`), or name the store with --db PATH or --db postgres://USER@HOST/DB",
    });
  }
  const port = Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidInputError(`--port must be a port number (0 to 65535), got "${options.port}"`);
  const store = await openStore(target, { readOnly: true });
  try {
    if (options.export) {
      const progress = io.interactive ? (done: number, total: number) => io.err(`\rexported ${done}/${total} runs${done === total ? "\n" : ""}`) : undefined;
      const result = await exportBundle(store, options.export, progress ? { onRun: progress } : {});
      io.out(
        `wrote ${result.runs} runs in ${result.files} files (${(result.bytes / 1e6).toFixed(1)} MB) to ${options.export}: serve it with any web server, e.g. python3 -m http.server -d ${options.export}\n`,
      );
      return;
    }
    const viewer = await startViewer({ store, host: options.host, port });
    io.out(`rebench viewer on ${store.location}\n  open ${viewer.openUrl}\n`);
    if (!isLoopback(options.host)) io.out("  (another host: every request needs the token in that URL; anyone who has it can read every run)\n");
    io.out("  read only; Ctrl-C stops it\n");
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
    await viewer.close();
  } finally {
    await store.close();
  }
}
