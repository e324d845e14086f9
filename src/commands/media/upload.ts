// `xctl media upload FILE`: INIT, APPEND in 4 MiB segments, FINALIZE, then STATUS until the
// service has processed the media; prints the media_key. A dropped connection during an APPEND
// re-sends that segment (the service keeps the last copy of each index), so the upload goes on
// where it stopped instead of starting over. `--add-to-library` registers the key in the ads
// media library of the account.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { ApiError, UsageError, XctlError } from '../../core/errors.js';
import { printOne, shellWord } from '../../core/output.js';
import {
  CHUNK_BYTES,
  CLI_CATEGORIES,
  INIT_PATH,
  STATUS_PATH,
  MEDIA_ENDPOINTS,
  appendPath,
  defaultCategory,
  finalizePath,
  kindOfType,
  sniff,
  bytesMatchType,
  type Category,
} from '../../contract/media.js';
import { checkInput } from '../../core/check-input.js';
import { declare } from '../define.js';

export interface UploadOptions {
  file: string;
  category?: string;
  addToLibrary?: boolean;
  name?: string;
  /** Longest wait for processing, in seconds. */
  waitSeconds: number;
  /** Print the first request (INIT) and what would follow; send nothing. */
  dryRun?: boolean;
}

interface Processing {
  state?: string;
  check_after_secs?: number;
  progress_percent?: number;
  error?: { name?: string; message?: string };
}
interface MediaData {
  id: string;
  media_key: string;
  size?: number;
  processing_info?: Processing;
  image?: { w?: number; h?: number };
}

const EXT_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.bmp': 'image/bmp',
  '.mp4': 'video/mp4',
  '.m4v': 'video/mp4',
  '.mov': 'video/quicktime',
  '.webm': 'video/webm',
  '.ts': 'video/mp2t',
  '.srt': 'text/srt',
  '.vtt': 'text/vtt',
};

export function register(media: Command, runF = runUpload): void {
  declare(media, {
    name: 'upload',
    description:
      'upload an image, GIF or video in chunks, wait for processing, print its media_key — POST /2/media/upload/initialize, /append, /finalize',
    arguments: [['<file>', 'an image, GIF or video file']],
    options: [
      {
        flags: '--category <category>',
        description:
          'media_category (default from the file: tweet_image, tweet_gif, tweet_video; amplify_video with --add-to-library)',
        choices: [...CLI_CATEGORIES],
      },
      ['--add-to-library', 'also add it to the ads media library of --account'],
      ['--name <name>', 'media library name (with --add-to-library; max 100 chars)'],
      ['--wait-seconds <n>', 'longest wait for processing', '600'],
      ['--dry-run', 'print the first request (INIT) and the segments that would follow; send nothing'],
    ],
    run: (ctx, o, [file]) =>
      runF(ctx, {
        file,
        category: o.category,
        addToLibrary: !!o.addToLibrary,
        name: o.name,
        waitSeconds: Number(o.waitSeconds),
        dryRun: !!o.dryRun,
      }),
  });
}

/** The media type of a file: its first bytes, else its extension. */
function mediaTypeOf(file: string, head: Buffer): string | undefined {
  return sniff(head) ?? EXT_TYPES[path.extname(file).toLowerCase()];
}

function multipart(fields: Array<[string, string | Buffer]>): { body: Buffer; contentType: string } {
  const boundary = `xctl-${randomBytes(12).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [name, value] of fields) {
    const file = Buffer.isBuffer(value);
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${file ? '; filename="blob"' : ''}\r\n${file ? 'Content-Type: application/octet-stream\r\n' : ''}\r\n`,
      ),
    );
    parts.push(file ? value : Buffer.from(value));
    parts.push(Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** 3.6 kB, 1.2 MB: what a small file is too (issue 46: a 3.6 KB image read "0.0 of 0.0 MB"). */
export function humanBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  return n < 1048576 ? `${(n / 1024).toFixed(1)} kB` : `${(n / 1048576).toFixed(1)} MB`;
}

/**
 * A one-line bar on a terminal, drawn as the audience uploads draw theirs (`▕███░░░▏ 42%`);
 * nothing elsewhere (the result line says it all).
 */
export function progressBar(ctx: Context, total: number): { update(done: number, note?: string): void; stop(): void } {
  const on = ctx.io.isStderrTTY && ctx.io.progressEnabled && !ctx.io.quiet;
  let last = 0;
  return {
    update(done, note) {
      if (!on) return;
      const frac = total ? done / total : 1;
      const full = Math.round(frac * 24);
      const line = `▕${'█'.repeat(full)}${'░'.repeat(24 - full)}▏ ${String(Math.round(frac * 100)).padStart(3)}% ${humanBytes(done)}/${humanBytes(total)}${note ? ` · ${note}` : ''}`;
      ctx.io.stderr.write('\r' + line.padEnd(last));
      last = line.length;
    },
    stop() {
      if (on && last) ctx.io.stderr.write('\n');
      last = 0;
    },
  };
}

/** STATUS's check_after_secs: a whole second to ten minutes; anything else (a string, NaN, 0) is one second. */
export function checkAfterMs(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? Math.min(600, Math.max(1, v)) * 1000 : 1000;
}

/** The file was replaced, grew, shrank or was written to since it was opened. */
function fileChanged(a: fs.Stats, b: fs.Stats): boolean {
  return a.size !== b.size || a.mtimeMs !== b.mtimeMs || a.ino !== b.ino;
}

function changedDuringUpload(file: string, id: string): XctlError {
  return new XctlError(`${file} changed while it was uploaded: media ${id} was not finalized`, {
    hint: 'upload it again once nothing writes to it (or upload a copy)',
  });
}

/** --dry-run: the first request (INIT) as it would go, and what would follow; nothing is sent. */
async function dryRunUpload(
  ctx: Context,
  init: { method: string; host: 'api'; path: string; json: unknown },
  size: number,
  library: boolean,
): Promise<void> {
  const { printRequest } = await import('../dry-run.js');
  await printRequest(ctx, init);
  const segments = Math.max(1, Math.ceil(size / CHUNK_BYTES));
  ctx.io.info(
    `dry run: nothing was sent (then ${segments} APPEND of up to ${CHUNK_BYTES / 1048576} MiB, ` +
      `FINALIZE${library ? ', the media library entry' : ''})`,
  );
}

export async function runUpload(ctx: Context, o: UploadOptions): Promise<void> {
  if (o.name !== undefined && !o.addToLibrary)
    throw new UsageError('--name is for the media library: add --add-to-library', { flag: '--name' });
  if (o.name !== undefined && (o.name.length < 1 || o.name.length > 100))
    throw new UsageError('--name must be 1-100 characters', { flag: '--name' });
  if (!Number.isFinite(o.waitSeconds) || o.waitSeconds < 0)
    throw new UsageError('--wait-seconds must be a number of seconds', { flag: '--wait-seconds' });
  let stat: fs.Stats;
  try {
    stat = fs.statSync(o.file);
  } catch {
    throw new UsageError(`<file>: cannot read ${o.file}`, { flag: '<file>' });
  }
  if (!stat.isFile()) throw new UsageError(`<file>: ${o.file} is not a file`, { flag: '<file>' });
  const fd = fs.openSync(o.file, 'r');
  try {
    stat = fs.fstatSync(fd); // what is read is what was opened
    const head = Buffer.alloc(32);
    fs.readSync(fd, head, 0, 32, 0);
    const mediaType = mediaTypeOf(o.file, head);
    if (!mediaType)
      throw new UsageError(
        `<file>: cannot tell what ${path.basename(o.file)} is (png, jpeg, gif, webp, mp4, mov, webm...)`,
        { flag: '<file>' },
      );
    // Named .png but not a PNG (a text file...): refused before a byte is sent (issue 46), as
    // the service would refuse it after the whole upload.
    if (stat.size > 0 && !bytesMatchType(head.subarray(0, Math.min(32, stat.size)), mediaType))
      throw new UsageError(
        `<file>: ${path.basename(o.file)} is named as ${mediaType} but its first bytes are not ${mediaType}'s: nothing was sent`,
        { flag: '<file>' },
      );
    const category =
      (o.category as Category | undefined) ??
      (o.addToLibrary && kindOfType(mediaType) === 'video' ? 'amplify_video' : defaultCategory(mediaType));
    if (!(CLI_CATEGORIES as readonly string[]).includes(category))
      throw new UsageError(`<file>: ${mediaType} is not media for posts or ads`, { flag: '<file>' });
    const initBody = { media_type: mediaType, total_bytes: stat.size, media_category: category };
    // INIT as the service checks it: the type, the size and the category's limits.
    checkInput(MEDIA_ENDPOINTS.initialize, { body: initBody });
    const accountId = o.addToLibrary ? await ctx.accountId() : undefined;

    const initReq = { method: 'POST', host: 'api' as const, path: INIT_PATH, json: initBody };
    if (o.dryRun) return await dryRunUpload(ctx, initReq, stat.size, !!o.addToLibrary);
    const http = await ctx.http();
    const init = await http.request<{ data: MediaData }>({ ...initReq, auth: 'user' });
    const id = init.data.data.id;
    const bar = progressBar(ctx, stat.size);
    let sent = 0;
    try {
      sent = await appendChunks(http, { fd, id, size: stat.size, file: o.file, bar });
      if (fileChanged(stat, fs.fstatSync(fd))) throw changedDuringUpload(o.file, id);
      let data = (
        await http.request<{ data: MediaData }>({
          method: 'POST',
          host: 'api',
          path: finalizePath(id),
          auth: 'user',
          idempotent: true,
        })
      ).data.data;
      data = await awaitProcessing(ctx, http, { id, data, waitSeconds: o.waitSeconds, bar, sent });
      // The last word of the bar is the outcome, not the last "processing N%" polled.
      if (data.processing_info)
        bar.update(sent, data.processing_info.state === 'failed' ? 'processing failed' : 'processed');
      bar.stop();
      if (data.processing_info?.state === 'failed') {
        const e = data.processing_info.error;
        throw new ApiError(
          `media ${id} failed processing: ${e?.name ?? 'error'}${e?.message ? `: ${e.message}` : ''}`,
          { hint: 'check that the file is what its type says, and the limits of its category' },
        );
      }
      const out: Record<string, unknown> = {
        media_key: data.media_key,
        media_id: id,
        media_category: category,
        media_type: mediaType,
        size: data.size ?? stat.size,
        state: data.processing_info?.state ?? 'succeeded',
      };
      const columns = [
        'media_key',
        'media_id',
        'media_category',
        'size',
        'state',
        ...(accountId !== undefined ? ['library'] : []),
      ];
      if (accountId !== undefined) {
        out.library = await addToLibrary(ctx, http, { accountId, mediaKey: data.media_key, o, out, columns });
      }
      await printOne(ctx.io, await ctx.output(), out, { columns });
    } finally {
      bar.stop();
    }
  } finally {
    fs.closeSync(fd);
  }
}

type MediaHttp = Awaited<ReturnType<Context['http']>>;
type Bar = ReturnType<typeof progressBar>;

/** APPEND: the file in chunks, read from the opened descriptor; the bytes sent. */
async function appendChunks(
  http: MediaHttp,
  o: { fd: number; id: string; size: number; file: string; bar: Bar },
): Promise<number> {
  const { fd, id, bar } = o;
  const buf = Buffer.alloc(Math.min(CHUNK_BYTES, o.size));
  let sent = 0;
  for (let index = 0; sent < o.size; index++) {
    const want = Math.min(CHUNK_BYTES, o.size - sent);
    const n = fs.readSync(fd, buf, 0, want, sent);
    if (n !== want) throw changedDuringUpload(o.file, id);
    const { body, contentType } = multipart([
      ['segment_index', String(index)],
      ['media', buf.subarray(0, n)],
    ]);
    // Repeating an APPEND replaces its segment: safe to retry after a dropped connection.
    await http.request({
      method: 'POST',
      host: 'api',
      path: appendPath(id),
      auth: 'user',
      body,
      headers: { 'content-type': contentType },
      idempotent: true,
    });
    sent += n;
    bar.update(sent);
  }
  return sent;
}

/** STATUS polled as check_after_secs says until processing ends, or --wait-seconds is spent. */
async function awaitProcessing(
  ctx: Context,
  http: MediaHttp,
  o: { id: string; data: MediaData; waitSeconds: number; bar: Bar; sent: number },
): Promise<MediaData> {
  const { id, bar, sent } = o;
  let data = o.data;
  const deadline = ctx.clock.now() + o.waitSeconds * 1000;
  while (
    data.processing_info &&
    (data.processing_info.state === 'pending' || data.processing_info.state === 'in_progress')
  ) {
    const wait = checkAfterMs(data.processing_info.check_after_secs);
    if (ctx.clock.now() + wait > deadline) {
      throw new ApiError(`media ${id} is still ${data.processing_info.state} after ${o.waitSeconds} s`, {
        hint: `its media_key is ${data.media_key}; check later with \`xctl request '/2/media/upload?command=STATUS&media_id=${id}'\``,
      });
    }
    bar.update(sent, `processing ${data.processing_info.progress_percent ?? 0}%`);
    await ctx.clock.sleep(wait, ctx.signal);
    data = (
      await http.request<{ data: MediaData }>({
        method: 'GET',
        host: 'api',
        path: STATUS_PATH,
        query: { command: 'STATUS', media_id: id },
        auth: 'user',
      })
    ).data.data;
  }
  return data;
}

/** The media added to the ads account's media library; on failure the media_key is printed first. */
async function addToLibrary(
  ctx: Context,
  http: MediaHttp,
  r: { accountId: string; mediaKey: string; o: UploadOptions; out: Record<string, unknown>; columns: string[] },
): Promise<unknown> {
  const { accountId, o, out, columns } = r;
  const form: Record<string, string> = {
    media_key: r.mediaKey,
    file_name: path.basename(o.file).slice(0, 255),
  };
  if (o.name !== undefined) form.name = o.name;
  try {
    const lib = await http.request<{ data: Record<string, unknown> }>({
      method: 'POST',
      host: 'ads',
      path: `/12/accounts/${encodeURIComponent(accountId)}/media_library`,
      auth: 'user',
      form,
    });
    return lib.data.data.media_status ?? 'added';
  } catch (e) {
    // Uploaded but not added: print the media_key (nothing is lost), then fail.
    await printOne(ctx.io, await ctx.output(), { ...out, library: 'failed' }, { columns });
    throw libraryFailed(e, r.mediaKey, o.name);
  }
}

/** The error of an upload that could not be added to the library: its hint adds it later. */
function libraryFailed(e: unknown, mediaKey: string, name?: string): unknown {
  if (!(e instanceof XctlError)) return e;
  const again = `xctl ads media-library add --media-key ${mediaKey}${name !== undefined ? ` --name ${shellWord(name)}` : ''}`;
  e.message = `uploaded as ${mediaKey}, but not added to the media library: ${e.message}`;
  e.hint = `${e.hint ? `${e.hint}; ` : ''}the upload is kept: add it with \`${again}\``;
  return e;
}
