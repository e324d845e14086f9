// v2 webhook management (credentials-webhooks.md 4.3, 5; platform-notes.md "v2 webhook
// management bodies"): the endpoints, the id shape and the replay window and date form.
import { endpoint } from './endpoint.js';

const opts = { auth: 'app', rate: 'webhooks', style: 'v2' } as const;

// Spec section 5 asks for an app-only bearer; XDK signs create, validate and delete with OAuth 1.0a
// user context when it has one (OpenAPI: UserToken or BearerToken). Both are accepted there.
const write = { ...opts, auth: 'user-or-bearer' } as const;

export const WEBHOOK_ENDPOINTS = {
  create: endpoint('POST', '/2/webhooks', {
    ...write,
    doc: 'register a webhook {"url"}; the service runs a challenge check first',
  }),
  list: endpoint('GET', '/2/webhooks', { ...opts, doc: "the app's webhooks with their validity" }),
  delete: endpoint('DELETE', '/2/webhooks/:id', {
    ...write,
    doc: 'delete a webhook; its subscriptions and stream links end with it',
  }),
  validate: endpoint('PUT', '/2/webhooks/:id', {
    ...write,
    doc: 'run a challenge check now; re-enables the webhook when it passes',
  }),
  replay: endpoint('POST', '/2/webhooks/replay', {
    ...opts,
    doc: 'replay a window {"webhook_id","from_date","to_date"} (yyyymmddhhmm, UTC)',
  }),
  /** Deprecated 2026-03-25 (section 9): the sandbox answers 410 Gone pointing at `replay`. */
  legacyReplay: endpoint('POST', '/2/account_activity/replay/webhooks/:id/subscriptions/all', {
    auth: 'user-or-bearer',
    rate: 'webhooks',
    style: 'v2',
    doc: 'deprecated replay; use POST /2/webhooks/replay',
  }),
} as const;

/** platform-notes.md: replay reaches at most 24 hours back. */
export const REPLAY_WINDOW_MS = 24 * 3_600_000;

/** Current docs ask for the CRC answer within 3 seconds (platform-notes.md "Webhook challenge"). */
export const CRC_TIMEOUT_MS = 3_000;
/** Receivers acknowledge a delivery with 200 within 10 seconds (credentials-webhooks.md 6, 8). */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** Webhook URLs are 1-200 characters (platform-notes.md). */
export const WEBHOOK_URL_MAX = 200;

/** A replay window bound: yyyymmddhhmm in UTC. Epoch ms, or undefined when malformed. */
export function parseReplayDate(v: unknown): number | undefined {
  const m = typeof v === 'string' ? /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(v) : null;
  if (!m) return undefined;
  const t = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!);
  if (+m[2]! < 1 || +m[2]! > 12 || +m[4]! > 23 || +m[5]! > 59 || new Date(t).getUTCDate() !== +m[3]!) return undefined;
  return t;
}

/** Epoch ms to the replay date form yyyymmddhhmm (UTC). */
export function toReplayDate(t: number): string {
  return new Date(t).toISOString().replace(/[-:T]/g, '').slice(0, 12);
}
