/**
 * @module
 * A small zip writer and reader (deflate, no zip64) for Inspect's `.eval` logs, which are zip files of JSON
 * members: rebench writes them in `rebench runs export --format inspect` and reads them back in `rebench
 * report --format inspect`. Node's zlib does the compression and the CRC; nothing here needs a dependency.
 */
import { crc32, deflateRawSync, inflateRawSync } from "node:zlib";
import { InvalidInputError } from "./errors.js";

export interface ZipEntry {
  name: string;
  data: Buffer;
}

/** DOS date and time of `date` (zip's own format, local fields as UTC). */
function dosTime(date: Date): { time: number; day: number } {
  const time = (date.getUTCHours() << 11) | (date.getUTCMinutes() << 5) | Math.floor(date.getUTCSeconds() / 2);
  const day = ((Math.max(date.getUTCFullYear(), 1980) - 1980) << 9) | ((date.getUTCMonth() + 1) << 5) | date.getUTCDate();
  return { time, day };
}

/** The zip file of `entries`, each deflated, in the order given. */
export function writeZip(entries: readonly ZipEntry[], options: { date?: Date } = {}): Buffer {
  const { time, day } = dosTime(options.date ?? new Date());
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const { name, data } of entries) {
    const nameBytes = Buffer.from(name, "utf8");
    const packed = deflateRawSync(data);
    const crc = crc32(data);
    if (data.length > 0xffffffff || offset > 0xffffffff) throw new InvalidInputError(`zip member ${name} is too large (no zip64 here)`);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8);
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(day, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    local.writeUInt16LE(0, 28);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(0x0800, 8);
    header.writeUInt16LE(8, 10);
    header.writeUInt16LE(time, 12);
    header.writeUInt16LE(day, 14);
    header.writeUInt32LE(crc, 16);
    header.writeUInt32LE(packed.length, 20);
    header.writeUInt32LE(data.length, 24);
    header.writeUInt16LE(nameBytes.length, 28);
    header.writeUInt32LE(offset, 42);
    parts.push(local, nameBytes, packed);
    central.push(header, nameBytes);
    offset += local.length + nameBytes.length + packed.length;
  }
  const centralSize = central.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, ...central, end]);
}

/** The members of a zip file by name (stored or deflated; not zip64), or an error naming `source`. */
export function readZip(zip: Buffer, source = "the file"): Map<string, Buffer> {
  const bad = (why: string) =>
    new InvalidInputError(`${source} is not a zip file rebench can read: ${why}`, { hint: "pass an Inspect .eval log (a zip) or a .json log" });
  let end = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw bad("no end of central directory");
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const out = new Map<string, Buffer>();
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw bad("a broken central directory");
    const method = zip.readUInt16LE(at + 10);
    const packedSize = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const localAt = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString("utf8");
    const dataAt = localAt + 30 + zip.readUInt16LE(localAt + 26) + zip.readUInt16LE(localAt + 28);
    const packed = zip.subarray(dataAt, dataAt + packedSize);
    if (method === 0) out.set(name, Buffer.from(packed));
    else if (method === 8) out.set(name, inflateRawSync(packed));
    else throw bad(`member ${name} uses compression method ${method} (only stored and deflate are read)`);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return out;
}
