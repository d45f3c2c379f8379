/**
 * @module
 * A human run's terminal session for playback: the output `script` recorded beside the run store and its
 * timing file (`--log-timing`: lines `O <seconds> <bytes>` for output, `I ...` for input), or, when those
 * files are gone, the end of the session kept in the run's note, shown at once.
 */
import { readFile } from "node:fs/promises";
import type { StoredEvent } from "../core/index.js";
import type { RecordingView } from "./api-types.js";
import { recordingFiles } from "./run-detail.js";

export async function recordingView(note: StoredEvent): Promise<RecordingView | undefined> {
  if (note.event.type !== "note") return undefined;
  const files = recordingFiles(note);
  if (files) {
    let output = await readFile(files.output);
    // `script --log-out` writes a header line ("Script started on ...") before the session and a footer after.
    if (output.subarray(0, 18).toString("latin1") === "Script started on ") output = output.subarray(output.indexOf(10) + 1);
    const timing = parseTiming(await readFile(files.timing, "utf8"));
    const total = timing.reduce((sum, [, bytes]) => sum + bytes, 0);
    return { output: output.subarray(0, Math.max(total, 0) || output.length).toString("base64"), timing, tailOnly: false };
  }
  const data = (note.event.data ?? {}) as Record<string, unknown>;
  if (typeof data.tail !== "string") return undefined;
  return { output: Buffer.from(data.tail, "utf8").toString("base64"), timing: [], tailOnly: true };
}

/**
 * Output chunks of a timing file, classic (`<seconds> <bytes>`) or multi-stream (`O <seconds> <bytes>`, where
 * an input line's delay counts towards the next output chunk); header lines (`H ...`) are skipped.
 */
export function parseTiming(text: string): [number, number][] {
  const chunks: [number, number][] = [];
  let pending = 0;
  for (const line of text.split("\n")) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 2 || fields[0] === "H") continue;
    const stream = /^[A-Z]$/.test(fields[0]!) ? fields.shift()! : "O";
    const delay = Number(fields[0]);
    const bytes = Number(fields[1]);
    if (!Number.isFinite(delay)) continue;
    if (stream !== "O" || !Number.isInteger(bytes) || bytes < 0) {
      pending += delay;
      continue;
    }
    chunks.push([pending + delay, bytes]);
    pending = 0;
  }
  return chunks;
}
