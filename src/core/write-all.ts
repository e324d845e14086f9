// fs.writeSync may write less than it was given and say so only in its return value: a file-size
// limit or a nearly full disk takes part of a buffer and fails only the next write. A snapshot,
// a spill or a journal line cut short that way would lose records with no error, so every
// durable write goes through here: it writes the rest until all of it is in, or throws.
import fs from 'node:fs';

/** Writes all of `data` to `fd` (at `position` when given, else at the file's offset). */
export function writeAllSync(fd: number, data: Uint8Array | string, position?: number): void {
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let off = 0;
  while (off < buf.length) {
    const n = fs.writeSync(fd, buf, off, buf.length - off, position === undefined ? null : position + off);
    if (n <= 0) throw Object.assign(new Error(`short write: ${off} of ${buf.length} bytes written`), { code: 'EIO' });
    off += n;
  }
}
