/**
 * @module
 * Environments keep their reference solutions in an encrypted zip (`reference/reference.zip`, the public
 * password in `reference/unpack.py`), so the solutions are not plain text in the repository. The replay
 * agent uploads them from a host folder that this unpacks the archive into when a reference run starts.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";

/** The `reference.files` of an environment whose folder is `environmentDir`: runs `reference/unpack.py DEST`. */
export function referenceUnpacker(environmentDir: string): (dest: string) => void {
  const script = path.join(environmentDir, "reference", "unpack.py");
  return (dest) => {
    execFileSync("python3", [script, dest], { stdio: ["ignore", "ignore", "pipe"], timeout: 60_000 });
  };
}
