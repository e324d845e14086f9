// Media upload, v2 chunked (docs/contract.md, notes-2 section 3): INIT, APPEND (multipart or JSON base64),
// FINALIZE and STATUS, with the notes' sizes, types and expiries. Images finish at FINALIZE;
// GIFs and videos go pending -> in_progress -> succeeded over 2 s of sandbox clock; a file whose
// first bytes do not match its media_type fails with InvalidMedia. The media_key then belongs
// to the uploader (and additional_owners), for the ads media library.
import crypto from 'node:crypto';
import type { SandboxApp } from '../app.js';
import { checkV2Input, ok, problem, queryOf, type SandboxError, type SReq } from '../http.js';
import { messageOf, validate, type Described, type EndpointInput } from '../../contract/params.js';
import { syncLibraryStatus } from '../ads/media-library.js';
import {
  APPEND,
  CATEGORIES,
  INIT,
  MEDIA_ENDPOINTS,
  MEDIA_ID_PATH,
  FINALIZE_EXPIRES_SECS,
  INIT_EXPIRES_SECS,
  bytesMatchType,
  defaultCategory,
  imageSize,
  keyPrefix,
  kindOfCategory,
  sniff,
  type Category,
} from '../../contract/media.js';
import { isOneOf, isRecord, listOf } from '../../contract/guards.js';
import { collectionKey, type Entity } from '../state.js';

export interface Upload extends Entity {
  media_key: string;
  owner: string;
  additional_owners: string[];
  media_type: string;
  media_category: Category;
  total_bytes: number;
  segments: Map<number, Buffer>;
  finalized: boolean;
  state?: 'pending' | 'in_progress' | 'succeeded' | 'failed';
  error?: { code: number; name: string; message: string };
  expires_ms: number;
  width?: number;
  height?: number;
  created_ms: number;
}

const PROCESS_STEP_MS = 1000;

const invalid = (detail: string, parameter?: string) =>
  problem(400, 'Invalid Request', detail, parameter ? { parameter } : {});

/** The uploads of the sandbox, by media id (also read by the ads media library). */
export function uploads(app: SandboxApp): Map<string, Upload> {
  return app.state.collection(UPLOADS);
}

const UPLOADS = collectionKey<Upload>('media_uploads');

function mediaId(): string {
  // 19 digits, like the service's snowflake ids.
  return String(
    1_880_000_000_000_000_000n + BigInt(crypto.randomInt(0, 2 ** 47)) * 1000n + BigInt(crypto.randomInt(0, 1000)),
  );
}

/** An error in the caller's API style: v2 problem (with `parameter`) or v1.1 `errors`. */
export type Fail = (detail: string, parameter?: string) => SandboxError;

/** The contract's check (validate()) of a step, refused in the caller's API style. */
export function checkMedia(e: Described, input: EndpointInput, fail: Fail): void {
  const v = validate(e, input);
  if (v) throw fail(messageOf(v, 'service'), v.label ?? v.name);
}

export function live(app: SandboxApp, id: string | undefined, userId: string, fail: Fail = invalid): Upload {
  const u = id ? uploads(app).get(id) : undefined;
  if (!u || (u.owner !== userId && !u.additional_owners.includes(userId)))
    throw fail(`media_id ${id ?? ''} is not an upload of this user`, 'media_id');
  if (app.clock.now() >= u.expires_ms)
    throw fail(`media_id ${u.id} expired at ${new Date(u.expires_ms).toISOString()}`, 'media_id');
  return u;
}

export interface InitFields {
  media_type: unknown;
  total_bytes: unknown;
  media_category?: unknown;
  additional_owners?: unknown;
}

/** The INIT fields of a JSON body (each checked by initUpload). */
function initFieldsOf(b: Record<string, unknown>): InitFields {
  return {
    media_type: b.media_type,
    total_bytes: b.total_bytes,
    media_category: b.media_category,
    additional_owners: b.additional_owners,
  };
}

/** INIT (v2 JSON, v1.1 form, and the one-shot forms): checks the fields, stores the upload. */
export function initUpload(
  app: SandboxApp,
  userId: string,
  b: InitFields,
  fail: Fail,
  expiresSecs = INIT_EXPIRES_SECS,
): Upload {
  checkMedia(INIT, { body: b }, fail);
  // validate() has checked every field: these narrow what it passed.
  const type = String(b.media_type);
  const category: Category = isOneOf(CATEGORIES, b.media_category) ? b.media_category : defaultCategory(type);
  const total = Number(b.total_bytes);
  const owners = listOf(b.additional_owners);
  const id = mediaId();
  const now = app.clock.now();
  const u: Upload = {
    id,
    media_key: `${keyPrefix(category)}_${id}`,
    owner: userId,
    additional_owners: owners,
    media_type: type,
    media_category: category,
    total_bytes: total,
    segments: new Map(),
    finalized: false,
    expires_ms: now + expiresSecs * 1000,
    created_ms: now,
  };
  uploads(app).set(id, u);
  return u;
}

/** APPEND: one segment (re-sending a segment replaces it: a client whose connection dropped repeats it). */
export function appendSegment(u: Upload, index: string | undefined, bytes: Buffer | undefined, fail: Fail): void {
  if (u.finalized) throw fail(`media ${u.id} is finalized: no more segments`, 'media_id');
  checkMedia(APPEND, { body: { segment_index: index, media: bytes } }, fail);
  if (bytes) u.segments.set(Number(index), bytes);
}

/** FINALIZE: the segments make the file; images are done, GIFs and videos process on the clock. */
export function finalizeUpload(app: SandboxApp, u: Upload, fail: Fail): void {
  if (u.finalized) return;
  const n = u.segments.size;
  const missing: number[] = [];
  for (let i = 0; i < n; i++) if (!u.segments.has(i)) missing.push(i);
  if (missing.length || n === 0)
    throw fail(
      `segments ${missing.length ? missing.join(', ') : '0'} are missing: APPEND them, then FINALIZE`,
      'segment_index',
    );
  const file = Buffer.concat([...u.segments.keys()].sort((a, b) => a - b).map((i) => u.segments.get(i)!));
  if (file.length !== u.total_bytes)
    throw fail(`the segments hold ${file.length} bytes, INIT said total_bytes ${u.total_bytes}`, 'total_bytes');
  u.finalized = true;
  u.segments = new Map([[0, file]]);
  u.expires_ms = Math.min(u.expires_ms, app.clock.now() + FINALIZE_EXPIRES_SECS * 1000);
  const good = bytesMatchType(file.subarray(0, 32), u.media_type);
  const size = imageSize(file);
  if (size) Object.assign(u, { width: size.w, height: size.h });
  // The platform's failure for a video it cannot read (docs/contract.md, notes-2 section 3, v1.1 STATUS).
  const message =
    kindOfCategory(u.media_category) === 'video'
      ? 'Unsupported video format'
      : `the file's bytes are not ${u.media_type}`;
  const error = { code: 1, name: 'InvalidMedia', message };
  if (kindOfCategory(u.media_category) === 'image') {
    u.state = good ? 'succeeded' : 'failed';
    if (!good) u.error = error;
    return;
  }
  u.state = 'pending';
  const t = app.clock.now();
  app.clock.at(t + PROCESS_STEP_MS, () => {
    u.state = 'in_progress';
  });
  app.clock.at(t + 2 * PROCESS_STEP_MS, () => {
    u.state = good ? 'succeeded' : 'failed';
    if (!good) u.error = error;
    syncLibraryStatus(app.state.collection('media_library'), u.media_key, u.state);
  });
}

/** A whole file at once (the one-shot forms): INIT, one APPEND, FINALIZE. */
export function uploadWhole(
  app: SandboxApp,
  userId: string,
  bytes: Buffer,
  f: Partial<Omit<InitFields, 'total_bytes'>>,
  fail: Fail,
): Upload {
  const u = initUpload(
    app,
    userId,
    { ...f, media_type: f.media_type ?? sniff(bytes.subarray(0, 32)), total_bytes: bytes.length },
    fail,
  );
  u.segments.set(0, bytes);
  finalizeUpload(app, u, fail);
  return u;
}

/**
 * The fields of a v2 APPEND as validate() reads them: multipart parts (media as its bytes, the
 * rest as text) or the JSON object (media in base64), every field kept.
 */
function appendBody(req: SReq): Record<string, unknown> {
  const parts = parseMultipart(req);
  if (parts) {
    const b: Record<string, unknown> = {};
    for (const [k, v] of parts) b[k] = k === 'media' ? v : v.toString('utf8');
    return b;
  }
  const j = req.json();
  if (!isRecord(j)) throw invalid('the body must be a JSON object');
  return j;
}

/** multipart/form-data fields (binary-safe): name -> bytes. */
export function parseMultipart(req: SReq): Map<string, Buffer> | undefined {
  const ctype = String(req.headers['content-type'] ?? '');
  const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(ctype);
  if (!ctype.startsWith('multipart/form-data') || !m) return undefined;
  const delim = Buffer.from(`--${m[1] ?? m[2]}`);
  const body = req.rawBody;
  const out = new Map<string, Buffer>();
  let pos = body.indexOf(delim);
  while (pos >= 0) {
    const start = pos + delim.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const headEnd = body.indexOf('\r\n\r\n', start);
    if (headEnd < 0) break;
    const head = body.subarray(start, headEnd).toString('utf8');
    const next = body.indexOf(delim, headEnd + 4);
    if (next < 0) break;
    const name = /name="([^"]*)"/i.exec(head)?.[1];
    if (name !== undefined) out.set(name, body.subarray(headEnd + 4, next - 2)); // minus the CRLF before the delimiter
    pos = next;
  }
  return out;
}

export function dataOf(app: SandboxApp, u: Upload, expiresSecs: number): Record<string, unknown> {
  const d: Record<string, unknown> = {
    id: u.id,
    media_key: u.media_key,
    size: u.total_bytes,
    expires_after_secs: Math.max(0, Math.min(expiresSecs, Math.floor((u.expires_ms - app.clock.now()) / 1000))),
  };
  if (u.state && u.state !== 'succeeded') {
    const info: Record<string, unknown> = { state: u.state };
    if (u.state === 'pending' || u.state === 'in_progress') info.check_after_secs = 1;
    if (u.state === 'in_progress') info.progress_percent = 50;
    if (u.state === 'failed') Object.assign(info, { progress_percent: 12, error: u.error });
    d.processing_info = info;
  } else if (u.state === 'succeeded' && kindOfCategory(u.media_category) !== 'image')
    d.processing_info = { state: 'succeeded', progress_percent: 100 };
  const kind = kindOfCategory(u.media_category);
  if (kind === 'image' && u.width) d.image = { image_type: u.media_type, w: u.width, h: u.height };
  if (kind === 'video' || kind === 'gif') d.video = { video_type: kind === 'gif' ? 'video/mp4' : u.media_type };
  return d;
}

export function install(app: SandboxApp): void {
  const r = app.router;

  r.serve(MEDIA_ENDPOINTS.initialize, (req) => {
    const b = req.json();
    if (!isRecord(b)) throw invalid('the body must be a JSON object');
    checkV2Input(MEDIA_ENDPOINTS.initialize, { body: b });
    const u = initUpload(app, req.auth.userId ?? '', initFieldsOf(b), invalid);
    return ok({ data: { id: u.id, media_key: u.media_key, expires_after_secs: INIT_EXPIRES_SECS } });
  });

  r.serve(MEDIA_ENDPOINTS.append, (req) => {
    checkV2Input(MEDIA_ID_PATH, { path: req.params });
    const body = appendBody(req);
    checkV2Input(MEDIA_ENDPOINTS.append, { path: req.params, body });
    const u = live(app, req.params.id, req.auth.userId ?? '');
    if (u.finalized) throw invalid(`media ${u.id} is finalized: no more segments`, 'media_id');
    const m = body.media;
    const bytes = Buffer.isBuffer(m) ? m : typeof m === 'string' ? Buffer.from(m, 'base64') : undefined;
    appendSegment(u, String(body.segment_index), bytes, invalid);
    return ok({ data: { expires_at: Math.floor(u.expires_ms / 1000) } });
  });

  r.serve(MEDIA_ENDPOINTS.finalize, (req) => {
    checkV2Input(MEDIA_ENDPOINTS.finalize, { path: req.params });
    const u = live(app, req.params.id, req.auth.userId ?? '');
    finalizeUpload(app, u, invalid);
    return ok({ data: dataOf(app, u, FINALIZE_EXPIRES_SECS) });
  });

  r.serve(MEDIA_ENDPOINTS.status, (req) => {
    checkV2Input(MEDIA_ENDPOINTS.status, { query: queryOf(req) });
    const u = live(app, req.query.get('media_id') ?? undefined, req.auth.userId ?? '');
    if (!u.finalized) throw invalid(`media ${u.id} is not finalized yet`, 'media_id');
    return ok({ data: dataOf(app, u, FINALIZE_EXPIRES_SECS) });
  });
}
