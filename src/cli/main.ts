/**
 * @module
 * The `rebench` command line: builds the program from one file per command, runs it, and maps every
 * error to a message and an exit code in one place. Nothing else calls `process.exit`.
 *
 * Exit codes: 0 ok; 1 the command ran and reports a failure; 2 bad input or usage; 3 not found;
 * 4 unavailable here; 5 conflict with the current state; 6 broken infrastructure; 70 internal error.
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Command, CommanderError } from "commander";
import { RebenchError } from "../core/index.js";
import { registerCalibrate } from "./commands/calibrate.js";
import { registerDoctor } from "./commands/doctor.js";
import { registerAssets } from "./commands/assets.js";
import { registerEnvironments } from "./commands/environments.js";
import { registerExploits } from "./commands/exploits.js";
import { registerHuman } from "./commands/human.js";
import { registerMainJob } from "./commands/main-job.js";
import { registerReport } from "./commands/report.js";
import { registerRun } from "./commands/run.js";
import { registerRuns } from "./commands/runs.js";
import { registerRunsResume } from "./commands/runs-resume.js";
import { registerScore } from "./commands/score.js";
import { registerStart } from "./commands/start.js";
import { exitQuietlyOnClosedPipe, type Io, processIo } from "./io.js";

export const EXIT_INTERNAL = 70;

export function buildProgram(io: Io): Command {
  const program = new Command("rebench")
    .description(
      "Measure AI agents and human experts on open-ended ML research engineering (RE-Bench).\n" +
        "Docs: README.md in the rebench checkout.",
    )
    .version("0.1.0")
    .showHelpAfterError("(add --help for usage)")
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .exitOverride();
  registerMainJob(program, io);
  registerEnvironments(program, io);
  registerRuns(program, io);
  registerReport(program, io);
  registerRunsResume(program, io);
  registerStart(program, io);
  registerScore(program, io);
  registerDoctor(program, io);
  registerRun(program, io);
  registerHuman(program, io);
  registerCalibrate(program, io);
  registerExploits(program, io);
  registerAssets(program, io);
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
  const program = buildProgram(io);
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
  if (error instanceof RebenchError) {
    io.err(`rebench: ${error.message}\n`);
    if (error.hint) io.err(`  hint: ${error.hint}\n`);
    return error.exitCode;
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
