// A real PNG of w x h greyscale pixels, optionally padded with a text chunk to about `bytes`
// (the demo's banner and the upload tests' files: real headers, real sizes).
import zlib from 'node:zlib';

/** @param {number} w @param {number} h @param {number} [bytes] @returns {Buffer} */
export function png(w, h, bytes = 0) {
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(Buffer.concat([Buffer.from(type), data])) >>> 0);
    return Buffer.concat([len, Buffer.from(type), data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  const rows = Buffer.alloc((w + 1) * h, 0x80);
  for (let y = 0; y < h; y++) rows[y * (w + 1)] = 0; // filter byte of each row
  const image = chunk('IDAT', zlib.deflateSync(rows));
  const head = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const used = head.length + 25 + image.length + 12;
  const pad = bytes > used + 12 ? [chunk('tEXt', Buffer.alloc(bytes - used - 12, 0x61))] : [];
  return Buffer.concat([head, chunk('IHDR', ihdr), image, ...pad, chunk('IEND', Buffer.alloc(0))]);
}
