/**
 * @module
 * Quote an argv for `bash -c`: the Sandbox runs command strings, environments declare argv arrays.
 */

/** One argument, single-quoted unless it is made of safe characters only. */
export function shellQuote(arg: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** An argv as one shell command line that runs exactly that argv. */
export function shellJoin(argv: readonly string[]): string {
  return argv.map(shellQuote).join(" ");
}
