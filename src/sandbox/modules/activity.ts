// Activity API (docs/contract.md, notes "Activity API subscriptions"): subscriptions with filters, the
// NDJSON stream GET /2/activity/stream with backfill_minutes, and delivery of every matching event
// from the event bus: subscriptions naming a webhook_id are POSTed to that webhook, the others go
// to the app's open streams.
import type { ServerResponse } from 'node:http';
import type { SandboxApp, SandboxEvent } from '../app.js';
import {
  OAUTH1_PERMISSIONS,
  OAUTH2_FORBIDDEN,
  checkV2Input,
  notFound,
  ok,
  pageStart,
  pageToken,
  problem,
  problemBody,
  queryOf,
  type Reply,
  type SReq,
} from '../http.js';
import { needsDmPermission, scopesForEvent } from '../../contract/oauth2.js';
import { collectionKey, randomDigits, slotKey, type Entity } from '../state.js';
import {
  ACTIVITY_ENDPOINTS as E,
  SUBSCRIPTION_LIMITS as L,
  canonicalEventType,
  type Direction,
} from '../../contract/activity.js';
import { parseIsoParts } from '../../contract/time.js';
import { deliver, onWebhookDeleted, ownedWebhook } from './webhooks.js';
import { isOneOf, stringOrUndefined, isRecord } from '../../contract/guards.js';

interface Filter {
  user_id?: string;
  keyword?: string;
  direction?: Direction;
}

interface SubscriptionRec extends Entity {
  event_type: string;
  filter: Filter;
  tag?: string;
  webhook_id?: string;
  created_at: string;
  updated_at: string;
  app_key: string;
}

interface StreamConn extends Entity {
  app_key: string;
  res: ServerResponse;
}

interface Envelope {
  data: { event_uuid: string; event_type: string; filter: Filter; tag?: string; payload: Record<string, unknown> };
}

const KEEPALIVE_MS = 20_000; // a blank line keeps idle connections and client watchdogs alive
const BACKLOG_MAX = 10_000;

const SUBSCRIPTIONS = collectionKey<SubscriptionRec>('activity_subscriptions');
/** Open stream connections; a collection so GET /_sandbox/state counts them. */
const STREAMS = collectionKey<StreamConn>('activity_streams', { transient: true });
/** Recent stream events, for backfill_minutes. */
const BACKLOG = slotKey<Array<{ at: number; app_key: string; line: string }>>('activity_backlog', () => []);

function subs(app: SandboxApp): Map<string, SubscriptionRec> {
  return app.state.collection(SUBSCRIPTIONS);
}

/** Open stream connections; a collection so GET /_sandbox/state counts them. */
function streams(app: SandboxApp): Map<string, StreamConn> {
  return app.state.collection(STREAMS);
}

function backlog(app: SandboxApp): Array<{ at: number; app_key: string; line: string }> {
  return app.state.slot(BACKLOG);
}

/**
 * start_time / end_time of GET /2/activity/stream (XDK's stream.activity options): ISO 8601 UTC,
 * YYYY-MM-DDTHH:mm:ssZ. **Proposal**: start_time at most 24 hours back (as webhook replay).
 */
function timeParam(req: SReq, name: string): number | undefined {
  const v = req.query.get(name);
  if (v === null) return undefined;
  // The one ISO parser (contract/time.ts), held to the platform's form: UTC, to the second.
  const p = parseIsoParts(v);
  const t = p && p.second !== undefined && v.endsWith('Z') ? p.ms : undefined;
  if (t === undefined) throw invalid(`${name} must be an ISO 8601 UTC time such as 2026-01-15T12:00:00Z`, name, v);
  return t;
}

function invalid(detail: string, parameter: string, value?: unknown) {
  return problem(400, 'Invalid Request', detail, { parameter, ...(value !== undefined ? { value } : {}) });
}

/**
 * Who may subscribe to what: an OAuth 2.0 user token needs the event type's scope; OAuth 1.0a
 * permissions, when present, override scopes entirely: DM and chat events need a
 * direct-message token, everything else any level (docs/contract.md, notes-2 section 1).
 */
function checkEventAuth(req: SReq, eventType: string): void {
  if (req.auth.kind === 'oauth2-user' && !scopesForEvent(eventType).every((s) => req.auth.scopes!.includes(s)))
    throw OAUTH2_FORBIDDEN();
  if (
    req.auth.kind === 'oauth1-user' &&
    needsDmPermission(eventType) &&
    req.auth.accessLevel !== 'read-write-directmessages'
  )
    throw OAUTH1_PERMISSIONS();
}

/** The filter validate() has passed (an object of known fields), narrowed. */
function filterOf(v: unknown): Filter {
  const f = isRecord(v) ? v : {};
  const direction = isOneOf(L.directions, f.direction) ? f.direction : undefined;
  return {
    ...(typeof f.user_id === 'string' ? { user_id: f.user_id } : {}),
    ...(typeof f.keyword === 'string' ? { keyword: f.keyword } : {}),
    ...(direction ? { direction } : {}),
  };
}

function view(s: SubscriptionRec): Record<string, unknown> {
  return {
    subscription_id: s.id,
    event_type: s.event_type,
    filter: s.filter,
    ...(s.tag !== undefined ? { tag: s.tag } : {}),
    ...(s.webhook_id ? { webhook_id: s.webhook_id } : {}),
    created_at: s.created_at,
    updated_at: s.updated_at,
  };
}

function directionOf(ev: SandboxEvent): string | undefined {
  const d = ev.payload.direction;
  if (d === 'inbound' || d === 'outbound') return d;
  if (ev.event_type === 'dm.received' || ev.event_type === 'chat.received') return 'inbound';
  if (ev.event_type === 'dm.sent' || ev.event_type === 'chat.sent') return 'outbound';
  return undefined;
}

export function matches(s: { event_type: string; filter: Filter }, ev: SandboxEvent): boolean {
  if (s.event_type !== (canonicalEventType(ev.event_type) ?? ev.event_type)) return false;
  if (s.filter.user_id && s.filter.user_id !== ev.user_id) return false;
  if (s.filter.keyword && !JSON.stringify(ev.payload).toLowerCase().includes(s.filter.keyword.toLowerCase()))
    return false;
  if (s.filter.direction && directionOf(ev) && directionOf(ev) !== s.filter.direction) return false;
  return true;
}

function totals(app: SandboxApp, appKey: string | undefined): number {
  return [...subs(app).values()].filter((s) => s.app_key === appKey).length;
}

/** The caller's subscription with this id, else 404. */
function owned(app: SandboxApp, req: SReq, id: string | undefined): SubscriptionRec {
  checkV2Input(E.deleteSubscription, { path: { id } });
  const s = subs(app).get(id!);
  if (!s || s.app_key !== req.auth.appKey) throw notFound('subscription', id!, 'subscription_id');
  return s;
}

/** POST /2/activity/subscriptions: checked by the contract, then stored. */
function createSubscription(app: SandboxApp, req: SReq): Reply {
  const b = req.json();
  if (!isRecord(b)) throw problem(400, 'Invalid Request', 'the body must be a JSON object');
  checkV2Input(E.createSubscription, { body: b });
  const filter = filterOf(b.filter);
  const eventType = canonicalEventType(String(b.event_type))!;
  checkEventAuth(req, eventType);
  if (b.webhook_id !== undefined) ownedWebhook(app, req, b.webhook_id);
  const now = app.clock.iso();
  let id = randomDigits(19);
  while (subs(app).has(id)) id = randomDigits(19);
  const s: SubscriptionRec = {
    id,
    event_type: eventType,
    filter,
    tag: stringOrUndefined(b.tag),
    webhook_id: stringOrUndefined(b.webhook_id),
    created_at: now,
    updated_at: now,
    app_key: req.auth.appKey!,
  };
  subs(app).set(id, s);
  // OpenAPI 2.167 (XDK's CreateActivitySubscriptionResponse); docs/contract.md, notes-2 section 7.
  return ok({ data: { subscription: view(s) } });
}

/** GET /2/activity/subscriptions: the app's subscriptions, a page at a time. */
function listSubscriptions(app: SandboxApp, req: SReq): Reply {
  checkV2Input(E.listSubscriptions, { query: queryOf(req) });
  const max = req.query.get('max_results');
  const n = max === null ? L.maxResults.default : Number(max);
  const mine = [...subs(app).values()]
    .filter((s) => s.app_key === req.auth.appKey)
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  const start = pageStart(req.query.get('pagination_token'), mine.length);
  const page = mine.slice(start, start + n);
  const next = start + n < mine.length ? pageToken(start + n) : undefined;
  // meta as recorded (total_subscriptions), and the 16-character token of the next page.
  return ok({
    data: page.map(view),
    meta: { total_subscriptions: mine.length, ...(next ? { next_token: next } : {}) },
  });
}

/** PUT /2/activity/subscriptions/:id: only tag and webhook_id change. */
function updateSubscription(app: SandboxApp, req: SReq): Reply {
  const s = owned(app, req, req.params.id);
  const b = req.json();
  if (!isRecord(b)) throw problem(400, 'Invalid Request', 'the body must be a JSON object');
  // additionalProperties: false (the contract): event_type and filter cannot change.
  checkV2Input(E.updateSubscription, { path: req.params, body: b });
  if (Object.keys(b).length === 0) throw invalid('give tag and/or webhook_id to update', 'tag');
  if (b.webhook_id !== undefined) {
    try {
      ownedWebhook(app, req, b.webhook_id);
    } catch {
      throw invalid(`webhook ${b.webhook_id} is not registered for this app`, 'webhook_id', b.webhook_id);
    }
    s.webhook_id = String(b.webhook_id);
  }
  if (b.tag !== undefined) s.tag = String(b.tag);
  s.updated_at = app.clock.iso();
  return ok({ data: { subscription: view(s), total_subscriptions: totals(app, s.app_key) } });
}

/** DELETE /2/activity/subscriptions/:id */
function deleteSubscription(app: SandboxApp, req: SReq): Reply {
  const s = owned(app, req, req.params.id);
  subs(app).delete(s.id);
  return ok({ data: { deleted: true }, meta: { total_subscriptions: totals(app, s.app_key) } });
}

/** DELETE /2/activity/subscriptions?ids=: per-id failures do not stop the rest; all failing is still 200. */
function deleteSubscriptions(app: SandboxApp, req: SReq): Reply {
  checkV2Input(E.deleteSubscriptions, { query: queryOf(req) });
  const ids = req.query.get('ids')!.split(',');
  const data: Array<Record<string, unknown>> = [];
  const errors: Array<Record<string, unknown>> = [];
  for (const id of ids) {
    const s = subs(app).get(id);
    if (s && s.app_key === req.auth.appKey) {
      subs(app).delete(id);
      data.push({ subscription_id: id, deleted: true });
    } else {
      errors.push({ subscription_id: id, reason: 'NotFound', message: 'Subscription not found' });
    }
  }
  return ok({
    data,
    ...(errors.length ? { errors } : {}),
    meta: { total_subscriptions: totals(app, req.auth.appKey) },
  });
}

/** GET /2/activity/stream: NDJSON events from the backlog (backfill, a window), then live. */
function openStream(app: SandboxApp, req: SReq): Reply {
  checkV2Input(E.stream, { query: queryOf(req) });
  const bf = req.query.get('backfill_minutes');
  const minutes = bf === null ? 0 : Number(bf);
  const now = app.clock.now();
  const start = timeParam(req, 'start_time');
  const end = timeParam(req, 'end_time');
  if (start !== undefined && bf !== null)
    throw invalid('give backfill_minutes or start_time, not both', 'start_time', req.query.get('start_time'));
  if (start !== undefined && start > now)
    throw invalid('start_time must not be in the future', 'start_time', req.query.get('start_time'));
  if (start !== undefined && now - start > L.streamWindowMs)
    throw invalid('start_time must be within the past 24 hours', 'start_time', req.query.get('start_time'));
  if (end !== undefined && end <= (start ?? now - minutes * 60_000))
    throw invalid('end_time must be after start_time (or after now)', 'end_time', req.query.get('end_time'));
  const appKey = req.auth.appKey!;
  const open = [...streams(app).values()].filter((c) => c.app_key === appKey).length;
  if (open >= L.streamConnections)
    // The platform's streaming connection problem (the filtered stream answers it the same way).
    throw problemBody({
      title: 'ConnectionException',
      detail: `This stream has ${open} connections open already, the most it allows (${L.streamConnections}).`,
      connection_issue: 'TooManyConnections',
      type: 'https://api.x.com/2/problems/streaming-connection',
      status: 429,
    });
  return {
    status: 200,
    headers: { 'content-type': 'application/x-ndjson', 'cache-control': 'no-cache' },
    stream: (res) => {
      res.writeHead(200);
      res.flushHeaders(); // a quiet stream must still answer at once
      const since = start ?? (minutes > 0 ? now - minutes * 60_000 : undefined);
      if (since !== undefined) {
        for (const e of backlog(app))
          if (e.app_key === appKey && e.at >= since && (end === undefined || e.at <= end)) res.write(e.line);
      }
      // A window that closed already is a replay: the stream ends once it is sent.
      if (end !== undefined && end <= now) {
        res.end();
        return;
      }
      let id = randomDigits(12);
      while (streams(app).has(id)) id = randomDigits(12);
      streams(app).set(id, { id, app_key: appKey, res });
      const timer = setInterval(() => res.write('\r\n'), KEEPALIVE_MS);
      timer.unref();
      const cancelEnd = end !== undefined ? app.clock.after(end - now, () => res.end()) : undefined;
      const bye = () => {
        clearInterval(timer);
        cancelEnd?.();
        streams(app).delete(id);
      };
      res.on('close', bye);
      res.on('finish', bye);
    },
  };
}

/**
 * The envelope's `filter` is the filter the event matched (the platform's event payload docs:
 * "the matched filter, e.g. user_id or keyword"): a subscription without a user filter that an
 * event about a user matched names that user, so receivers can tell whose event it is.
 */
function matchedFilter(f: Filter, ev: SandboxEvent): Filter {
  return f.user_id === undefined && ev.user_id !== undefined ? { ...f, user_id: ev.user_id } : f;
}

/** An event to every matching subscription: its webhook, else the open streams (and the backlog). */
async function fanOut(app: SandboxApp, ev: SandboxEvent, unreached: string[]): Promise<number> {
  let n = 0;
  for (const s of [...subs(app).values()]) {
    if (!matches(s, ev)) continue;
    const env: Envelope = {
      data: {
        event_uuid: ev.event_uuid,
        event_type: ev.event_type,
        filter: matchedFilter(s.filter, ev),
        ...(s.tag !== undefined ? { tag: s.tag } : {}),
        payload: ev.payload,
      },
    };
    if (s.webhook_id) {
      if (await deliver(app, s.webhook_id, env, ev)) n++;
      continue;
    }
    if (![...streams(app).values()].some((c) => c.app_key === s.app_key)) {
      unreached.push(`subscription ${s.id} matches but has no webhook and no activity stream is connected`);
    }
    const line = JSON.stringify(env) + '\n';
    const b = backlog(app);
    b.push({ at: app.clock.now(), app_key: s.app_key, line });
    if (b.length > BACKLOG_MAX) b.splice(0, b.length - BACKLOG_MAX);
    for (const c of streams(app).values()) {
      if (c.app_key !== s.app_key) continue;
      // Fault knob `stream_drop_rate`: the connection dies with this event in flight, as a
      // network drop would; clients recover it with backfill_minutes.
      if (app.faults.roll('stream_drop_rate', 'GET', '/2/activity/stream')) {
        c.res.destroy();
        continue;
      }
      c.res.write(line);
      n++;
    }
  }
  return n;
}

/** The activity routes (their checks are the contract's), webhook clean-up and event fan-out. */
export function install(app: SandboxApp): void {
  const r = app.router;
  r.serve(E.createSubscription, (req) => createSubscription(app, req));
  r.serve(E.listSubscriptions, (req) => listSubscriptions(app, req));
  r.serve(E.updateSubscription, (req) => updateSubscription(app, req));
  r.serve(E.deleteSubscription, (req) => deleteSubscription(app, req));
  r.serve(E.deleteSubscriptions, (req) => deleteSubscriptions(app, req));
  r.serve(E.stream, (req) => openStream(app, req));
  // Deleting a webhook ends the subscriptions that deliver to it.
  onWebhookDeleted(app, (webhookId) => {
    for (const [id, s] of subs(app)) if (s.webhook_id === webhookId) subs(app).delete(id);
  });
  app.onClose(() => {
    for (const c of streams(app).values()) c.res.destroy();
  });
  app.events.subscribe((ev, unreached) => fanOut(app, ev, unreached));
}
