// The sandbox's ads API, generated from the resource table (src/ads/resources.ts): one route per
// operation, with the envelope, cursors, total_count, soft deletes, with_deleted, validation in
// the ads error shape, account association, batches, and each resource's own state rules.
import type { SandboxApp } from '../app.js';
import { SandboxError, ok, type Reply, type SReq } from '../http.js';
import { adsId } from '../state.js';
import type { RateState } from '../ratelimit.js';
import { RESOURCES } from '../../ads/resources.js';
import { BEHAVIOURS } from '../ads/index.js';
import { withBehaviour } from '../ads/behaviour.js';
import type { OperationDef, ResourceDef, SandboxOps, Values, Violation } from '../../ads/resource-types.js';
import { validateParams } from '../../ads/params.js';
import { isoSeconds } from '../../contract/time.js';
import { checkBatch } from '../../ads/batch.js';
import { installFiles } from '../ads/stats.js';
import { isRecord, listOf, listOrUndefined, stringOrUndefined } from '../../contract/guards.js';

type Rec = Record<string, unknown> & { id: string };

function errorBody(errors: Violation[], params: unknown): Record<string, unknown> {
  return {
    errors: errors.map((e) => ({ code: e.code, message: `${e.param} ${e.message}`, parameter: e.param })),
    request: { params },
  };
}

function fail(status: number, code: string, message: string, parameter?: string, params: unknown = {}): never {
  throw new SandboxError({
    status,
    body: { errors: [{ code, message, ...(parameter ? { parameter } : {}) }], request: { params } },
  });
}

/** The rate-limit headers of one category's count (an ads read also has the x-account- form). */
function rateHeadersOf(rl: RateState, method: string): Record<string, string> {
  const h: Record<string, string> = {};
  for (const prefix of method === 'GET' ? ['x-rate-limit-', 'x-account-rate-limit-'] : ['x-rate-limit-']) {
    h[`${prefix}limit`] = String(rl.limit);
    h[`${prefix}remaining`] = String(rl.remaining);
    h[`${prefix}reset`] = String(rl.reset);
  }
  return h;
}

/** The ads error objects of a SandboxError thrown by a handler or hook. */
function errorsOf(e: SandboxError): Array<Record<string, unknown>> {
  const b = e.reply.body;
  if (isRecord(b) && Array.isArray(b.errors)) return b.errors.filter(isRecord);
  return [{ code: 'INTERNAL_ERROR', message: e.message }];
}

const CURSOR = /^c-([0-9a-z]{1,12})$/;

export function present(r: ResourceDef, e: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e)) if (!k.startsWith('_')) out[k] = v;
  for (const k of r.sandbox?.keys ?? []) if (out[k] === undefined) out[k] = null;
  return r.sandbox?.present ? r.sandbox.present(out) : out;
}

/** 404 codes by collection name, from the resources' notFoundCode. */
const NOT_FOUND_CODES = new Map<string, string>();

interface Pending {
  history: Rec[];
  /** Envelope fields and headers an operation added (ops.envelope, ops.header). */
  envelope?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export function install(app: SandboxApp): void {
  installResources(
    app,
    RESOURCES.map((r) => withBehaviour(r, BEHAVIOURS[r.name])),
  );
  installFiles(app);
}

/** Routes for the given resources (tests install synthetic ones). First route of a method and path wins. */
export function installResources(app: SandboxApp, resources: ResourceDef[]): void {
  const seen = new Set<string>();
  for (const r of resources) {
    if (r.sandbox?.notFoundCode) NOT_FOUND_CODES.set(r.name, r.sandbox.notFoundCode);
    if (r.fixtures) {
      const c = app.state.collection(r.name);
      for (const f of r.fixtures(isoSeconds(app.clock.now()))) if (!c.has(f.id)) c.set(f.id, f);
    }
    for (const op of r.operations) {
      const pattern = `/${op.version ?? '12'}${op.path}`;
      const key = `${op.method} ${pattern}`;
      if (seen.has(key)) continue; // the same endpoint shown under two CLI nouns
      seen.add(key);
      const rate = op.rate ?? (op.method === 'GET' ? 'ads-read' : 'ads-write');
      app.router.add(op.method, pattern, { auth: 'user', rate, style: 'ads' }, (req) => handle(app, r, op, req));
    }
  }
}

/**
 * Batches and JSON-body endpoints take JSON only (docs/contract.md, ads: "JSON"): a body sent under another
 * content type (text/plain, a form) is refused, as the service refuses it, not read as JSON.
 */
function requireJsonType(req: SReq, echo: Record<string, unknown>): void {
  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  if (type !== 'application/json')
    fail(
      400,
      'INVALID_PARAMETER',
      `the request body must be sent as application/json (got ${type ? type : 'no content type'})`,
      undefined,
      echo,
    );
}

function rawParams(op: OperationDef, req: SReq): Record<string, unknown> {
  if (op.body === 'json') {
    const b = req.json();
    if (!isRecord(b))
      fail(400, 'INVALID_PARAMETER', 'the request body must be a JSON object', undefined, { ...req.params });
    return b;
  }
  const raw: Record<string, unknown> = {};
  for (const d of op.params) {
    const all = req.paramAll(d.name);
    if (all.length === 0) continue;
    // A repeated key is a list (`placements=A&placements=B`); a value is never dropped silently.
    if (d.kind === 'list') raw[d.name] = all.join(',');
    else if (new Set(all).size === 1) raw[d.name] = all[0];
    else
      fail(
        400,
        'INVALID_PARAMETER',
        `${d.name} was sent ${all.length} times with different values; it takes one value`,
        d.name,
        { ...req.params },
      );
  }
  return raw;
}

/** Path parameters that name a parent (not the account, not the resource's own id). */
function parentKeys(r: ResourceDef, path: Record<string, string>): string[] {
  return Object.keys(path).filter((k) => k !== 'account_id' && k !== r.idParam);
}

function handle(app: SandboxApp, r: ResourceDef, op: OperationDef, req: SReq): Reply {
  const userId = req.auth.userId ?? '';
  const accountId = req.params.account_id;
  const pending: Pending = { history: [] };
  const echo: Record<string, unknown> = { ...req.params };

  // Spec 5: every account-scoped endpoint needs an account associated with the caller.
  let account: Rec | undefined;
  if (accountId !== undefined) {
    account = app.state.collection('accounts').get(accountId);
    const visible = account && listOrUndefined(account.user_ids)?.includes(userId);
    if (!account || !visible)
      fail(403, 'ACCOUNT_NOT_FOUND', `account ${accountId} was not found for this user`, 'account_id', echo);
    const deletedOk = r.name === 'accounts' && req.param('with_deleted') === 'true';
    if (account.deleted && !deletedOk)
      fail(403, 'ACCOUNT_NOT_FOUND', `account ${accountId} was deleted`, 'account_id', echo);
  }

  if (op.kind === 'batch' || op.body === 'json') requireJsonType(req, echo);
  const raw = op.kind === 'batch' ? {} : rawParams(op, req);
  const { values, violations } = validateParams(op.params, raw, op.rules, { nowMs: app.clock.now() });
  Object.assign(echo, values);
  if (violations.length) throw new SandboxError({ status: 400, body: errorBody(violations, echo) });

  // Spec 2.1: requests with with_total_count have their own limit of 200 per 15 minutes.
  // The answer carries that category's headers, the 429 included: a client following them sees
  // the limit that counted the request, not the plentiful read limit.
  if (values.with_total_count === true) {
    const rl = app.rates.take('ads-total-count', `${req.auth.appKey ?? ''}:${userId}`, Date.now());
    pending.headers = { ...pending.headers, ...rateHeadersOf(rl, req.method) };
    if (rl.exceeded)
      throw new SandboxError({
        status: 429,
        headers: pending.headers,
        body: {
          errors: [
            {
              code: 'TOO_MANY_REQUESTS',
              message: 'Rate limit exceeded for requests with with_total_count',
              parameter: 'with_total_count',
            },
          ],
          request: { params: echo },
        },
      });
  }

  const id = r.idParam ? req.params[r.idParam] : undefined;
  // `op` is the operation served; `call` what its hooks get for this one request (SandboxOps).
  const call = makeOps(app, r, values, userId, account, accountId, id, req.params, pending, echo);

  let data: unknown;
  let extra: Record<string, unknown> = {};
  if (op.kind === 'batch') {
    return runBatch(app, r, op, req, call, pending);
  } else if (op.sandbox) {
    data = op.sandbox(call);
  } else {
    switch (op.std) {
      case 'list': {
        const page = listPage(r, call, collectionList(r, call));
        data = page.data;
        extra = page.extra;
        break;
      }
      case 'get':
        data = call.find(r.name, id!, { withDeleted: values.with_deleted === true, parameter: r.idParam });
        break;
      case 'create':
        data = stdCreate(r, call);
        break;
      case 'update':
        data = stdUpdate(r, call);
        break;
      case 'delete':
        data = stdDelete(r, call);
        break;
      default:
        fail(500, 'INTERNAL_ERROR', `no sandbox behaviour for ${op.method} ${op.path}`);
    }
  }
  flush(app, pending);
  // Lists of records computed by op.sandbox are paginated like stored ones.
  if (op.kind === 'list' && op.sandbox && Array.isArray(data) && op.method === 'GET') {
    const page = listPage(r, call, data as Rec[]);
    data = page.data;
    extra = page.extra;
  }
  const shaped = Array.isArray(data)
    ? data.map((d) => (isRecord(d) ? present(r, d) : d))
    : isRecord(data)
      ? present(r, data)
      : data;
  return ok(
    { request: { params: echo }, data: shaped, data_type: r.dataType, ...extra, ...pending.envelope },
    200,
    pending.headers,
  );
}

function flush(app: SandboxApp, pending: Pending): void {
  const h = app.state.collection('account_history');
  for (const e of pending.history) h.set(e.id, e);
  pending.history = [];
}

function makeOps(
  app: SandboxApp,
  r: ResourceDef,
  values: Values,
  userId: string,
  account: Record<string, unknown> | undefined,
  accountId: string | undefined,
  id: string | undefined,
  path: Record<string, string>,
  pending: Pending,
  echo: Record<string, unknown>,
  overrides: Map<string, Map<string, Rec>> = new Map(),
): SandboxOps & { pending: Pending } {
  const ops: SandboxOps & { pending: Pending } = {
    values,
    account,
    accountId,
    userId,
    id,
    path,
    resource: r,
    pending,
    envelope(fields) {
      pending.envelope = { ...pending.envelope, ...fields };
    },
    header(name, value) {
      pending.headers = { ...pending.headers, [name]: value };
    },
    baseUrl: app.baseUrl,
    now: () => isoSeconds(app.clock.now()),
    nowMs: () => app.clock.now(),
    at: (ms, fn) => void app.clock.at(ms, fn),
    collection: (name) => overrides.get(name) ?? app.state.collection(name),
    newId: () => adsId(),
    user: (uid) => app.state.users.get(uid),
    insert(fields) {
      const now = ops.now();
      const e: Rec = { id: ops.newId() };
      for (const k of parentKeys(r, path)) e[k] = path[k];
      if (accountId !== undefined && r.name !== 'accounts') e.account_id = accountId;
      Object.assign(e, fields, { created_at: now, updated_at: now, deleted: false });
      ops.collection(r.name).set(e.id, e);
      record(r, ops, e, 'CREATE', fields);
      return e;
    },
    fail: (status, code, message, parameter) => fail(status, code, message, parameter, echo),
    find(name, eid, o = {}) {
      const e = ops.collection(name).get(eid);
      const foreign = e && accountId !== undefined && e.account_id !== undefined && e.account_id !== accountId;
      const otherParent = e && name === r.name && parentKeys(r, path).some((k) => k in e && e[k] !== path[k]);
      if (!e || foreign || otherParent || (e.deleted === true && !o.withDeleted)) {
        fail(
          404,
          NOT_FOUND_CODES.get(name) ?? 'NOT_FOUND',
          `${o.parameter ?? name} ${eid} was not found`,
          o.parameter,
          echo,
        );
      }
      return e;
    },
  };
  return ops;
}

/** The stored records an account-scoped list sees, with the generic filters applied. */
function collectionList(r: ResourceDef, ops: SandboxOps): Rec[] {
  const v = ops.values;
  r.sandbox?.beforeList?.(ops);
  const out: Rec[] = [];
  for (const e of ops.collection(r.name).values()) {
    if (r.name === 'accounts') {
      if (!listOrUndefined(e.user_ids)?.includes(ops.userId)) continue;
    } else if (ops.accountId !== undefined && e.account_id !== undefined && e.account_id !== ops.accountId) continue;
    if (e.deleted === true && v.with_deleted !== true) continue;
    if (parentKeys(r, ops.path).some((k) => k in e && e[k] !== ops.path[k])) continue;
    if (!matchesIdLists(r, e, v)) continue;
    if (
      typeof v.q === 'string' &&
      !String(e.name ?? '')
        .toLowerCase()
        .startsWith(v.q.toLowerCase())
    )
      continue;
    if (r.sandbox?.listFilter && !r.sandbox.listFilter(e, ops)) continue;
    out.push(e);
  }
  return out;
}

/**
 * `<data_type>_ids` filters by id; any other `<x>_ids` by the `<x>_id` field, and a single
 * `<x>_id` (media creatives' campaign_id) by that field, when the records have it.
 */
function matchesIdLists(r: ResourceDef, e: Rec, v: Values): boolean {
  for (const [k, val] of Object.entries(v)) {
    if (k.endsWith('_id') && typeof val === 'string' && k in e && k !== r.idParam) {
      if (String(e[k]) !== val) return false;
      continue;
    }
    if (!k.endsWith('_ids') || !Array.isArray(val)) continue;
    const field = k === `${r.dataType}_ids` ? 'id' : k.slice(0, -1);
    if (field !== 'id' && !(field in e)) continue;
    if (!listOf(val).includes(String(e[field]))) return false;
  }
  return true;
}

/** Sorts (sort_by), counts (with_total_count) and cuts one page (count, cursor). */
function listPage(r: ResourceDef, ops: SandboxOps, all: Rec[]): { data: Rec[]; extra: Record<string, unknown> } {
  const v = ops.values;
  let rows = all;
  if (typeof v.sort_by === 'string') {
    const [attr = '', dir] = v.sort_by.split('-');
    if (rows.length && !rows.some((e) => attr in e))
      ops.fail(400, 'INVALID_PARAMETER', `sort_by: ${attr} is not an attribute of ${r.dataType}`, 'sort_by');
    const sign = dir === 'desc' ? -1 : 1;
    rows = [...rows].sort((a, b) => {
      const x = a[attr] as string | number;
      const y = b[attr] as string | number;
      return x === y ? 0 : (x ?? '') > (y ?? '') ? sign : -sign;
    });
  }
  const countDef = (ops.resource.operations.find((o) => o.std === 'list' || o.kind === 'list')?.params ?? []).find(
    (d) => d.name === 'count',
  );
  const size = typeof v.count === 'number' ? v.count : typeof countDef?.default === 'number' ? countDef.default : 200;
  let start = 0;
  if (typeof v.cursor === 'string') {
    const m = CURSOR.exec(v.cursor);
    if (!m) ops.fail(400, 'INVALID_PARAMETER', 'cursor is not a cursor this service issued', 'cursor');
    start = parseInt(m[1]!, 36);
  }
  const data = rows.slice(start, start + size);
  const next = start + size < rows.length ? `c-${(start + size).toString(36)}` : null;
  const extra: Record<string, unknown> = { next_cursor: next };
  if (v.with_total_count === true) extra.total_count = rows.length;
  return { data, extra };
}

function record(
  r: ResourceDef,
  ops: SandboxOps & { pending?: Pending },
  e: Rec,
  change: 'CREATE' | 'UPDATE' | 'DELETE',
  changes: Record<string, unknown>,
): void {
  if (!r.sandbox?.history || !ops.pending) return;
  const id = adsId();
  ops.pending.history.push({
    id,
    account_id: ops.accountId,
    entity_type: r.sandbox.history,
    entity_id: e.id,
    change_type: change,
    changes,
    user_id: ops.userId,
    timestamp: ops.now(),
    _ms: ops.nowMs(),
  });
}

function createOpOf(r: ResourceDef): OperationDef | undefined {
  return r.operations.find((o) => o.std === 'create');
}

export function stdCreate(r: ResourceDef, ops: SandboxOps): Record<string, unknown> {
  const now = ops.now();
  const e: Rec = { id: ops.newId() };
  const op = createOpOf(r);
  for (const k of parentKeys(r, ops.path)) e[k] = ops.path[k];
  for (const d of op?.params ?? []) {
    if (d.writeOnly) continue;
    const v = ops.values[d.name] ?? d.default;
    if (v !== undefined) e[d.name] = v;
  }
  if (ops.accountId !== undefined && r.name !== 'accounts') e.account_id = ops.accountId;
  Object.assign(e, { created_at: now, updated_at: now, deleted: false });
  const res = r.sandbox?.create?.(e, ops);
  if (res && 'existing' in res) return res.existing;
  ops.collection(r.name).set(e.id, e);
  record(r, ops, e, 'CREATE', { ...ops.values });
  return e;
}

export function stdUpdate(r: ResourceDef, ops: SandboxOps): Rec {
  const e = ops.find(r.name, ops.id!, { parameter: r.idParam });
  const before = { ...e };
  const changes: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(ops.values)) {
    if (k === r.idParam || k === 'account_id') continue;
    changes[k] = v;
    e[k] = v;
  }
  e.updated_at = ops.now();
  try {
    r.sandbox?.update?.(e, before, ops);
  } catch (err) {
    for (const k of Object.keys(e)) delete e[k];
    Object.assign(e, before); // a failed update changes nothing
    throw err;
  }
  record(r, ops, e, 'UPDATE', changes);
  return e;
}

export function stdDelete(r: ResourceDef, ops: SandboxOps): Rec {
  // A deleted entity is not found again: a second delete answers 404 (spec section 7).
  const e = ops.find(r.name, ops.id!, { parameter: r.idParam });
  r.sandbox?.delete?.(e, ops);
  if (r.sandbox?.deleteMode === 'hard') ops.collection(r.name).delete(e.id);
  else {
    e.deleted = true;
    e.updated_at = ops.now();
  }
  record(r, ops, e, 'DELETE', {});
  return e;
}

/** Spec 4.4 batch rules: validated whole, applied to a staged copy, committed only if every item succeeded. */
function runBatch(
  app: SandboxApp,
  r: ResourceDef,
  op: OperationDef,
  req: SReq,
  base: SandboxOps & { pending: Pending },
  pending: Pending,
): Reply {
  const body = req.json();
  const check = checkBatch(op, body);
  const echoReq = { params: { account_id: base.accountId }, body };
  if (check.requestErrors.length)
    throw new SandboxError({ status: 400, body: { ...errorBody(check.requestErrors, echoReq.params), request: body } });
  const opErrors = check.itemErrors.map((errs) =>
    errs.map((e) => ({ code: e.code, message: `${e.param} ${e.message}`, parameter: e.param })),
  );
  if (opErrors.some((x) => x.length))
    throw new SandboxError({ status: 400, body: { operation_errors: opErrors, request: body } });

  const real = app.state.collection(r.name);
  const staged = new Map<string, Rec>([...real].map(([k, v]) => [k, structuredClone(v)]));
  const overrides = new Map([[r.name, staged]]);
  const results: unknown[] = [];
  const itemErrors: Array<Array<Record<string, unknown>>> = [];
  let failed = false;
  check.items.forEach((item) => {
    const id = r.idParam ? stringOrUndefined(item.values[r.idParam]) : undefined;
    const ops = makeOps(
      app,
      r,
      item.values,
      base.userId,
      base.account,
      base.accountId,
      id,
      base.path,
      pending,
      {},
      overrides,
    );
    try {
      const out =
        item.operation_type === 'Create'
          ? stdCreate(r, ops)
          : item.operation_type === 'Update'
            ? stdUpdate(r, ops)
            : stdDelete(r, ops);
      results.push(present(r, out));
      itemErrors.push([]);
    } catch (e) {
      if (!(e instanceof SandboxError)) throw e;
      failed = true;
      results.push(null);
      itemErrors.push(errorsOf(e));
    }
  });
  if (failed) {
    pending.history = [];
    throw new SandboxError({ status: 400, body: { operation_errors: itemErrors, request: body } });
  }
  real.clear();
  for (const [k, v] of staged) real.set(k, v);
  flush(app, pending);
  return ok({ data: results, data_type: r.dataType, request: body });
}
