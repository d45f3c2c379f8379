/**
 * @module
 * Failures that are the machine's situation, not a bug: a port another process holds, a read-only or full
 * disk, a path the user may not write. Node and SQLite report them as errors with a code wherever they
 * happen (listening, writing `--out`, appending to the store); `main.ts` turns them here, at the edge, into
 * a message that says what to do and exit 4 (not available here), instead of "internal error".
 */
import { type RebenchError, UnavailableError } from "../core/errors.js";

interface CodedError extends Error {
  code?: unknown;
  syscall?: unknown;
  path?: unknown;
  address?: unknown;
  port?: unknown;
}

/** The error (or one of its causes) as an UnavailableError, when it is the machine's situation. */
export function situationError(error: unknown): RebenchError | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const found = fromCode(e as CodedError);
    if (found) return found;
  }
  return undefined;
}

function fromCode(e: CodedError): RebenchError | undefined {
  const code = typeof e.code === "string" ? e.code : undefined;
  const where = typeof e.path === "string" ? e.path : undefined;
  const listening = e.syscall === "listen" || e.syscall === "bind";
  const address = `${typeof e.address === "string" ? e.address : "the address"}${typeof e.port === "number" ? `:${e.port}` : ""}`;
  switch (code) {
    case "EADDRINUSE":
      return new UnavailableError(`${address} is in use by another process`, {
        hint: `pick another port with --port N (--port 0: any free one), or stop what listens there (\`ss -ltnp\` shows it)`,
        cause: e,
      });
    case "EADDRNOTAVAIL":
      return new UnavailableError(`cannot listen on ${address}: it is not an address of this machine`, {
        hint: "pass --host 127.0.0.1, 0.0.0.0 or an address `ip -brief address` lists",
        cause: e,
      });
    case "EACCES":
    case "EPERM":
      if (listening) {
        return new UnavailableError(`no permission to listen on ${address}`, { hint: "ports below 1024 need privileges: pass --port 1024 or above", cause: e });
      }
      if (!where) return undefined;
      return new UnavailableError(`no permission to write ${where}`, {
        hint: "choose a place you may write (--out, --export, --db), or change its permissions",
        cause: e,
      });
    case "EROFS":
      return new UnavailableError(`${where ?? "the path"} is on a read-only file system`, {
        hint: "write somewhere writable instead (--out, --export, --db); a store on read-only media: copy it somewhere writable (`cp STORE COPY`) and pass --db COPY",
        cause: e,
      });
    case "ENOSPC":
    case "EDQUOT":
      return new UnavailableError(`no space left to write ${where ?? "here"}${code === "EDQUOT" ? " (disk quota)" : ""}`, {
        hint: "free some space, or write to another disk",
        cause: e,
      });
    case "SQLITE_READONLY":
    case "SQLITE_READONLY_DIRECTORY":
    case "SQLITE_READONLY_DBMOVED":
      return new UnavailableError(`the run store cannot be written here: ${e.message}`, {
        hint: "the file or its folder is read-only (read-only media, or no write permission): copy the store somewhere writable (`cp STORE COPY`) and pass --db COPY",
        cause: e,
      });
    case "SQLITE_FULL":
      return new UnavailableError(`the run store's disk is full: ${e.message}`, {
        hint: "free some space, or move the store (--db) to another disk",
        cause: e,
      });
    default:
      return undefined;
  }
}
