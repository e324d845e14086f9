// /_sandbox/*: unauthenticated, loopback-only controls for tests, demos and CI pipelines.
import crypto from 'node:crypto';
import type { SandboxApp } from '../app.js';
import { parseDuration } from '../../contract/time.js';
import { ok, problem } from '../http.js';
import { ACTIVITY_EVENT_TYPES, DEPRECATED_EVENT_NAMES, canonicalEventType } from '../../contract/activity.js';
import { isNumericId } from '../../contract/ids.js';
import { SANDBOX_ADMIN_ENDPOINTS as E } from '../../contract/sandbox-admin.js';

function obj(v: unknown): Record<string, unknown> {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw problem(400, 'Invalid Request', 'the body must be a JSON object');
  return v as Record<string, unknown>;
}

export function install(app: SandboxApp): void {
  const r = app.router;
  r.serve(E.state, () =>
    ok({ counts: app.state.counts(), clock: { mode: app.clock.mode, now: app.clock.iso() }, faults: app.faults.spec, faults_injected: app.faults.injected }),
  );
  r.serve(E.clock, async (req) => {
    const body = obj(req.json());
    const ms = parseDuration(body.advance);
    if (ms === undefined) throw problem(400, 'Invalid Request', 'advance must be a duration such as "29h", "30m", "90s" or milliseconds');
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
      throw problem(400, 'Invalid Request', (e as Error).message);
    }
  });
  r.serve(E.clearFaults, () => {
    app.faults.set({});
    app.rates.override = undefined;
    app.rates.reset();
    return ok({ faults: {} });
  });
  r.serve(E.events, async (req) => {
    const body = obj(req.json());
    if (typeof body.event_type !== 'string' || !body.event_type) throw problem(400, 'Invalid Request', 'event_type is required');
    const renamed = DEPRECATED_EVENT_NAMES[body.event_type];
    if (renamed) throw problem(400, 'Invalid Request', `event_type ${body.event_type} is deprecated (renamed 2026-03-18): use ${renamed}`, { parameter: 'event_type', value: body.event_type });
    if (!canonicalEventType(body.event_type)) {
      throw problem(400, 'Invalid Request', `unknown event_type ${body.event_type.slice(0, 80)}; one of: ${ACTIVITY_EVENT_TYPES.join(', ')}`, { parameter: 'event_type', value: body.event_type.slice(0, 80) });
    }
    if (body.user_id !== undefined && !isNumericId(body.user_id)) {
      throw problem(400, 'Invalid Request', 'user_id must be a string of digits');
    }
    if (body.payload !== undefined && (typeof body.payload !== 'object' || body.payload === null || Array.isArray(body.payload))) {
      throw problem(400, 'Invalid Request', 'payload must be an object');
    }
    const ev = {
      event_uuid: crypto.randomUUID(),
      event_type: canonicalEventType(body.event_type)!,
      user_id: body.user_id as string | undefined,
      payload: (body.payload as Record<string, unknown>) ?? {},
      created_at: app.clock.iso(),
    };
    const delivered = await app.events.publish(ev);
    return ok({ data: { ...ev, deliveries: delivered } });
  });
  r.serve(E.deliveries, (req) => {
    const limit = Math.min(1000, Number(req.query.get('limit') ?? 100) || 100);
    return ok({ data: app.deliveries.slice(-limit) });
  });
}
