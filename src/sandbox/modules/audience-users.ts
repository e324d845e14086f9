// Audience user uploads: POST /12/accounts/:account_id/custom_audiences/:id/users and
// POST /12/batch/accounts/:account_id/do_not_reach_lists/:id/users (docs/contract.md, ads 4.4, 8).
// Keeps the exact set of distinct hashed users per list and reports it as `audience_size`.
// The batch is all-or-nothing: every operation is checked before any is applied.
import type { IncomingMessage } from 'node:http';
import type { SandboxApp } from '../app.js';
import { SandboxError, adsError, checkV2Input, ok, type SReq } from '../http.js';
import { slotKey, type Entity } from '../state.js';
import { DigestSet, parseDigest } from '../digest-set.js';
import { ScannedBatch, UploadScanner } from '../upload-scan.js';
import { messageOf, validate } from '../../contract/params.js';
import {
  MAX_BYTES,
  MAX_OPERATIONS,
  UNHASHED_TYPE,
  UPLOAD_ENDPOINTS,
  WIRE_KEYS,
  type IdType,
} from '../../contract/audience-users.js';
import { AdsCode } from '../../contract/service-errors.js';
import { SANDBOX_ADMIN_ENDPOINTS } from '../../contract/sandbox-admin.js';
import { isRecord, listOf, listOrUndefined } from '../../contract/guards.js';

const HASHED = /^[0-9a-f]{64}$/;
const AUDIENCE_KEYS = new Set(WIRE_KEYS.custom_audience);
const DNR_KEYS = new Set(WIRE_KEYS.do_not_reach_list);

type Kind = 'custom_audiences' | 'do_not_reach_lists';

// Hashed identifier types (the contract's names) stored as binary digests, by number; service_id
// is the platform's twitter_id. A name the contract does not have, or a hashed one left out, does
// not compile.
const DIGEST_TYPE_NUMBERS: Record<Exclude<IdType, typeof UNHASHED_TYPE> | 'service_id', number> = {
  email: 0,
  device_id: 1,
  handle: 2,
  twitter_id: 3,
  service_id: 3,
  phone_number: 4,
};
const DIGEST_TYPES: Record<string, number> = DIGEST_TYPE_NUMBERS;

/** One list's distinct users: single-identifier users as digests per type, others by canonical key. */
interface ListUsers {
  digests: DigestSet[];
  other: Set<string>;
  /** What reached the list: requests applied, and users in their Update and Delete operations. */
  requests: number;
  updated: number;
  deleted: number;
}

interface SavedListUsers {
  digests: string[][];
  other: string[];
  requests: number;
  updated: number;
  deleted: number;
}

// Saved as hex digests per identifier type, so a state file reloads to the same audience sizes.
const LIST_USERS = slotKey<Map<string, ListUsers>>('audience-users', () => new Map(), {
  save: (m) =>
    Object.fromEntries(
      [...m].map(([k, u]): [string, SavedListUsers] => [
        k,
        {
          digests: u.digests.map((d) => [...d.hex()]),
          other: [...u.other],
          requests: u.requests,
          updated: u.updated,
          deleted: u.deleted,
        },
      ]),
    ),
  load: (j) => {
    const m = new Map<string, ListUsers>();
    const words = new Uint32Array(8);
    for (const [k, v] of Object.entries((j ?? {}) as Record<string, SavedListUsers>)) {
      const digests = [0, 1, 2, 3, 4].map((i) => {
        const set = new DigestSet();
        for (const h of v.digests?.[i] ?? []) if (parseDigest(h, words, 0)) set.add(words, 0);
        return set;
      });
      m.set(k, {
        digests,
        other: new Set(v.other ?? []),
        requests: v.requests ?? 0,
        updated: v.updated ?? 0,
        deleted: v.deleted ?? 0,
      });
    }
    return m;
  },
});

function usersOf(app: SandboxApp, kind: Kind, id: string): ListUsers {
  const all = app.state.slot(LIST_USERS);
  let s = all.get(`${kind}/${id}`);
  if (!s) {
    s = { digests: [0, 1, 2, 3, 4].map(() => new DigestSet()), other: new Set(), requests: 0, updated: 0, deleted: 0 };
    all.set(`${kind}/${id}`, s);
  }
  return s;
}

/** The exact number of distinct users a custom audience or do-not-reach list holds. */
export function distinctUsers(app: SandboxApp, kind: Kind, id: string): number {
  const u = usersOf(app, kind, id);
  return u.digests.reduce((n, d) => n + d.size, 0) + u.other.size;
}

function bad(message: string, parameter?: string): never {
  throw adsError(400, AdsCode.InvalidParameter, message, parameter);
}

/**
 * An item-level failure: `operation_errors` holds one list per operation of the request and
 * the failure sits at its operation's index (docs/contract.md, ads 7); request-level ones stay in `errors`.
 */
function badAt(at: { i: number; n: number }, message: string, parameter?: string): never {
  const operation_errors: Array<Array<Record<string, unknown>>> = Array.from({ length: at.n }, () => []);
  operation_errors[at.i]!.push({ code: AdsCode.InvalidParameter, message, ...(parameter ? { parameter } : {}) });
  throw new SandboxError({ status: 400, body: { operation_errors } });
}

/** Checks the caller may act on the account: it must list the user (docs/contract.md, ads section 5). */
function accountFor(req: SReq, app: SandboxApp): Entity {
  const acct = app.state.collection('accounts').get(req.params.account_id!);
  const users = listOrUndefined(acct?.user_ids) ?? [];
  if (!acct || acct.deleted || !req.auth.userId || !users.includes(req.auth.userId)) {
    throw adsError(403, AdsCode.AccountNotFound, `Account ${req.params.account_id} was not found for this user`);
  }
  return acct;
}

interface Checked {
  /** Per operation: its single-digest users [from, to) in `words`/`types`, and its other users' keys. */
  ops: Array<{ del: boolean; from: number; to: number; other: string[] }>;
  words: Uint32Array;
  types: Uint8Array;
  total: number;
}

/** The identifier types each kind of list takes, by wire name, with their digest type numbers. */
function digestTypesOf(keys: Set<string>): Map<string, number> {
  const m = new Map<string, number>();
  for (const k of keys) if (DIGEST_TYPES[k] !== undefined) m.set(k, DIGEST_TYPES[k]);
  return m;
}
const SCAN_TYPES: Record<Kind, ReadonlyMap<string, number>> = {
  custom_audiences: digestTypesOf(AUDIENCE_KEYS),
  do_not_reach_lists: digestTypesOf(DNR_KEYS),
};

/**
 * Reads an upload body as it arrives (upload-scan.ts): JSON bodies only, and none larger than
 * the service takes (they are refused whole, without a scan).
 */
function scanFor(kind: Kind) {
  return (req: IncomingMessage): UploadScanner | undefined => {
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) return undefined;
    const bytes = Number(req.headers['content-length'] ?? NaN);
    if (bytes > MAX_BYTES) return undefined;
    return new UploadScanner(SCAN_TYPES[kind], Number.isFinite(bytes) ? bytes : undefined);
  };
}

/** A scanned body as checked: each operation (type, times), in order, as the JSON path checks them. */
function checkedScan(b: ScannedBatch, checkOperation: (op: unknown, at: { i: number; n: number }) => void): Checked {
  for (const [i, op] of b.ops.entries()) {
    const params: Record<string, unknown> = {};
    if (op.effectiveAt !== undefined) params.effective_at = JSON.parse(op.effectiveAt);
    if (op.expiresAt !== undefined) params.expires_at = JSON.parse(op.expiresAt);
    checkOperation({ operation_type: op.del ? 'Delete' : 'Update', params }, { i, n: b.ops.length });
  }
  const ops = b.ops.map((op) => ({ del: op.del, from: op.from, to: op.to, other: [] }));
  return { ops, words: b.words, types: b.types, total: b.total };
}

/**
 * The contract's check of one operation (its type, params, effective_at and expires_at against
 * the service's clock), the one validate() the CLI runs on its flags. Per operation, not per user.
 */
function operationChecker(kind: Kind, now: number) {
  const e = UPLOAD_ENDPOINTS[kind === 'do_not_reach_lists' ? 'do_not_reach_list' : 'custom_audience'];
  return (op: unknown, at: { i: number; n: number }) => {
    const v = validate(e, { body: op }, { now });
    if (v) badAt(at, messageOf(v, 'service'), v.label ?? v.name);
  };
}

/** Validates the whole batch; returns each operation's canonical user keys. */
function checkBatch(req: SReq, app: SandboxApp, kind: Kind): Checked {
  if (!String(req.headers['content-type'] ?? '').startsWith('application/json'))
    bad('The request body must be JSON (Content-Type: application/json)');
  const scanned = req.scanned instanceof ScannedBatch ? req.scanned : undefined;
  if ((scanned?.bytes ?? req.rawBody.length) > MAX_BYTES)
    throw adsError(413, AdsCode.InvalidParameter, `The request body exceeds ${MAX_BYTES} bytes`);
  const checkOperation = operationChecker(kind, app.clock.now());
  if (scanned) return checkedScan(scanned, checkOperation);
  const body = req.json();
  if (!Array.isArray(body) || body.length === 0) bad('The body must be a non-empty JSON array of operations');
  const ops: unknown[] = body;
  if (body.length > MAX_OPERATIONS) bad(`At most ${MAX_OPERATIONS} operations per request (got ${body.length})`);
  const allowed = kind === 'custom_audiences' ? AUDIENCE_KEYS : DNR_KEYS;
  let total = 0;
  for (const op of ops) {
    const users = isRecord(op) && isRecord(op.params) ? op.params.users : undefined;
    if (Array.isArray(users)) total += users.length;
  }
  const out: Checked = { ops: [], words: new Uint32Array(total * 8), types: new Uint8Array(total), total: 0 };
  let simple = 0;
  ops.forEach((op, i) => {
    const at = { i, n: ops.length };
    if (!op || typeof op !== 'object') badAt(at, `operation ${i} must be an object`);
    // A list has no named fields: it fails on operation_type (validate()).
    checkOperation(op, at);
    const o = isRecord(op) ? op : {};
    // A list of params has no named fields: it fails on users below.
    const p = isRecord(o.params) ? o.params : {};
    const users = p.users;
    if (!Array.isArray(users) || users.length === 0)
      badAt(at, `operation ${i}: users must be a non-empty array`, 'users');
    const from = simple;
    const other: string[] = [];
    for (let u = 0; u < users.length; u++) {
      const user: unknown = users[u];
      if (!isRecord(user)) badAt(at, `operation ${i}, user ${u}: must be an object`, 'users');
      let k1 = '';
      let nk = 0;
      for (const k in user) {
        if (nk++ === 0) k1 = k;
        else break;
      }
      if (nk === 0) badAt(at, `operation ${i}, user ${u}: no identifier`, 'users');
      // The common shape, one hashed value of one type: parsed straight into the digest buffer.
      if (nk === 1) {
        const k = k1;
        const vals = user[k];
        const t = DIGEST_TYPES[k];
        if (
          t !== undefined &&
          allowed.has(k) &&
          Array.isArray(vals) &&
          vals.length === 1 &&
          typeof vals[0] === 'string' &&
          parseDigest(vals[0], out.words, simple * 8)
        ) {
          out.types[simple++] = t;
          continue;
        }
      }
      const parts: string[] = [];
      for (const k of Object.keys(user)) {
        if (!allowed.has(k))
          badAt(
            at,
            `operation ${i}, user ${u}: unknown identifier type "${k}"${kind === 'do_not_reach_lists' ? ' (do-not-reach lists take email and phone_number)' : ''}`,
            k,
          );
        const vals = user[k];
        if (!Array.isArray(vals) || vals.length === 0)
          badAt(at, `operation ${i}, user ${u}: ${k} must be a non-empty array of strings`, k);
        for (const v of vals) {
          if (typeof v !== 'string') badAt(at, `operation ${i}, user ${u}: ${k} values must be strings`, k);
          if (k === UNHASHED_TYPE ? v.length === 0 : !HASHED.test(v)) {
            badAt(
              at,
              `operation ${i}, user ${u}: ${k} values must be SHA-256 hashed (64 lowercase hex characters) after normalization`,
              k,
            );
          }
        }
        parts.push(`${k === 'service_id' ? 'twitter_id' : k}:${[...new Set(listOf(vals))].sort().join(',')}`);
      }
      other.push(parts.sort().join('|'));
    }
    out.ops.push({ del: o.operation_type === 'Delete', from, to: simple, other });
    out.total += users.length;
  });
  return out;
}

/** Applies a checked batch to a list's users, operation by operation. */
function applyChecked(lu: ListUsers, checked: Checked): void {
  const { words, types } = checked;
  lu.requests++;
  for (const op of checked.ops) {
    const n = op.to - op.from + op.other.length;
    if (op.del) lu.deleted += n;
    else lu.updated += n;
    for (let j = op.from; j < op.to; ) {
      // A run of users of one type (usually the whole operation) goes in as a group.
      let end = j + 1;
      while (end < op.to && types[end] === types[j]) end++;
      const set = lu.digests[types[j]!]!;
      if (op.del) for (let x = j; x < end; x++) set.delete(words, x * 8);
      else set.addMany(words, j, end);
      j = end;
    }
    for (const k of op.other) {
      if (op.del) lu.other.delete(k);
      else lu.other.add(k);
    }
  }
}

function handler(kind: Kind) {
  const serve = batchHandler(kind);
  return (req: SReq, app: SandboxApp) => {
    try {
      return serve(req, app);
    } finally {
      // The scanned body's buffers go back to the pool however the request ends (applied,
      // refused, or a list not found): nothing reads them afterwards.
      if (req.scanned instanceof ScannedBatch) req.scanned.release();
    }
  };
}

function batchHandler(kind: Kind) {
  return (req: SReq, app: SandboxApp) => {
    accountFor(req, app);
    const idParam = kind === 'custom_audiences' ? 'custom_audience_id' : 'do_not_reach_list_id';
    const id = req.params[idParam]!;
    const list = app.state.collection(kind).get(id);
    if (!list || list.deleted || list.account_id !== req.params.account_id)
      throw adsError(
        404,
        AdsCode.NotFound,
        `${kind === 'custom_audiences' ? 'Custom audience' : 'Do-not-reach list'} ${id} was not found`,
        idParam,
      );
    const checked = checkBatch(req, app, kind);
    const request = { params: { account_id: req.params.account_id, [idParam]: id } };
    // Fault knob: answer with a short count and apply nothing, as a failed batch would.
    if (app.faults.roll('short_count_rate', req.method, req.path)) {
      return ok({ request, data: { success_count: Math.max(0, checked.total - 1), total_count: checked.total } });
    }
    applyChecked(usersOf(app, kind, id), checked);
    list.audience_size = distinctUsers(app, kind, id);
    list.updated_at = app.clock.iso();
    return ok({ request, data: { success_count: checked.total, total_count: checked.total } });
  };
}

/** The digest types by number, as stored (twitter_id holds service_id too). */
const TYPE_NAMES: string[] = [];
for (const [name, n] of Object.entries(DIGEST_TYPES)) TYPE_NAMES[n] ??= name;

export function install(app: SandboxApp): void {
  // Members cannot be read back from the service; the sandbox shows them so that tests and CI
  // can check an audience against the file it should equal. Loopback admin only.
  app.router.serve(SANDBOX_ADMIN_ENDPOINTS.audienceMembers, (req) => {
    checkV2Input(SANDBOX_ADMIN_ENDPOINTS.audienceMembers, { path: req.params });
    const kind: Kind = req.params.kind === 'custom_audiences' ? 'custom_audiences' : 'do_not_reach_lists';
    const lu = usersOf(app, kind, req.params.id!);
    const members: Record<string, string[]> = {};
    lu.digests.forEach((d, t) => {
      if (d.size > 0) members[TYPE_NAMES[t]!] = [...d.hex()].sort();
    });
    return ok({
      data: {
        size: distinctUsers(app, kind, req.params.id!),
        requests: lu.requests,
        updated: lu.updated,
        deleted: lu.deleted,
        members,
        other: [...lu.other].sort(),
      },
    });
  });
  app.router.serve(UPLOAD_ENDPOINTS.custom_audience, handler('custom_audiences'), {
    scan: scanFor('custom_audiences'),
  });
  app.router.serve(UPLOAD_ENDPOINTS.do_not_reach_list, handler('do_not_reach_lists'), {
    scan: scanFor('do_not_reach_lists'),
  });
}
