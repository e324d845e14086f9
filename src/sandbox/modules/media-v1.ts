// The other media upload forms docs/contract.md, notes-2 section 3 says the emulator serves (xctl itself
// sends only the v2 chunked endpoints, media.ts): v1.1 `/1.1/media/upload.json` (INIT, APPEND,
// FINALIZE, STATUS, and the simple upload with no command: tweepy's media_upload and
// simple_upload, the Ads SDK's media example), and the v2 one-shot `POST /2/media/upload`
// (multipart or JSON base64; also the quickstart's `command=` form, answered in the v2 envelope).
import type { SandboxApp } from '../app.js';
import { checkV1Input, ok, problem, queryOf, v1Error, type Reply, type SReq } from '../http.js';
import { V1Code } from '../../contract/service-errors.js';
import { FINALIZE_EXPIRES_SECS, MEDIA_ENDPOINTS, MEDIA_V1_ENDPOINTS } from '../../contract/media.js';
import {
  appendSegment,
  checkMedia,
  dataOf,
  finalizeUpload,
  initUpload,
  live,
  parseMultipart,
  uploadWhole,
  type Fail,
  type Upload,
} from './media.js';

/** v1.1 gives a media id and a key for 24 h (notes 3 "Expiry"). */
const V1_EXPIRES_SECS = 86_400;

const v1Fail: Fail = (detail) => v1Error(400, V1Code.InvalidParameter, detail);

const v2Fail: Fail = (detail, parameter) => problem(400, 'Invalid Request', detail, parameter ? { parameter } : {});

/** The request's fields, as v1.1 clients send them: multipart, form-urlencoded or the query. */
function fieldsOf(req: SReq): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const [k, v] of req.query) out.set(k, Buffer.from(v));
  for (const [k, v] of req.form) out.set(k, Buffer.from(v));
  for (const [k, v] of parseMultipart(req) ?? []) out.set(k, v);
  return out;
}

const str = (f: Map<string, Buffer>, k: string) => f.get(k)?.toString('utf8');
const owners = (s: string | undefined) => (s ? s.split(',').map((x) => x.trim()) : undefined);
/** The Ads SDK sends its MEDIA_CATEGORY enum in capitals (TWEET_IMAGE); the platform takes either. */
const category = (f: Map<string, Buffer>) => str(f, 'media_category')?.toLowerCase();

/** The file of a simple upload or of an APPEND: `media` (raw bytes) or `media_data` (base64; one, checked). */
function bytesOf(f: Map<string, Buffer>): Buffer | undefined {
  const b64 = str(f, 'media_data');
  return f.get('media') ?? (b64 !== undefined ? Buffer.from(b64, 'base64') : undefined);
}

/** v1.1's answer: the id as a 64-bit number and as a string. */
function v1Shape(app: SandboxApp, u: Upload): Record<string, unknown> {
  const { id, ...rest } = dataOf(app, u, FINALIZE_EXPIRES_SECS);
  return { media_id: BigInt(String(id)), media_id_string: id, ...rest };
}

interface Dialect {
  fail: Fail;
  /** The answer to FINALIZE, STATUS and a whole-file upload. */
  shape(app: SandboxApp, u: Upload): unknown;
  init(u: Upload): unknown;
  append(u: Upload): Reply;
}

const V1: Dialect = {
  fail: v1Fail,
  shape: v1Shape,
  init: (u) => ({
    media_id: BigInt(u.id),
    media_id_string: u.id,
    media_key: u.media_key,
    expires_after_secs: V1_EXPIRES_SECS,
  }),
  // Success: 2XX with an empty body.
  append: () => ({ status: 204 }),
};

const V2: Dialect = {
  fail: v2Fail,
  shape: (app, u) => ({ data: dataOf(app, u, FINALIZE_EXPIRES_SECS) }),
  init: (u) => ({ data: { id: u.id, media_key: u.media_key, expires_after_secs: V1_EXPIRES_SECS } }),
  append: (u) => ok({ data: { expires_at: Math.floor(u.expires_ms / 1000) } }),
};

/** INIT, APPEND or FINALIZE by the `command` field (case-sensitive, as v1.1's). */
function byCommand(app: SandboxApp, req: SReq, f: Map<string, Buffer>, d: Dialect): Reply {
  const user = req.auth.userId ?? '';
  const command = str(f, 'command');
  if (command === 'INIT') {
    const total = str(f, 'total_bytes');
    const u = initUpload(
      app,
      user,
      {
        media_type: str(f, 'media_type'),
        total_bytes: total !== undefined && /^\d{1,12}$/.test(total) ? Number(total) : undefined,
        media_category: category(f),
        additional_owners: owners(str(f, 'additional_owners')),
      },
      d.fail,
      V1_EXPIRES_SECS,
    );
    return ok(d.init(u));
  }
  if (command === 'APPEND') {
    const u = live(app, str(f, 'media_id'), user, d.fail);
    appendSegment(u, str(f, 'segment_index'), bytesOf(f), d.fail);
    return d.append(u);
  }
  if (command === 'FINALIZE') {
    const u = live(app, str(f, 'media_id'), user, d.fail);
    finalizeUpload(app, u, d.fail);
    return ok(d.shape(app, u));
  }
  // validate() (checkFields) has refused any other command.
  throw d.fail(`command must be INIT, APPEND or FINALIZE (got ${JSON.stringify(command ?? '')})`, 'command');
}

/** The fields as validate() reads a body: text values, and `media` as its bytes. */
function bodyOf(f: Map<string, Buffer>): Record<string, unknown> {
  const b: Record<string, unknown> = {};
  for (const [k, v] of f) b[k] = k === 'media' ? v : v.toString('utf8');
  return b;
}

/** POST /1.1/media/upload.json: chunked by `command`, or the simple upload of a whole file. */
function v1Upload(app: SandboxApp, req: SReq): Reply {
  const f = fieldsOf(req);
  checkV1Input(MEDIA_V1_ENDPOINTS.upload, { body: bodyOf(f) });
  if (f.has('command')) return byCommand(app, req, f, V1);
  // validate() has required the file (media or media_data, one of them).
  const bytes = bytesOf(f) ?? Buffer.alloc(0);
  const u = uploadWhole(
    app,
    req.auth.userId ?? '',
    bytes,
    { media_category: category(f), additional_owners: owners(str(f, 'additional_owners')) },
    v1Fail,
  );
  return ok(v1Shape(app, u));
}

/** GET /1.1/media/upload.json?command=STATUS&media_id=... */
function v1Status(app: SandboxApp, req: SReq): Reply {
  checkV1Input(MEDIA_V1_ENDPOINTS.status, { query: queryOf(req) });
  const u = live(app, req.query.get('media_id') ?? undefined, req.auth.userId ?? '', v1Fail);
  if (!u.finalized) throw v1Fail(`media ${u.id} is not finalized yet`, 'media_id');
  return ok(v1Shape(app, u));
}

/** POST /2/media/upload: the whole file at once (multipart, or JSON with `media` in base64). */
function v2OneShot(app: SandboxApp, req: SReq): Reply {
  const parts = parseMultipart(req);
  let f: Map<string, Buffer>;
  if (parts || req.form.length) f = fieldsOf(req);
  else {
    const b = req.json() as Record<string, unknown> | null;
    if (!b || typeof b !== 'object' || Array.isArray(b)) throw v2Fail('the body must be a JSON object');
    f = new Map();
    for (const [k, v] of Object.entries(b))
      if (v !== undefined && v !== null) f.set(k, Buffer.from(Array.isArray(v) ? v.join(',') : String(v)));
    if (typeof b.media === 'string') f.set('media', Buffer.from(b.media, 'base64'));
  }
  checkMedia(MEDIA_ENDPOINTS.oneShot, { body: bodyOf(f) }, v2Fail);
  if (f.has('command')) return byCommand(app, req, f, V2);
  // validate() has required the file and its category.
  const bytes = f.get('media') ?? Buffer.alloc(0);
  const cat = category(f);
  const u = uploadWhole(
    app,
    req.auth.userId ?? '',
    bytes,
    { media_type: str(f, 'media_type'), media_category: cat, additional_owners: owners(str(f, 'additional_owners')) },
    v2Fail,
  );
  return ok(V2.shape(app, u));
}

export function install(app: SandboxApp): void {
  const r = app.router;
  r.serve(MEDIA_V1_ENDPOINTS.upload, (req) => v1Upload(app, req));
  r.serve(MEDIA_V1_ENDPOINTS.status, (req) => v1Status(app, req));
  r.serve(MEDIA_ENDPOINTS.oneShot, (req) => v2OneShot(app, req));
}
