/**
 * @module
 * Where commands print. `main` takes an Io so tests can run commands in-process and read the output.
 */

export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** Whether stdout is an interactive terminal (progress lines, colours). */
  readonly interactive: boolean;
}

export const processIo: Io = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  interactive: Boolean(process.stdout.isTTY),
};

/** Print a value as pretty JSON followed by a newline. */
export function printJson(io: Io, value: unknown): void {
  io.out(`${JSON.stringify(value, null, 2)}\n`);
}

/** Exit quietly when stdout is closed early (`rebench runs list | head`), as Unix tools do. */
export function exitQuietlyOnClosedPipe(): void {
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
}
