// v2 webhook management (docs/contract.md, credentials 4.3, 5; docs/contract.md, notes "v2 webhook
// management bodies"): the endpoints with their parameters, the replay window and date form.
// Each follows the platform's OpenAPI specification (version 2.167, the operation in `op`).
import { endpoint } from './endpoint.js';
import { isRecord } from './guards.js';
import { param, type CrossRule, type EndpointInput, type ParamPlace, type ParamSpec } from './params.js';
import { WEBHOOK_URL_MAX, webhookUrlProblem } from './webhook-url.js';

const opts = { auth: 'app', rate: 'webhooks', style: 'v2' } as const;

/** A webhook id: 1-19 digits; the platform names the failure WebhookIdInvalid. */
export function webhookIdParam(name: string, place: ParamPlace, o: { label?: string } = {}): ParamSpec {
  return param.id(name, { in: place, flag: 'webhook id', required: true, code: 'WebhookIdInvalid', ...o });
}

/** The fields GET /2/webhooks may be asked for (OpenAPI 2.167 getWebhooks, webhook_config.fields). */
export const WEBHOOK_CONFIG_FIELDS = ['created_at', 'id', 'url', 'valid'] as const;

/** The URL of a new webhook; `env.loopback` (the sandbox) admits http://127.0.0.1 receivers. */
export const WEBHOOK_URL_PARAM: ParamSpec = {
  name: 'url',
  in: 'body',
  flag: 'webhook URL',
  required: true,
  code: 'UrlValidationFailed',
  rule: `an https URL of 1-${WEBHOOK_URL_MAX} characters on a public host, without a port`,
  ok: (v) => typeof v === 'string',
  refuse: (v, env) => (typeof v === 'string' ? webhookUrlProblem(v, env.loopback === true) : undefined),
  // The accepted URL answers the challenge: the walking test brings a receiver of its own.
  samples: {
    ok: [],
    bad: [
      'http://hooks.example.org/x',
      'https://hooks.example.org:443/x',
      'https://hooks.example.org:8443/x',
      'https://10.1.2.3/x',
      'notaurl',
      `https://hooks.example.org/${'x'.repeat(WEBHOOK_URL_MAX)}`,
      5,
    ],
  },
};

const replayDate = (name: string, flag: string): ParamSpec => ({
  name,
  in: 'body',
  flag,
  required: true,
  rule: 'yyyymmddhhmm in UTC',
  ok: (v) => parseReplayDate(v) !== undefined,
  // The accepted dates lie in the window of the service's clock: the walking test makes them.
  samples: { ok: [], bad: ['2026', '202613010000', 202601010000] },
});

/** The replay window against the service's clock (to the minute): 24 hours back, not ahead. */
function windowRule(name: 'from_date' | 'to_date', flag: string, why: (w: Window) => string | undefined): CrossRule {
  return {
    name,
    in: 'body',
    flag,
    refuse: (input, env) => {
      const w = windowOf(input, env.now);
      return w ? why(w) : undefined;
    },
  };
}

interface Window {
  from: number;
  to: number;
  now: number;
}

function windowOf(input: EndpointInput, now: number | undefined): Window | undefined {
  const b = isRecord(input.body) ? input.body : undefined;
  const from = parseReplayDate(b?.from_date);
  const to = parseReplayDate(b?.to_date);
  if (now === undefined || from === undefined || to === undefined) return undefined;
  return { from, to, now: now - (now % 60_000) };
}

// Spec section 5 asks for an app-only bearer; XDK signs create, validate and delete with OAuth 1.0a
// user context when it has one (OpenAPI: UserToken or BearerToken). Both are accepted there.
const write = { ...opts, auth: 'user-or-bearer' } as const;

export const WEBHOOK_ENDPOINTS = {
  create: endpoint('POST', '/2/webhooks', {
    ...write,
    op: 'createWebhooks',
    doc: 'register a webhook {"url"}; the service runs a challenge check first',
    params: [WEBHOOK_URL_PARAM],
    answer: '{"data":{id,url,valid,created_at}}',
  }),
  list: endpoint('GET', '/2/webhooks', {
    ...opts,
    op: 'getWebhooks',
    doc: "the app's webhooks with their validity (webhook_config.fields)",
    params: [
      param.list(
        'webhook_config.fields',
        { items: WEBHOOK_CONFIG_FIELDS, noun: 'webhook fields', unique: true },
        { in: 'query', flag: '--fields' },
      ),
    ],
    answer: '{"data":[{id,url,valid,created_at}],"meta":{result_count}}',
  }),
  delete: endpoint('DELETE', '/2/webhooks/:id', {
    ...write,
    op: 'deleteWebhooks',
    doc: 'delete a webhook; its subscriptions and stream links end with it',
    params: [webhookIdParam('id', 'path', { label: 'webhook_id' })],
    answer: '{"data":{"deleted":true}}',
  }),
  validate: endpoint('PUT', '/2/webhooks/:id', {
    ...write,
    op: 'validateWebhooks',
    doc: 'run a challenge check now; re-enables the webhook when it passes',
    params: [webhookIdParam('id', 'path', { label: 'webhook_id' })],
    answer: '{"data":{valid}}',
  }),
  replay: endpoint('POST', '/2/webhooks/replay', {
    ...opts,
    op: 'createWebhookReplayJob',
    doc: 'replay a window {"webhook_id","from_date","to_date"} (yyyymmddhhmm, UTC)',
    params: [webhookIdParam('webhook_id', 'body'), replayDate('from_date', '--from'), replayDate('to_date', '--to')],
    rules: [
      windowRule('to_date', '--to', (w) => (w.to < w.from ? "must not be before the window's start" : undefined)),
      windowRule('from_date', '--from', (w) =>
        w.from < w.now - REPLAY_WINDOW_MS ? 'must be within the past 24 hours (the replay window)' : undefined,
      ),
      windowRule('to_date', '--to', (w) => (w.to > w.now ? 'must not be in the future' : undefined)),
    ],
    answer: '{"data":{job_id,created_at}}',
  }),
  /** Deprecated 2026-03-25 (section 9): the sandbox answers 410 Gone pointing at `replay`. */
  legacyReplay: endpoint('POST', '/2/account_activity/replay/webhooks/:id/subscriptions/all', {
    auth: 'user-or-bearer',
    rate: 'webhooks',
    style: 'v2',
    doc: 'deprecated replay; use POST /2/webhooks/replay',
  }),
} as const;

/** docs/contract.md, notes: replay reaches at most 24 hours back. */
export const REPLAY_WINDOW_MS = 24 * 3_600_000;

/** Current docs ask for the CRC answer within 3 seconds (docs/contract.md, notes "Webhook challenge"). */
export const CRC_TIMEOUT_MS = 3_000;
/** Receivers acknowledge a delivery with 200 within 10 seconds (docs/contract.md, credentials 6, 8). */
export const DELIVERY_TIMEOUT_MS = 10_000;

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
