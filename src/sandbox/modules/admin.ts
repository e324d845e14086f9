// /_sandbox/*: loopback-only controls for tests, demos and CI pipelines; the state dump and the
// request log also take the sandbox app's key (server.ts checkAdminKey).
import type { SandboxApp } from '../app.js';
import { parseDuration } from '../../contract/time.js';
import { checkV2Input, ok, problem, queryOf, type Reply, type SReq } from '../http.js';
import { canonicalEventType } from '../../contract/activity.js';
import { SANDBOX_ADMIN_ENDPOINTS as E } from '../../contract/sandbox-admin.js';
import { saveSnapshot } from '../snapshot.js';
import { randomDigits } from '../state.js';
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
    checkV2Input(E.clock, { body });
    return ok(await app.clock.advance(parseDuration(body.advance) ?? 0));
  });
  r.serve(E.faults, () => ok({ faults: app.faults.spec, injected: app.faults.injected }));
  r.serve(E.setFaults, (req) => {
    const body = obj(req.json());
    // The spec's check, as a v2 problem naming the parameter; Faults.set's own (the same
    // validate()) then has nothing left to refuse.
    checkV2Input(E.setFaults, { body });
    const spec = app.faults.set(body);
    app.rates.override = spec.rate_limit;
    app.rates.reset();
    return ok({ faults: spec });
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
    checkV2Input(E.deliveries, { query: queryOf(req) });
    const limit = Number(req.query.get('limit') ?? 100);
    return ok({ data: app.deliveries.slice(-limit) });
  });
}

/** POST /_sandbox/events: an event published to every module as the platform would see it happen. */
async function triggerEvent(app: SandboxApp, req: SReq): Promise<Reply> {
  const body = obj(req.json());
  checkV2Input(E.events, { body });
  const ev = {
    // A numeric string, as the platform's ActivityEventId (OpenAPI 2.167: ^[0-9]{1,19}$).
    event_uuid: randomDigits(19),
    event_type: canonicalEventType(String(body.event_type))!,
    user_id: stringOrUndefined(body.user_id),
    payload: isRecord(body.payload) ? body.payload : {},
    created_at: app.clock.iso(),
  };
  const unreached: string[] = [];
  const delivered = await app.events.publish(ev, unreached);
  return ok({ data: { ...ev, deliveries: delivered, ...(unreached.length ? { unreached } : {}) } });
}

/** GET /_sandbox/logs: the entries after `after`, waiting up to wait_ms for one (long poll). */
async function readLogs(app: SandboxApp, req: SReq): Promise<Reply> {
  checkV2Input(E.logs, { query: queryOf(req) });
  const after = Number(req.query.get('after') ?? 0);
  const limit = Number(req.query.get('limit') ?? 1000);
  const wait = Number(req.query.get('wait_ms') ?? 0);
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
