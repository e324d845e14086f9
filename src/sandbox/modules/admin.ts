// /_sandbox/*: loopback-only controls for tests, demos and CI pipelines; the state dump and the
// request log also take the sandbox app's key (server.ts checkAdminKey).
import crypto from 'node:crypto';
import type { SandboxApp } from '../app.js';
import { parseDuration } from '../../contract/time.js';
import { ok, problem, type Reply, type SReq } from '../http.js';
import { ACTIVITY_EVENT_TYPES, DEPRECATED_EVENT_NAMES, canonicalEventType } from '../../contract/activity.js';
import { isNumericId } from '../../contract/ids.js';
import { SANDBOX_ADMIN_ENDPOINTS as E } from '../../contract/sandbox-admin.js';
import { saveSnapshot } from '../snapshot.js';
import { errorMessage } from '../../core/errors.js';
import { stringOrUndefined, isRecord } from '../../contract/guards.js';

/** Longest a `GET /_sandbox/logs?wait_ms=` holds the request open. */
const LOG_WAIT_MAX_MS = 25_000;

function obj(v: unknown): Record<string, unknown> {
  if (!isRecord(v)) throw problem(400, 'Invalid Request', 'the body must be a JSON object');
  return v;
}

export function install(app: SandboxApp): void {
  const r = app.router;
  r.serve(E.state, () =>
    ok({
      counts: app.state.counts(),
      clock: { mode: app.clock.mode, now: app.clock.iso() },
      faults: app.faults.spec,
      faults_injected: app.faults.injected,
    }),
  );
  r.serve(E.clock, async (req) => {
    const body = obj(req.json());
    const ms = parseDuration(body.advance);
    if (ms === undefined)
      throw problem(400, 'Invalid Request', 'advance must be a duration such as "29h", "30m", "90s" or milliseconds');
    return ok(await app.clock.advance(ms));
  });
  r.serve(E.faults, () => ok({ faults: app.faults.spec, injected: app.faults.injected }));
  r.serve(E.setFaults, (req) => {
    const body = obj(req.json());
    try {
      const spec = app.faults.set(body);
      app.rates.override = spec.rate_limit;
      app.rates.reset();
      return ok({ faults: spec });
    } catch (e) {
      throw problem(400, 'Invalid Request', errorMessage(e));
    }
  });
  r.serve(E.clearFaults, () => {
    app.faults.set({});
    app.rates.override = undefined;
    app.rates.reset();
    return ok({ faults: {} });
  });
  r.serve(E.events, (req) => triggerEvent(app, req));
  r.serve(E.stateExport, () => ok(saveSnapshot(app)));
  r.serve(E.logs, (req) => readLogs(app, req));
  r.serve(E.deliveries, (req) => {
    const limit = Math.min(1000, Number(req.query.get('limit') ?? 100) || 100);
    return ok({ data: app.deliveries.slice(-limit) });
  });
}

/** POST /_sandbox/events: an event published to every module as the platform would see it happen. */
async function triggerEvent(app: SandboxApp, req: SReq): Promise<Reply> {
  const body = obj(req.json());
  if (typeof body.event_type !== 'string' || !body.event_type)
    throw problem(400, 'Invalid Request', 'event_type is required');
  const renamed = DEPRECATED_EVENT_NAMES[body.event_type];
  if (renamed)
    throw problem(
      400,
      'Invalid Request',
      `event_type ${body.event_type} is deprecated (renamed 2026-03-18): use ${renamed}`,
      { parameter: 'event_type', value: body.event_type },
    );
  if (!canonicalEventType(body.event_type)) {
    throw problem(
      400,
      'Invalid Request',
      `unknown event_type ${body.event_type.slice(0, 80)}; one of: ${ACTIVITY_EVENT_TYPES.join(', ')}`,
      { parameter: 'event_type', value: body.event_type.slice(0, 80) },
    );
  }
  if (body.user_id !== undefined && !isNumericId(body.user_id)) {
    throw problem(400, 'Invalid Request', 'user_id must be a string of digits');
  }
  if (
    body.payload !== undefined &&
    (typeof body.payload !== 'object' || body.payload === null || Array.isArray(body.payload))
  ) {
    throw problem(400, 'Invalid Request', 'payload must be an object');
  }
  const ev = {
    event_uuid: crypto.randomUUID(),
    event_type: canonicalEventType(body.event_type)!,
    user_id: stringOrUndefined(body.user_id),
    payload: (body.payload as Record<string, unknown>) ?? {},
    created_at: app.clock.iso(),
  };
  const unreached: string[] = [];
  const delivered = await app.events.publish(ev, unreached);
  return ok({ data: { ...ev, deliveries: delivered, ...(unreached.length ? { unreached } : {}) } });
}

/** GET /_sandbox/logs: the entries after `after`, waiting up to wait_ms for one (long poll). */
async function readLogs(app: SandboxApp, req: SReq): Promise<Reply> {
  const after = Number(req.query.get('after') ?? 0);
  const limit = Number(req.query.get('limit') ?? 1000);
  const wait = Number(req.query.get('wait_ms') ?? 0);
  for (const [name, v] of [
    ['after', after],
    ['limit', limit],
    ['wait_ms', wait],
  ] as const) {
    if (!Number.isInteger(v) || v < 0)
      throw problem(400, 'Invalid Request', `${name} must be a whole number`, { parameter: name });
  }
  // Long poll: `sandbox logs --follow` waits here for the next entry instead of polling.
  // (The socket, not the request: a request "closes" once its body is read.)
  const aborted = new AbortController();
  const onClose = () => aborted.abort();
  req.raw.socket.once('close', onClose);
  try {
    await app.waitForLog(after, Math.min(wait, LOG_WAIT_MAX_MS), aborted.signal);
  } finally {
    req.raw.socket.off('close', onClose);
  }
  const newer = app.logs.filter((e) => e.seq > after);
  const data = newer.slice(-Math.min(Math.max(limit, 1), 5000));
  const last = app.logs.at(-1)?.seq ?? after;
  return ok({ data, next: Math.max(after, last) });
}
