/**
 * @module
 * The `rebench` command line: builds the program from one file per command, runs it, and maps every
 * error to a message and an exit code in one place. Nothing else calls `process.exit`.
 *
 * Exit codes: 0 ok; 1 the command ran and reports a failure; 2 bad input or usage; 3 not found;
 * 4 unavailable here (also the machine's situation: a port in use, a read-only or full disk, situation-error.ts);
 * 5 conflict with the current state; 6 broken infrastructure; 70 internal error.
 */
import { existsSync, realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Command, CommanderError } from "commander";
import { RebenchError } from "../core/errors.js";
import { COMMAND_SUMMARIES, type CommandName } from "./command-summaries.js";
import { exitQuietlyOnClosedPipe, type Io, processIo } from "./io.js";
import { situationError } from "./situation-error.js";

export const EXIT_INTERNAL = 70;

type Register = (program: Command, io: Io) => void;

/** Each command's registration, loaded only when the command runs (`runs resume` lives beside `runs`). */
const LOADERS: Record<CommandName, () => Promise<Register[]>> = {
  main: async () => [(await import("./commands/main-job.js")).registerMainJob],
  environments: async () => [(await import("./commands/environments.js")).registerEnvironments],
  runs: async () => {
    const [runs, resume, cluster] = await Promise.all([
      import("./commands/runs.js"),
      import("./commands/runs-resume.js"),
      import("./commands/runs-cluster.js"),
    ]);
    return [runs.registerRuns, resume.registerRunsResume, cluster.registerRunsCluster];
  },
  report: async () => [(await importReport()).registerReport],
  serve: async () => [(await import("./commands/serve.js")).registerServe],
  start: async () => [(await import("./commands/start.js")).registerStart],
  score: async () => [(await import("./commands/score.js")).registerScore],
  doctor: async () => [(await import("./commands/doctor.js")).registerDoctor],
  run: async () => [(await import("./commands/run.js")).registerRun],
  human: async () => [(await import("./commands/human.js")).registerHuman],
  calibrate: async () => [(await import("./commands/calibrate.js")).registerCalibrate],
  exploits: async () => [(await import("./commands/exploits.js")).registerExploits],
  review: async () => [(await import("./commands/review.js")).registerReview],
  assets: async () => [(await import("./commands/assets.js")).registerAssets],
  store: async () => [(await import("./commands/store.js")).registerStore],
};

/**
 * `rebench report`'s modules: the bundle that `npm run build` writes beside the compiled CLI
 * (scripts/bundle-cli.mjs), where it exists and REBENCH_NO_BUNDLE is not set; else the modules themselves
 * (run from the sources, or a build by tsc alone).
 */
async function importReport(): Promise<typeof import("./commands/report.js")> {
  const bundle = new URL("./report-bundle/report.js", import.meta.url);
  if (!process.env.REBENCH_NO_BUNDLE && bundle.protocol === "file:" && existsSync(bundle)) return import(bundle.href);
  return import("./commands/report.js");
}

/**
 * The program for `argv`: the named command loaded in full, every other one as its name and summary only
 * (enough for `rebench --help` and for suggestions), so a command costs only what it imports. `all` loads
 * every command (tests of the whole command line).
 */
export async function buildProgram(io: Io, argv: readonly string[] = [], options: { all?: boolean } = {}): Promise<Command> {
  const program = new Command("rebench")
    .description(
      "Measure AI agents and human experts on open-ended ML research engineering (RE-Bench).\n" + "Docs: README.md and docs/ in the rebench checkout.",
    )
    .version("0.1.0")
    .showHelpAfterError("(add --help for usage)")
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .exitOverride();
  const words = argv.slice(2).filter((arg) => !arg.startsWith("-"));
  const named = words[0] === "help" ? words[1] : words[0]; // `rebench help run` shows run's full help
  for (const name of Object.keys(COMMAND_SUMMARIES) as CommandName[]) {
    if (options.all || name === named) for (const register of await LOADERS[name]()) register(program, io);
    else program.command(name).description(COMMAND_SUMMARIES[name]).allowUnknownOption().helpOption(false);
  }
  for (const command of allCommands(program)) {
    command.exitOverride();
    command.configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) });
  }
  return program;
}

function allCommands(command: Command): Command[] {
  return command.commands.flatMap((c) => [c, ...allCommands(c)]);
}

export { exitQuietlyOnClosedPipe };

/** Run the CLI with `argv` (as in process.argv) and return the exit code. */
export async function main(argv: readonly string[], io: Io = processIo): Promise<number> {
  const program = await buildProgram(io, argv);
  try {
    await program.parseAsync([...argv]);
    return 0;
  } catch (error) {
    return exitCodeFor(error, io);
  }
}

export function exitCodeFor(error: unknown, io: Io): number {
  if (error instanceof CommanderError) {
    // Commander already printed its message (or the help / version text).
    return error.exitCode === 0 ? 0 : 2;
  }
  const known = error instanceof RebenchError ? error : situationError(error);
  if (known) {
    io.err(`rebench: ${known.message}\n`);
    if (known.hint) io.err(`  hint: ${known.hint}\n`);
    return known.exitCode;
  }
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.err(`rebench: internal error (a bug; please report it with this output):\n${text}\n`);
  return EXIT_INTERNAL;
}

// Run directly (`tsx src/cli/main.ts ...`): behave like the binary.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  exitQuietlyOnClosedPipe();
  process.exitCode = await main(process.argv);
}
