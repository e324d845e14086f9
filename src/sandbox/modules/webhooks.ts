// v2 webhooks: the five management endpoints (docs/contract.md, notes "v2 webhook management bodies"),
// CRC checks on create, on PUT and every 30 minutes when no check passed in the past 24 hours,
// the validity state machine of docs/contract.md, credentials 3.2, signed deliveries (10 s limit) and
// replay jobs. Activity subscriptions and filtered-stream links deliver through `deliver()`.
import crypto from 'node:crypto';
import type { SandboxApp } from '../app.js';
import { checkV2Input, failure, ok, problem, queryOf, type Reply, type SReq } from '../http.js';
import { collectionKey, randomDigits, slotKey, type Entity } from '../state.js';
import { hmacToken, signBody } from '../../webhooks/crypto.js';
import { SANDBOX_ADMIN_ENDPOINTS } from '../../contract/sandbox-admin.js';
import {
  CRC_TIMEOUT_MS,
  DELIVERY_TIMEOUT_MS,
  WEBHOOK_ENDPOINTS as E,
  parseReplayDate,
  webhookIdParam,
} from '../../contract/webhooks.js';
import { exchange, type Outcome } from '../../webhooks/outbound.js';
import { isRecord } from '../../contract/guards.js';

export interface WebhookRec extends Entity {
  url: string;
  valid: boolean;
  created_at: string;
  app_key: string;
  /** Sandbox time of the last passed CRC check. */
  last_success: number;
  last_check?: { at: string; outcome: string };
}

/** One webhook-bound event, kept so replay jobs can re-deliver the events of a window. */
interface LoggedEvent {
  at: number;
  webhook_id: string;
  event_type: string;
  event_uuid: string;
  body: unknown;
}

const MIN = 60_000;
const HOUR = 60 * MIN;
// docs/contract.md, credentials section 8.
const CRC_EVERY_MS = 30 * MIN;
const CRC_NEEDED_AFTER_MS = 24 * HOUR;
const INVALID_AFTER_MS = 28 * HOUR; // "more than 28 hours" (24 h plus a 4-hour grace period)
const LOG_MAX = 10_000;
// Not in the spec: the platform caps webhooks per app by access tier; the sandbox allows five.
export const WEBHOOKS_PER_APP = 5;

const cancels = new WeakMap<SandboxApp, Map<string, () => void>>();

interface ReplayJob extends Entity {
  webhook_id: string;
  from_date: unknown;
  to_date: unknown;
  created_at: string;
  status: 'running' | 'complete';
  events: number;
  delivered: number;
}

const WEBHOOKS = collectionKey<WebhookRec>('webhooks');
const REPLAY_JOBS = collectionKey<ReplayJob>('webhook_replay_jobs');
const EVENT_LOG = slotKey<LoggedEvent[]>('webhook_event_log', () => []);

export function webhooks(app: SandboxApp): Map<string, WebhookRec> {
  return app.state.collection(WEBHOOKS);
}

function eventLog(app: SandboxApp): LoggedEvent[] {
  return app.state.slot(EVENT_LOG);
}

const deletionHooks = new WeakMap<SandboxApp, Array<(webhookId: string) => void>>();

/** Runs when a webhook is deleted: what points at it (subscriptions, stream links) ends too. */
export function onWebhookDeleted(app: SandboxApp, fn: (webhookId: string) => void): void {
  const list = deletionHooks.get(app) ?? [];
  list.push(fn);
  deletionHooks.set(app, list);
}

function secretOf(app: SandboxApp, appKey: string): string {
  return app.state.apps.get(appKey)!.secret;
}

function publicView(w: WebhookRec): Record<string, unknown> {
  return { id: w.id, url: w.url, valid: w.valid, created_at: w.created_at };
}

const WEBHOOK_ID = { params: [webhookIdParam('webhook_id', 'body')] };

/** The webhook with this id owned by the caller's app, or WebhookIdInvalid. */
export function ownedWebhook(app: SandboxApp, req: SReq, id: unknown): WebhookRec {
  checkV2Input(WEBHOOK_ID, { body: { webhook_id: id } });
  const w = webhooks(app).get(String(id));
  if (!w || w.app_key !== req.auth.appKey) {
    throw failure(404, 'WebhookIdInvalid', `no webhook with id ${id} for this app`, {
      resource_type: 'webhook',
      resource_id: id,
      parameter: 'webhook_id',
      value: id,
    });
  }
  return w;
}

/** The caller's webhook, which must be valid (its last challenge check passed) to receive events. */
export function validWebhook(app: SandboxApp, req: SReq, id: unknown): WebhookRec {
  const w = ownedWebhook(app, req, id);
  if (!w.valid)
    throw problem(
      400,
      'Invalid Request',
      `webhook ${w.id} is not valid (its last challenge check failed): re-validate it with PUT /2/webhooks/${w.id} first`,
      { parameter: 'webhook_id', value: w.id },
    );
  return w;
}

function describe(o: Outcome): string {
  return o.status !== undefined ? `${o.kind} (HTTP ${o.status})` : `${o.kind}${o.error ? ` (${o.error})` : ''}`;
}

/**
 * Sends one CRC GET and classifies the answer: passed, `fatal` (wrong token, 3XX, TLS failure:
 * invalid at once) or transient (4XX, 5XX, timeout, closed channel).
 */
async function challenge(
  app: SandboxApp,
  url: string,
  appKey: string,
  webhookId: string,
): Promise<{ passed: boolean; fatal: boolean; outcome: string }> {
  const token = crypto.randomBytes(24).toString('base64url');
  const target = url + (url.includes('?') ? '&' : '?') + 'crc_token=' + encodeURIComponent(token);
  const o = await exchange('GET', target, { timeoutMs: CRC_TIMEOUT_MS });
  let outcome = describe(o);
  let passed = false;
  let fatal = o.kind === 'redirect' || o.kind === 'tls';
  if (o.kind === 'ok') {
    let answer: unknown;
    try {
      const j: unknown = JSON.parse(o.body);
      answer = isRecord(j) ? j.response_token : undefined;
    } catch {
      answer = undefined;
    }
    passed = answer === hmacToken(secretOf(app, appKey), token);
    if (!passed) {
      fatal = true;
      outcome = `wrong_token (HTTP ${o.status})`;
    } else outcome = 'ok';
  }
  app.recordDelivery({
    kind: 'crc',
    webhook_id: webhookId,
    url,
    at: app.clock.iso(),
    status: o.status,
    outcome,
    ms: o.ms,
  });
  return { passed, fatal, outcome };
}

/** Runs a check on a stored webhook and applies the validity table (section 3.2). */
async function check(app: SandboxApp, w: WebhookRec): Promise<boolean> {
  const r = await challenge(app, w.url, w.app_key, w.id);
  const now = app.clock.now();
  w.last_check = { at: app.clock.iso(now), outcome: r.outcome };
  if (r.passed) {
    w.valid = true;
    w.last_success = now;
  } else if (r.fatal) {
    w.valid = false;
  } else if (now - w.last_success > INVALID_AFTER_MS) {
    w.valid = false;
  }
  return w.valid;
}

/** Every 30 minutes, a check when the last success is 24 hours old or more. */
function schedule(app: SandboxApp, w: WebhookRec): void {
  const map = cancels.get(app)!;
  map.get(w.id)?.();
  const tick = async () => {
    if (webhooks(app).get(w.id) !== w) return;
    map.set(w.id, app.clock.after(CRC_EVERY_MS, tick));
    // An invalid webhook waits for PUT /2/webhooks/:id (the table's only way back).
    if (w.valid && app.clock.now() - w.last_success >= CRC_NEEDED_AFTER_MS) await check(app, w);
  };
  map.set(w.id, app.clock.after(CRC_EVERY_MS, tick));
}

/**
 * Logs an event for a webhook (so replay can find it) and POSTs it when the webhook is valid.
 * Resolves with true when a delivery was attempted.
 */
export async function deliver(
  app: SandboxApp,
  webhookId: string,
  body: unknown,
  ev: { event_type: string; event_uuid: string },
): Promise<boolean> {
  const w = webhooks(app).get(webhookId);
  if (!w) return false;
  const log = eventLog(app);
  log.push({ at: app.clock.now(), webhook_id: webhookId, event_type: ev.event_type, event_uuid: ev.event_uuid, body });
  if (log.length > LOG_MAX) log.splice(0, log.length - LOG_MAX);
  if (!w.valid) {
    app.recordDelivery({
      kind: 'delivery',
      webhook_id: w.id,
      url: w.url,
      at: app.clock.iso(),
      outcome: 'skipped (webhook invalid)',
      event_type: ev.event_type,
      event_uuid: ev.event_uuid,
    });
    return false;
  }
  await post(app, w, body, ev);
  return true;
}

async function post(
  app: SandboxApp,
  w: WebhookRec,
  body: unknown,
  ev: { event_type: string; event_uuid: string },
  note = '',
): Promise<void> {
  const raw = JSON.stringify(body);
  const sig = signBody(secretOf(app, w.app_key), raw);
  const o = await exchange('POST', w.url, {
    timeoutMs: DELIVERY_TIMEOUT_MS,
    body: raw,
    headers: {
      'content-type': 'application/json',
      'x-service-webhooks-signature': sig,
      'x-twitter-webhooks-signature': sig,
    },
  });
  // The contract's acknowledgement is a 200 (section 6); anything else is a failed delivery.
  const outcome = (o.status === 200 ? 'ok' : describe(o)) + note;
  app.recordDelivery({
    kind: 'delivery',
    webhook_id: w.id,
    url: w.url,
    at: app.clock.iso(),
    status: o.status,
    outcome,
    event_type: ev.event_type,
    event_uuid: ev.event_uuid,
    ms: o.ms,
  });
}

function obj(v: unknown): Record<string, unknown> {
  if (!isRecord(v)) throw problem(400, 'Invalid Request', 'the body must be a JSON object');
  return v;
}

/** A loaded state's webhooks get their periodic checks again. */
export function restored(app: SandboxApp): void {
  for (const c of cancels.get(app)!.values()) c();
  cancels.get(app)!.clear();
  for (const w of webhooks(app).values()) schedule(app, w);
}

/** POST /2/webhooks: a webhook is created only when its first challenge check passes (section 3.2). */
async function createWebhook(app: SandboxApp, req: SReq): Promise<Reply> {
  const body = obj(req.json());
  checkV2Input(E.create, { body });
  const url = String(body.url);
  const appKey = req.auth.appKey!;
  const mine = [...webhooks(app).values()].filter((w) => w.app_key === appKey);
  if (mine.some((w) => w.url === url))
    throw failure(400, 'DuplicateUrlFailed', `a webhook with this URL is already registered`, {
      parameter: 'url',
      value: url,
    });
  if (mine.length >= WEBHOOKS_PER_APP)
    throw failure(
      400,
      'WebhookLimitExceeded',
      `this app already has ${mine.length} webhooks (the limit is ${WEBHOOKS_PER_APP})`,
    );
  let id = randomDigits(19);
  while (webhooks(app).has(id)) id = randomDigits(19);
  const c = await challenge(app, url, appKey, id);
  if (!c.passed)
    throw failure(400, 'CrcValidationFailed', `the challenge check of ${url} failed: ${c.outcome}`, {
      parameter: 'url',
      value: url,
    });
  const now = app.clock.now();
  const w: WebhookRec = {
    id,
    url,
    valid: true,
    created_at: app.clock.iso(now),
    app_key: appKey,
    last_success: now,
    last_check: { at: app.clock.iso(now), outcome: 'ok' },
  };
  webhooks(app).set(id, w);
  schedule(app, w);
  return ok({ data: publicView(w) });
}

/** DELETE /2/webhooks/:id: the webhook, its checks, and what points at it. */
function deleteWebhook(app: SandboxApp, req: SReq): Reply {
  checkV2Input(E.delete, { path: req.params });
  const w = ownedWebhook(app, req, req.params.id);
  webhooks(app).delete(w.id);
  cancels.get(app)!.get(w.id)?.();
  cancels.get(app)!.delete(w.id);
  for (const fn of deletionHooks.get(app) ?? []) fn(w.id);
  return ok({ data: { deleted: true } });
}

/** PUT /2/webhooks/:id: a challenge check now (the validity table's only way back). */
async function validateWebhook(app: SandboxApp, req: SReq): Promise<Reply> {
  checkV2Input(E.validate, { path: req.params });
  const w = ownedWebhook(app, req, req.params.id);
  const valid = await check(app, w);
  if (valid) schedule(app, w);
  return ok({ data: { valid } });
}

/** POST /2/webhooks/replay: a job re-delivering the logged events of a window of whole minutes. */
function replay(app: SandboxApp, req: SReq): Reply {
  const body = obj(req.json());
  const now = app.clock.now();
  checkV2Input(E.replay, { body }, { now });
  const w = ownedWebhook(app, req, body.webhook_id);
  const from = parseReplayDate(body.from_date)!;
  const to = parseReplayDate(body.to_date)!;
  const jobId = randomDigits(19);
  const created = app.clock.iso(now);
  // Inclusive minutes: an event at 12:05:59 is inside to_date 202601151205.
  const events = eventLog(app).filter((e) => e.webhook_id === w.id && e.at >= from && e.at < to + MIN);
  const job: ReplayJob = {
    id: jobId,
    webhook_id: w.id,
    from_date: body.from_date,
    to_date: body.to_date,
    created_at: created,
    status: 'running',
    events: events.length,
    delivered: 0,
  };
  app.state.collection(REPLAY_JOBS).set(jobId, job);
  void (async () => {
    for (const e of events) {
      if (webhooks(app).get(w.id) !== w) break;
      await post(app, w, e.body, e, ` (replay ${jobId})`);
      job.delivered++;
    }
    job.status = 'complete';
  })();
  return ok({ data: { job_id: jobId, created_at: created } });
}

export function install(app: SandboxApp): void {
  cancels.set(app, new Map());
  app.onClose(() => {
    for (const c of cancels.get(app)!.values()) c();
  });
  const r = app.router;
  r.serve(E.create, (req) => createWebhook(app, req));
  r.serve(E.list, (req) => {
    checkV2Input(E.list, { query: queryOf(req) });
    const mine = [...webhooks(app).values()].filter((w) => w.app_key === req.auth.appKey);
    return ok({ data: mine.map(publicView), meta: { result_count: mine.length } });
  });
  r.serve(E.delete, (req) => deleteWebhook(app, req));
  r.serve(E.validate, (req) => validateWebhook(app, req));
  r.serve(E.replay, (req) => replay(app, req));
  // Deprecated 2026-03-25 (section 9): the same function lives at POST /2/webhooks/replay.
  r.serve(E.legacyReplay, () => {
    throw problem(
      410,
      'Gone',
      'This endpoint was deprecated on 2026-03-25. Use POST /2/webhooks/replay with {"webhook_id","from_date","to_date"} instead.',
    );
  });
  r.serve(SANDBOX_ADMIN_ENDPOINTS.replayJobs, () => ok({ data: [...app.state.collection(REPLAY_JOBS).values()] }));
}
