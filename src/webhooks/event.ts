// The body of an activity delivery as the platform POSTs it (docs/contract.md, notes "Activity API
// subscriptions": the stream's envelope is what webhooks receive), and the recorded forms
// `webhooks send --from` replays: an event line of `webhooks listen --json` (sent as it is) or
// a delivery entry of `sandbox logs --json` (its event type and id, rebuilt as an envelope).
import crypto from 'node:crypto';
import { errorMessage } from '../core/errors.js';
import { isRecord } from '../contract/guards.js';

export interface EventSpec {
  eventType: string;
  userId?: string;
  payload?: Record<string, unknown>;
  tag?: string;
  uuid?: string;
}

/** An event id as the platform writes one: a numeric string of 19 digits (ActivityEventId). */
function randomEventId(): string {
  return String(1_000_000_000_000_000_000n + (crypto.randomBytes(8).readBigUInt64BE() % 9_000_000_000_000_000_000n));
}

/** {"data":{"event_uuid","event_type","filter":{"user_id"},"tag","payload"}} as one JSON text. */
export function activityDelivery(e: EventSpec): string {
  const data: Record<string, unknown> = {
    event_uuid: e.uuid ?? randomEventId(),
    event_type: e.eventType,
    filter: e.userId !== undefined ? { user_id: e.userId } : {},
    ...(e.tag !== undefined ? { tag: e.tag } : {}),
    payload: e.payload ?? {},
  };
  return JSON.stringify({ data });
}

export type Recorded = { kind: 'body'; raw: string } | { kind: 'logged'; eventType: string; uuid?: string };

/**
 * What a recorded line holds, or a message saying why it is not one. A listen --json line is
 * any JSON object that is not a log entry; a sandbox log entry has kind "delivery".
 */
export function parseRecorded(text: string): Recorded | string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  if (lines.length !== 1)
    return `expected one JSON line (a recorded delivery), got ${lines.length}; pick one, e.g. with \`tail -n 1\``;
  let v: unknown;
  try {
    v = JSON.parse(lines[0]!);
  } catch (e) {
    return `not JSON: ${errorMessage(e)}`;
  }
  if (!isRecord(v)) return 'a recorded delivery is a JSON object';
  const rec = v;
  if (typeof rec.kind === 'string' && 'webhook_id' in rec) {
    if (rec.kind !== 'delivery') return `this sandbox log entry is a ${rec.kind}, not a delivery`;
    if (typeof rec.event_type !== 'string') return 'this sandbox log entry names no event_type';
    return {
      kind: 'logged',
      eventType: rec.event_type,
      ...(typeof rec.event_uuid === 'string' ? { uuid: rec.event_uuid } : {}),
    };
  }
  if ('raw' in rec && Object.keys(rec).length === 1)
    return 'this listen line is a body that was not JSON ({"raw"}); it cannot be re-sent as recorded';
  return { kind: 'body', raw: lines[0]! };
}
