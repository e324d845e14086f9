// One description per endpoint, and one validate() on both sides: every route the sandbox serves
// is described by the contract (v2 and admin endpoints in src/contract/, the ads API by its table),
// and the CLI (before sending) and the sandbox (on receipt) refuse the same invalid inputs in the
// same words, the CLI naming the flag and the sandbox the wire field.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Endpoint } from '../../src/contract/endpoint.js';
import { ACCOUNT_ACTIVITY_ENDPOINTS } from '../../src/contract/account-activity.js';
import { ACTIVITY_ENDPOINTS } from '../../src/contract/activity.js';
import { UPLOAD_ENDPOINTS } from '../../src/contract/audience-users.js';
import { pooledBuffers } from '../../src/sandbox/upload-scan.js';
import { MEDIA_ENDPOINTS, MEDIA_V1_ENDPOINTS } from '../../src/contract/media.js';
import { OAUTH_ENDPOINTS } from '../../src/contract/oauth.js';
import { OAUTH2_ENDPOINTS } from '../../src/contract/oauth2.js';
import { messageOf, validate } from '../../src/contract/params.js';
import { SANDBOX_ADMIN_ENDPOINTS } from '../../src/contract/sandbox-admin.js';
import { STREAM_ENDPOINTS } from '../../src/contract/stream.js';
import { WEBHOOK_ENDPOINTS } from '../../src/contract/webhooks.js';
import { buildSubscription } from '../../src/commands/activity/subscriptions/create.js';
import { subscriptionsDelete } from '../../src/commands/activity/subscriptions/delete.js';
import { subscriptionsList } from '../../src/commands/activity/subscriptions/list.js';
import { subscriptionsUpdate } from '../../src/commands/activity/subscriptions/update.js';
import { activityStream } from '../../src/commands/activity/stream.js';
import { unsubscribeRun } from '../../src/commands/account-activity/unsubscribe.js';
import { webhooksCreate } from '../../src/commands/webhooks/create.js';
import { webhooksDelete } from '../../src/commands/webhooks/delete.js';
import { webhooksValidate } from '../../src/commands/webhooks/validate.js';
import { webhooksReplay } from '../../src/commands/webhooks/replay.js';
import { toReplayDate } from '../../src/contract/webhooks.js';
import { parseScopes } from '../../src/core/oauth2.js';
import { rulesAdd } from '../../src/commands/stream/rules/add.js';
import { rulesDelete } from '../../src/commands/stream/rules/delete.js';
import { linkWebhook } from '../../src/commands/stream/webhooks/link.js';
import { unlinkWebhook } from '../../src/commands/stream/webhooks/unlink.js';
import { webhooks } from '../../src/sandbox/modules/webhooks.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { audiencesUpload, type UploadOptions } from '../../src/commands/audiences/upload.js';
import { oauth1Header } from '../../src/core/oauth1.js';
import { sandboxClock } from '../../src/commands/sandbox/clock.js';
import { sandboxFaults } from '../../src/commands/sandbox/faults.js';
import { sandboxLogs } from '../../src/commands/sandbox/logs.js';
import { sandboxTrigger } from '../../src/commands/sandbox/trigger.js';
import { adminKey } from '../helpers/cli.js';
import { runUpload } from '../../src/commands/media/upload.js';
import { HttpRegistry, json, route } from '../helpers/http-registry.js';
import { authCheck } from '../../src/commands/auth/status.js';
import { testContext } from '../helpers/test-context.js';

const CONTRACT: Record<string, Record<string, Endpoint>> = {
  ACCOUNT_ACTIVITY_ENDPOINTS,
  ACTIVITY_ENDPOINTS,
  UPLOAD_ENDPOINTS,
  MEDIA_ENDPOINTS,
  MEDIA_V1_ENDPOINTS,
  OAUTH_ENDPOINTS,
  OAUTH2_ENDPOINTS,
  SANDBOX_ADMIN_ENDPOINTS,
  STREAM_ENDPOINTS,
  WEBHOOK_ENDPOINTS,
};

/** Endpoints the sandbox serves that take no parameter (beyond credentials). */
const TAKE_NONE = [
  'POST /2/account_activity/replay/webhooks/:id/subscriptions/all', // 410 Gone, whatever it is sent
  'GET /2/tweets/search/webhooks', // the app's stream links
  'GET /2/tweets/search/stream/webhooks',
  'GET /2/account_activity/subscriptions/count',
  'POST /1.1/oauth/invalidate_token', // the signing token is the parameter
  'POST /1.1/oauth/invalidate_token.json',
  'GET /_sandbox/state',
  'GET /_sandbox/faults',
  'DELETE /_sandbox/faults',
  'GET /_sandbox/state/export',
  'GET /_sandbox/replay-jobs',
];

const HOOK = '1500000000000000001';
let sb: Sandbox;
let bearer: string;
beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
  const { api_key, api_secret } = sb.app.seed;
  const res = await fetch(`${sb.app.baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${api_key}:${api_secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  bearer = ((await res.json()) as { access_token: string }).access_token;
  // A webhook of the app, so that account activity reaches its user_id check.
  webhooks(sb.app).set(HOOK, {
    id: HOOK,
    url: 'https://example.com/hook',
    valid: true,
    created_at: sb.app.clock.iso(),
    app_key: api_key,
    last_success: 0,
  });
});
afterAll(() => sb.close());

describe('every endpoint the sandbox serves is described once', () => {
  it('each route is a contract endpoint (v2, OAuth, admin) or generated from the ads table', () => {
    const described = Object.values(CONTRACT).flatMap((g) => Object.values(g));
    const missing = sb.app.router.routes
      .filter((r) => !described.some((e) => e.method === r.method && e.path === r.pattern))
      .filter((r) => !(r.style === 'ads' && /^\/(12|5)\//.test(r.pattern)))
      .map((r) => `${r.method} ${r.pattern}`);
    expect(missing).toEqual([]);
  });

  it('every route the sandbox serves has its parameters described, or is listed here as taking none', () => {
    const described = Object.values(CONTRACT).flatMap((g) => Object.values(g));
    const key = (e: { method: string; path: string }) => `${e.method} ${e.path}`;
    const bare = sb.app.router.routes
      .map((r) => described.find((e) => e.method === r.method && e.path === r.pattern))
      .filter((e): e is Endpoint => e !== undefined && !e.params?.length)
      .map(key);
    // Nothing is checked by hand any more: every endpoint with parameters describes them.
    expect(bare.filter((k) => !TAKE_NONE.includes(k))).toEqual([]);
    // The list holds only what is bare: describing a parameter of one takes it off.
    expect(TAKE_NONE.filter((k) => !bare.includes(k))).toEqual([]);
  });

  it('the activity endpoints (and account activity unsubscribe) carry their parameters, rules and answer', () => {
    for (const [name, e] of Object.entries({
      ...ACTIVITY_ENDPOINTS,
      unsubscribe: ACCOUNT_ACTIVITY_ENDPOINTS.unsubscribe,
    })) {
      expect(e.params?.length, name).toBeGreaterThan(0);
      expect(e.answer, name).toBeTruthy();
    }
  });
});

/** What the sandbox answers a request with: the v2 problem's detail. */
async function sandboxSays(method: string, path: string, body?: unknown): Promise<{ status: number; detail: string }> {
  const res = await fetch(`${sb.app.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // A refused stream rule is an item of `errors` (InvalidRule), not the problem itself.
  const j = (await res.json()) as { detail?: string; errors?: Array<{ detail?: string }> };
  return { status: res.status, detail: j.detail ?? j.errors?.[0]?.detail ?? JSON.stringify(j) };
}

/** What the CLI says (in-process, nothing sent: the registry has no stub). */
async function cliSays(run: (t: ReturnType<typeof testContext>) => Promise<unknown>): Promise<string> {
  const http = new HttpRegistry();
  const t = testContext({ transport: http, globals: { yes: true } });
  try {
    await run(t);
  } catch (e) {
    expect(http.requests).toEqual([]);
    return (e as Error).message;
  } finally {
    t.cleanup();
  }
  throw new Error('the CLI accepted it');
}

interface Case {
  what: string;
  cli: [subject: string, run: (t: ReturnType<typeof testContext>) => Promise<unknown>];
  /** The body, or a function making it when it reads the sandbox's clock. */
  sandbox: [subject: string, method: string, path: string, body?: unknown];
}

const HOUR = 3_600_000;
/** The replay form of `hours` before `now` (negative: ahead). */
const ago = (now: number, hours: number) => toReplayDate(now - hours * HOUR);
/** `webhooks replay` of a window given in hours before the CLI's now. */
const replayFrom = (id: string, from: number, to?: number) => (t: ReturnType<typeof testContext>) => {
  const now = t.ctx.clock.now();
  return webhooksReplay(t.ctx, { id, from: ago(now, from), ...(to === undefined ? {} : { to: ago(now, to) }) });
};
/** A replay body whose window is given in hours before the sandbox's now. */
const window = (id: string, from: number, to: number) => {
  const now = sb.app.clock.now();
  return { webhook_id: id, from_date: ago(now, from), to_date: ago(now, to) };
};

const sub = (o: Record<string, string>) => async () => buildSubscription(o);
const body = (o: Record<string, unknown>) => ({ event_type: 'dm.received', filter: {}, ...o });

const CASES: Case[] = [
  {
    what: 'unknown event type',
    cli: ['--event', sub({ event: 'nope.event' })],
    sandbox: ['event_type', 'POST', '/2/activity/subscriptions', body({ event_type: 'nope.event' })],
  },
  {
    what: 'renamed event type',
    cli: ['--event', sub({ event: 'ProfileBioUpdate' })],
    sandbox: ['event_type', 'POST', '/2/activity/subscriptions', body({ event_type: 'ProfileBioUpdate' })],
  },
  {
    what: 'missing event type',
    cli: ['--event', sub({})],
    sandbox: ['event_type', 'POST', '/2/activity/subscriptions', { filter: {} }],
  },
  {
    what: 'user id not digits',
    cli: ['--user-id', sub({ event: 'dm.received', userId: '12ab' })],
    sandbox: ['filter.user_id', 'POST', '/2/activity/subscriptions', body({ filter: { user_id: '12ab' } })],
  },
  {
    what: 'keyword too long',
    cli: ['--keyword', sub({ event: 'dm.received', keyword: 'k'.repeat(151) })],
    sandbox: ['filter.keyword', 'POST', '/2/activity/subscriptions', body({ filter: { keyword: 'k'.repeat(151) } })],
  },
  {
    what: 'unknown direction',
    cli: ['--direction', sub({ event: 'dm.received', direction: 'sideways' })],
    sandbox: ['filter.direction', 'POST', '/2/activity/subscriptions', body({ filter: { direction: 'sideways' } })],
  },
  {
    what: 'direction on an event without one',
    cli: ['--direction', sub({ event: 'spaces.start', direction: 'inbound' })],
    sandbox: [
      'filter.direction',
      'POST',
      '/2/activity/subscriptions',
      body({ event_type: 'spaces.start', filter: { direction: 'inbound' } }),
    ],
  },
  {
    what: 'tag too long',
    cli: ['--tag', sub({ event: 'dm.received', tag: 't'.repeat(201) })],
    sandbox: ['tag', 'POST', '/2/activity/subscriptions', body({ tag: 't'.repeat(201) })],
  },
  {
    what: 'webhook id not digits',
    cli: ['webhook id', sub({ event: 'dm.received', webhook: 'w1' })],
    sandbox: ['webhook_id', 'POST', '/2/activity/subscriptions', body({ webhook_id: 'w1' })],
  },
  {
    what: 'subscription id not digits (update)',
    cli: ['subscription id', (t) => subscriptionsUpdate(t.ctx, { id: 'abc', tag: 'x' })],
    sandbox: ['subscription_id', 'PUT', '/2/activity/subscriptions/abc', { tag: 'x' }],
  },
  {
    what: 'subscription id not digits (delete)',
    cli: ['subscription id', (t) => subscriptionsDelete(t.ctx, { ids: ['abc'] })],
    sandbox: ['subscription_id', 'DELETE', '/2/activity/subscriptions/abc'],
  },
  {
    what: 'account activity user id not digits',
    cli: ['--user-id', (t) => unsubscribeRun(t.ctx, { webhookId: HOOK, userId: 'u1' })],
    sandbox: ['user_id', 'DELETE', `/2/account_activity/webhooks/${HOOK}/subscriptions/u1/all`],
  },
  {
    what: 'webhook URL not https',
    cli: ['webhook URL', (t) => webhooksCreate(t.ctx, { url: 'http://hooks.example.org/x' })],
    sandbox: ['url', 'POST', '/2/webhooks', { url: 'http://hooks.example.org/x' }],
  },
  {
    what: 'webhook URL with a port',
    cli: ['webhook URL', (t) => webhooksCreate(t.ctx, { url: 'https://hooks.example.org:8443/x' })],
    sandbox: ['url', 'POST', '/2/webhooks', { url: 'https://hooks.example.org:8443/x' }],
  },
  {
    what: "webhook URL with the scheme's own port (:443)",
    cli: ['webhook URL', (t) => webhooksCreate(t.ctx, { url: 'https://hooks.example.org:443/x' })],
    sandbox: ['url', 'POST', '/2/webhooks', { url: 'https://hooks.example.org:443/x' }],
  },
  {
    what: 'activity subscriptions page token under 16 characters',
    cli: ['--cursor', (t) => subscriptionsList(t.ctx, { cursor: 'abc' })],
    sandbox: ['pagination_token', 'GET', '/2/activity/subscriptions?pagination_token=abc'],
  },
  {
    what: 'webhook URL on a private host',
    cli: ['webhook URL', (t) => webhooksCreate(t.ctx, { url: 'https://10.1.2.3/x' })],
    sandbox: ['url', 'POST', '/2/webhooks', { url: 'https://10.1.2.3/x' }],
  },
  {
    what: 'webhook URL too long',
    cli: ['webhook URL', (t) => webhooksCreate(t.ctx, { url: `https://hooks.example.org/${'x'.repeat(190)}` })],
    sandbox: ['url', 'POST', '/2/webhooks', { url: `https://hooks.example.org/${'x'.repeat(190)}` }],
  },
  {
    what: 'webhook URL not a URL',
    cli: ['webhook URL', (t) => webhooksCreate(t.ctx, { url: 'notaurl' })],
    sandbox: ['url', 'POST', '/2/webhooks', { url: 'notaurl' }],
  },
  {
    what: 'webhook id not digits (delete)',
    cli: ['webhook id', (t) => webhooksDelete(t.ctx, { id: 'abc' })],
    sandbox: ['webhook_id', 'DELETE', '/2/webhooks/abc'],
  },
  {
    what: 'webhook id not digits (validate)',
    cli: ['webhook id', (t) => webhooksValidate(t.ctx, { id: 'abc' })],
    sandbox: ['webhook_id', 'PUT', '/2/webhooks/abc'],
  },
  {
    what: 'webhook id not digits (replay)',
    cli: ['webhook id', replayFrom('w1', 1)],
    sandbox: ['webhook_id', 'POST', '/2/webhooks/replay', () => window('w1', 1, 0)],
  },
  {
    what: 'replay window older than 24 hours',
    cli: ['--from', replayFrom(HOOK, 25)],
    sandbox: ['from_date', 'POST', '/2/webhooks/replay', () => window(HOOK, 25, 0)],
  },
  {
    what: 'replay window reversed',
    cli: ['--to', replayFrom(HOOK, 1, 2)],
    sandbox: ['to_date', 'POST', '/2/webhooks/replay', () => window(HOOK, 1, 2)],
  },
  {
    what: 'replay window ending in the future',
    cli: ['--to', replayFrom(HOOK, 1, -2)],
    sandbox: ['to_date', 'POST', '/2/webhooks/replay', () => window(HOOK, 1, -2)],
  },
  {
    what: 'stream rule value too long',
    cli: ['rule 1: value', (t) => rulesAdd(t.ctx, { values: ['a'.repeat(2049)] })],
    sandbox: ['value', 'POST', '/2/tweets/search/stream/rules', { add: [{ value: 'a'.repeat(2049) }] }],
  },
  {
    what: 'stream rule value blank',
    cli: ['rule 1: value', (t) => rulesAdd(t.ctx, { values: ['   '] })],
    sandbox: ['value', 'POST', '/2/tweets/search/stream/rules', { add: [{ value: '   ' }] }],
  },
  {
    what: 'stream rule tag too long',
    cli: ['rule 1: tag', (t) => rulesAdd(t.ctx, { values: ['cats'], tag: 't'.repeat(201) })],
    sandbox: ['tag', 'POST', '/2/tweets/search/stream/rules', { add: [{ value: 'cats', tag: 't'.repeat(201) }] }],
  },
  {
    what: 'no stream rules to add',
    cli: ['rules', (t) => rulesAdd(t.ctx, { values: [] })],
    sandbox: ['add', 'POST', '/2/tweets/search/stream/rules', { add: [] }],
  },
  {
    what: 'stream rule id not digits',
    cli: ['rule ids', (t) => rulesDelete(t.ctx, { ids: ['12', 'abc'] })],
    sandbox: ['delete.ids', 'POST', '/2/tweets/search/stream/rules', { delete: { ids: ['12', 'abc'] } }],
  },
  {
    what: 'stream link field list malformed',
    cli: ['--tweet-fields', (t) => linkWebhook(t.ctx, { webhookId: HOOK, tweetFields: 'created_at, text' })],
    sandbox: ['tweet.fields', 'POST', `/2/tweets/search/webhooks/${HOOK}?tweet.fields=created_at,%20text`],
  },
  {
    what: 'stream link webhook id not digits',
    cli: ['webhook id', (t) => linkWebhook(t.ctx, { webhookId: 'w1' })],
    sandbox: ['webhook_id', 'POST', '/2/tweets/search/webhooks/w1'],
  },
  {
    what: 'stream unlink webhook id not digits',
    cli: ['webhook id', (t) => unlinkWebhook(t.ctx, { webhookId: 'w1' })],
    sandbox: ['webhook_id', 'DELETE', '/2/tweets/search/webhooks/w1'],
  },
  {
    what: 'backfill out of range',
    cli: ['--backfill-minutes', (t) => activityStream(t.ctx, { backfillMinutes: '9' })],
    sandbox: ['backfill_minutes', 'GET', '/2/activity/stream?backfill_minutes=9'],
  },
];

describe('the CLI and the sandbox refuse the same inputs in the same words', () => {
  for (const c of CASES) {
    it(c.what, async () => {
      const cli = await cliSays(c.cli[1]);
      const [subject, method, path, b] = c.sandbox;
      const sandbox = await sandboxSays(method, path, typeof b === 'function' ? b() : b);
      expect(sandbox.status).toBe(400);
      expect(cli.startsWith(`${c.cli[0]} `), cli).toBe(true);
      expect(sandbox.detail.startsWith(`${subject} `), sandbox.detail).toBe(true);
      const words = cli.slice(c.cli[0].length + 1);
      expect(words.length).toBeGreaterThan(5);
      expect(sandbox.detail.slice(subject.length + 1)).toBe(words);
    });
  }

  it('validate() passes what both accept', () => {
    expect(
      validate(ACTIVITY_ENDPOINTS.createSubscription, {
        body: body({ filter: { user_id: '123', direction: 'inbound' }, tag: 't' }),
      }),
    ).toBeUndefined();
  });
});

/** The error_description the consent page redirects back with, for a scope. */
async function authorizeSays(scope: string): Promise<string> {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: sb.app.seed.client_id,
    redirect_uri: 'http://127.0.0.1:9/callback',
    scope,
    state: 'st-1',
    code_challenge: 'challenge',
  });
  const res = await fetch(`${sb.app.baseUrl}/i/oauth2/authorize?${q}`, { redirect: 'manual' });
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location')!).searchParams.get('error_description') ?? '';
}

describe('OAuth 2.0: --scopes and the consent page refuse the same scopes in the same words', () => {
  for (const [what, scope] of [
    ['an unknown scope', 'tweet.read follow.read'],
    ['two unknown scopes', 'tweets.read follow.read users.read'],
  ]) {
    it(what, async () => {
      const cli = (() => {
        try {
          parseScopes(scope!);
        } catch (e) {
          return (e as Error).message;
        }
        throw new Error('the CLI accepted it');
      })();
      expect(cli.startsWith('--scopes ')).toBe(true);
      expect(await authorizeSays(scope!)).toBe(`scope ${cli.slice('--scopes '.length)}`);
    });
  }
});

/** The seeded user's OAuth 1.0a signature on a request straight to the sandbox. */
async function signedFetch(method: string, path: string, body?: unknown): Promise<Response> {
  const s = sb.app.seed;
  const url = `${sb.app.baseUrl}${path}`;
  const keys = {
    consumerKey: s.api_key,
    consumerSecret: s.api_secret,
    token: s.access_token,
    tokenSecret: s.access_token_secret,
  };
  return fetch(url, {
    method,
    headers: {
      authorization: oauth1Header(keys, { method, url }),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : Buffer.isBuffer(body) ? body : JSON.stringify(body),
  });
}

/** What the sandbox answers an ads request with: the first error's message. */
async function adsSays(method: string, path: string, body?: unknown): Promise<{ status: number; detail: string }> {
  const res = await signedFetch(method, path, body);
  // A refused operation of a batch is an item of operation_errors (at its index), the request's own an item of errors.
  const j = (await res.json()) as {
    errors?: Array<{ message?: string }>;
    operation_errors?: Array<Array<{ message?: string }>>;
  };
  const item = j.operation_errors?.find((e) => e.length > 0)?.[0];
  return { status: res.status, detail: j.errors?.[0]?.message ?? item?.message ?? JSON.stringify(j) };
}

/** Both sides' words after their subjects: the CLI names the flag, the service the wire field. */
function sameWords(c: { cli: [string, string]; sandbox: [string, { status: number; detail: string }] }): void {
  const [flag, cli] = c.cli;
  const [field, sandbox] = c.sandbox;
  expect(sandbox.status).toBe(400);
  expect(cli.startsWith(`${flag} `), cli).toBe(true);
  expect(sandbox.detail.startsWith(`${field} `), sandbox.detail).toBe(true);
  const words = cli.slice(flag.length + 1);
  expect(words.length).toBeGreaterThan(5);
  expect(sandbox.detail.slice(field.length + 1)).toBe(words);
}

describe('audience uploads: the upload verbs and the endpoints refuse the same operations in the same words', () => {
  const DAY = 86_400_000;
  const iso = (ms: number) => new Date(ms).toISOString();
  const HASH = 'a'.repeat(64);
  let custom = '';
  const DNR = 'dnr1contract';
  beforeAll(() => {
    const acct = sb.app.seed.account_id;
    custom = [...sb.app.state.collection('custom_audiences').values()].find((a) => a.account_id === acct)!.id;
    sb.app.state.collection('do_not_reach_lists').set(DNR, { id: DNR, account_id: acct, deleted: false });
  });
  const upload =
    (target: UploadOptions['target'], o: Pick<UploadOptions, 'effectiveAt' | 'expiresAt'>) =>
    (t: ReturnType<typeof testContext>) =>
      audiencesUpload(t.ctx, {
        target,
        listId: 'abc1',
        input: '-',
        type: 'email',
        format: 'auto',
        batchSize: '2500',
        concurrency: '4',
        ...o,
      });
  const listPath = (target: UploadOptions['target']) =>
    target === 'custom_audience'
      ? `/12/accounts/${sb.app.seed.account_id}/custom_audiences/${custom}/users`
      : `/12/batch/accounts/${sb.app.seed.account_id}/do_not_reach_lists/${DNR}/users`;
  const op = (params: Record<string, string>) => [
    { operation_type: 'Update', params: { ...params, users: [{ email: [HASH] }] } },
  ];
  // [what, target, flag, field, the CLI's flags, the operation's params (times in days from now)]
  const cases: Array<[string, UploadOptions['target'], string, string, Record<string, number | string>]> = [
    ['expiry not an ISO time', 'custom_audience', '--expires-at', 'expires_at', { expiresAt: 'never' }],
    ['start not an ISO time', 'custom_audience', '--effective-at', 'effective_at', { effectiveAt: '2026-02-30' }],
    ['expiry before the start', 'custom_audience', '--expires-at', 'expires_at', { effectiveAt: 2, expiresAt: 1 }],
    ['expiry in the past', 'custom_audience', '--expires-at', 'expires_at', { expiresAt: -1 }],
    ['expiry past 13 months', 'custom_audience', '--expires-at', 'expires_at', { expiresAt: 400 }],
    ['do-not-reach expiry in the past', 'do_not_reach_list', '--expires-at', 'expires_at', { expiresAt: -1 }],
    ['do-not-reach expiry 13 months out', 'do_not_reach_list', '--expires-at', 'expires_at', { expiresAt: 396 }],
  ];
  /** The times of a case, days counted from `now` (the CLI's clock on one side, the sandbox's on the other). */
  const timesAt = (given: Record<string, number | string>, now: number) => {
    const at = (v: number | string | undefined) => (typeof v === 'number' ? iso(now + v * DAY) : v);
    return { effectiveAt: at(given.effectiveAt), expiresAt: at(given.expiresAt) };
  };
  for (const [what, target, flag, field, given] of cases) {
    it(what, async () => {
      const cli = await cliSays((t) => upload(target, timesAt(given, t.ctx.clock.now()))(t));
      const times = timesAt(given, sb.app.clock.now());
      const wire: Record<string, string> = {};
      if (times.effectiveAt !== undefined) wire.effective_at = times.effectiveAt;
      if (times.expiresAt !== undefined) wire.expires_at = times.expiresAt;
      sameWords({ cli: [flag, cli], sandbox: [field, await adsSays('POST', listPath(target), op(wire))] });
    });
  }

  it('an operation that is neither Update nor Delete, and effective_at on a do-not-reach list', async () => {
    const a = await adsSays('POST', listPath('custom_audience'), [{ operation_type: 'Create', params: { users: [] } }]);
    expect(a.detail).toBe('operation_type must be Update or Delete (got "Create")');
    const b = await adsSays('POST', listPath('do_not_reach_list'), op({ effective_at: iso(Date.now()) }));
    expect(b.detail).toBe('effective_at is not accepted for do-not-reach lists (the current time is used)');
  });

  it('a refused batch read by the scan gives its buffers back, as an applied one does', async () => {
    const path = listPath('custom_audience');
    // Compact bodies (JSON.stringify's) of one size: the scan reads them. The first, applied,
    // leaves a buffer in the pool that the second, refused, takes.
    const now = sb.app.clock.now();
    expect((await signedFetch('POST', path, op({ expires_at: iso(now + DAY) }))).status).toBe(200);
    const pooled = pooledBuffers();
    expect(pooled).toBeGreaterThan(0);
    const refused = await adsSays('POST', path, op({ expires_at: iso(now - DAY) }));
    expect(refused.status).toBe(400);
    expect(pooledBuffers()).toBe(pooled);
  });

  it('a time holding a raw control character: not JSON, in the compact shape or not', async () => {
    // The compact shape the scan reads as the body arrives, but not JSON (a tab inside a string).
    const text = JSON.stringify(op({ expires_at: 'X' })).replace('"X"', '"2026-01-01\tT00:00:00Z"');
    const compact = await adsSays('POST', listPath('custom_audience'), Buffer.from(text));
    const spaced = await adsSays('POST', listPath('custom_audience'), Buffer.from(text.replace('[{', '[ {')));
    expect(compact.status).toBe(400);
    expect(compact).toEqual(spaced);
  });
});

/** What the sandbox's admin endpoints answer (Basic key:secret of the sandbox app): the problem's detail. */
async function adminSays(method: string, path: string, body?: unknown): Promise<{ status: number; detail: string }> {
  const res = await fetch(`${sb.app.baseUrl}${path}`, {
    method,
    headers: { ...adminKey(sb.app.seed), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const j = (await res.json()) as { detail?: string };
  return { status: res.status, detail: j.detail ?? JSON.stringify(j) };
}

describe('the sandbox verbs and the admin endpoints refuse the same inputs in the same words', () => {
  const trigger = (o: { eventType: string; userId?: string; data?: string }) => (t: ReturnType<typeof testContext>) =>
    sandboxTrigger(t.ctx, o);
  const faults = (spec: string) => (t: ReturnType<typeof testContext>) =>
    sandboxFaults(t.ctx, { action: 'set', specs: [spec] });
  const cases: Array<{ what: string; cli: Case['cli']; sandbox: Case['sandbox'] }> = [
    {
      what: 'clock advance without a unit',
      cli: ['--advance', (t) => sandboxClock(t.ctx, { advance: '5000' })],
      sandbox: ['advance', 'POST', '/_sandbox/clock', { advance: '5000' }],
    },
    {
      what: 'clock advance not a duration',
      cli: ['--advance', (t) => sandboxClock(t.ctx, { advance: 'soon' })],
      sandbox: ['advance', 'POST', '/_sandbox/clock', { advance: 'soon' }],
    },
    {
      what: 'unknown event type',
      cli: ['<event-type>', trigger({ eventType: 'nope.event' })],
      sandbox: ['event_type', 'POST', '/_sandbox/events', { event_type: 'nope.event' }],
    },
    {
      what: 'renamed event type',
      cli: ['<event-type>', trigger({ eventType: 'ProfileBioUpdate' })],
      sandbox: ['event_type', 'POST', '/_sandbox/events', { event_type: 'ProfileBioUpdate' }],
    },
    {
      what: 'event user id not digits',
      cli: ['--user-id', trigger({ eventType: 'dm.received', userId: 'u1' })],
      sandbox: ['user_id', 'POST', '/_sandbox/events', { event_type: 'dm.received', user_id: 'u1' }],
    },
    {
      what: 'event payload not an object',
      cli: ['--data', trigger({ eventType: 'dm.received', data: '[1]' })],
      sandbox: ['payload', 'POST', '/_sandbox/events', { event_type: 'dm.received', payload: [1] }],
    },
    {
      what: 'log limit out of range',
      cli: ['--limit', (t) => sandboxLogs(t.ctx, { limit: '0', follow: false })],
      sandbox: ['limit', 'GET', '/_sandbox/logs?limit=0'],
    },
    {
      what: 'fault value out of range',
      cli: ['faults: status', faults('status=600')],
      sandbox: ['status', 'POST', '/_sandbox/faults', { status: 600 }],
    },
    {
      what: 'fault rate out of range',
      cli: ['faults: error_rate', faults('error_rate=2')],
      sandbox: ['error_rate', 'POST', '/_sandbox/faults', { error_rate: 2 }],
    },
    {
      what: 'unknown fault',
      cli: ['faults: fault', faults('bogus=1')],
      sandbox: ['fault', 'POST', '/_sandbox/faults', { bogus: 1 }],
    },
  ];
  for (const c of cases) {
    it(c.what, async () => {
      const [field, method, path, b] = c.sandbox;
      const sandbox = await adminSays(method, path, typeof b === 'function' ? b() : b);
      sameWords({ cli: [c.cli[0], await cliSays(c.cli[1])], sandbox: [field, sandbox] });
    });
  }

  it('a long refused value is shown cut short, on both sides', async () => {
    const data = `[${Array.from({ length: 2000 }, (_, i) => i).join(',')}]`;
    const shown = `${data.slice(0, 200)}... (${data.length} characters)`;
    const cli = await cliSays(trigger({ eventType: 'dm.received', data }));
    expect(cli).toBe(`--data must be a JSON object (got ${shown})`);
    const payload: unknown = JSON.parse(data);
    const sandbox = await adminSays('POST', '/_sandbox/events', { event_type: 'dm.received', payload });
    expect(sandbox).toEqual({ status: 400, detail: `payload must be a JSON object (got ${shown})` });
  });

  it("the endpoints no verb sends to refuse in the contract's words", async () => {
    expect((await adminSays('GET', '/_sandbox/deliveries?limit=all')).detail).toBe(
      'limit must be a whole number 1-1000 (got "all")',
    );
    expect((await adminSays('GET', '/_sandbox/logs?wait_ms=-1')).detail).toBe(
      'wait_ms must be a whole number 0-25000 (got "-1")',
    );
    expect(await adminSays('GET', '/_sandbox/audience-members/lists/abc')).toEqual({
      status: 400,
      detail: 'kind must be custom_audiences or do_not_reach_lists (got "lists")',
    });
    // The file host has one answer for a name that is not a file's.
    expect((await fetch(`${sb.app.baseUrl}/_sandbox/files/a%20b`)).status).toBe(404);
  });
});

describe("the signed-in user's reads: /2/users/me and the v1.1 account reads", () => {
  it('an unknown user field is refused in the words validate() gives', async () => {
    const res = await signedFetch('GET', '/2/users/me?user.fields=created_at,nope');
    const j = (await res.json()) as { detail?: string };
    expect(res.status).toBe(400);
    const v = validate(OAUTH2_ENDPOINTS.me, { query: { 'user.fields': 'created_at,nope' } });
    expect(j.detail).toBe(messageOf(v!, 'service'));
    expect(j.detail).toMatch(/^user\.fields value \[nope\] is not one of \[confirmed_email,/);
    expect((await signedFetch('GET', '/2/users/me?user.fields=created_at&user.fields=url')).status).toBe(200);
  });

  it('what `auth check` sends them passes the contract', async () => {
    const http = new HttpRegistry()
      .register(route('GET', OAUTH_ENDPOINTS.verifyCredentials.path), json({ id_str: '1', screen_name: 'a' }))
      .register(route('GET', OAUTH_ENDPOINTS.rateLimitStatus.path), json({ resources: {} }));
    const t = testContext({ transport: http });
    try {
      await authCheck(t.ctx);
    } finally {
      t.cleanup();
    }
    const sent = http.requests.map((r) => {
      const e = [OAUTH_ENDPOINTS.verifyCredentials, OAUTH_ENDPOINTS.rateLimitStatus].find((x) => x.path === r.path)!;
      return validate(e, { query: Object.fromEntries(r.query) });
    });
    expect(sent).toEqual([undefined, undefined]);
    expect(validate(OAUTH2_ENDPOINTS.me, {})).toBeUndefined(); // auth login and auth check send no user.fields
  });

  it('verify_credentials reads include_entities as the platform does (true, t, 1; else false)', async () => {
    const read = async (q: string) =>
      (await (await signedFetch('GET', `/1.1/account/verify_credentials.json${q}`)).json()) as Record<string, unknown>;
    expect(await read('')).toHaveProperty('entities');
    expect(await read('?include_entities=t')).toHaveProperty('entities');
    expect(await read('?include_entities=false')).not.toHaveProperty('entities');
    expect(await read('?include_entities=no')).not.toHaveProperty('entities');
  });
});

describe('media upload: `media upload` and the upload endpoints refuse the same INIT in the same words', () => {
  const MB = 1024 * 1024;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xctl-contract-media-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  /** A PNG of `bytes` bytes (the signature, then zeros). */
  const png = (name: string, bytes: number) => {
    const b = Buffer.alloc(bytes);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b);
    const file = path.join(dir, name);
    fs.writeFileSync(file, b);
    return file;
  };
  const upload = (file: string, category?: string) => (t: ReturnType<typeof testContext>) =>
    runUpload(t.ctx, { file, category, waitSeconds: 1 });
  const init = (o: Record<string, unknown>) => ({ media_type: 'image/png', media_category: 'tweet_image', ...o });
  async function v2Says(method: string, p: string, body?: unknown) {
    const res = await signedFetch(method, p, body);
    const j = (await res.json()) as { detail?: string };
    return { status: res.status, detail: j.detail ?? JSON.stringify(j) };
  }
  const cases: Array<[string, [string, (t: ReturnType<typeof testContext>) => Promise<unknown>], [string, unknown]]> = [
    [
      'an image over 5 MB',
      ['<file>', upload(png('big.png', 5 * MB + 1))],
      ['total_bytes', init({ total_bytes: 5 * MB + 1 })],
    ],
    [
      'a GIF category past its 15 MB',
      ['<file>', upload(png('big2.png', 15 * MB + 1), 'tweet_gif')],
      ['total_bytes', init({ total_bytes: 15 * MB + 1, media_category: 'tweet_gif' })],
    ],
    ['an empty file', ['<file>', upload(png('empty.png', 0))], ['total_bytes', init({ total_bytes: 0 })]],
    [
      'an image in a video category',
      ['--category', upload(png('pic.png', 100), 'tweet_video')],
      ['media_category', init({ total_bytes: 100, media_category: 'tweet_video' })],
    ],
  ];
  for (const [what, [flag, run], [field, body]] of cases) {
    it(what, async () => {
      const sandbox = await v2Says('POST', '/2/media/upload/initialize', body);
      sameWords({ cli: [flag, await cliSays(run)], sandbox: [field, sandbox] });
    });
  }

  it("the steps the CLI builds itself (APPEND, FINALIZE, STATUS; v1.1 and one-shot forms) refuse in validate()'s words", async () => {
    const said = async (method: string, p: string, body?: unknown) => (await v2Says(method, p, body)).detail;
    expect(await said('POST', '/2/media/upload/abc/append')).toBe('media_id must be 1-19 digits (got "abc")');
    expect(await said('POST', '/2/media/upload/abc/finalize')).toBe('media_id must be 1-19 digits (got "abc")');
    expect(await said('GET', '/2/media/upload?command=INIT&media_id=1')).toBe('command must be STATUS (got "INIT")');
    expect(await said('GET', '/2/media/upload?command=STATUS')).toBe('media_id is required (1-19 digits)');
    expect(await said('POST', '/2/media/upload/initialize', { media_type: 'image/svg', total_bytes: 1 })).toMatch(
      /^media_type must be a supported media type \(.*\) \(got "image\/svg"\)$/,
    );
    const owners = init({ total_bytes: 10, additional_owners: ['x'] });
    expect(await said('POST', '/2/media/upload/initialize', owners)).toBe(
      'additional_owners must be at most 100 user ids of 1-19 digits (got ["x"])',
    );
    const id = (
      (await (await signedFetch('POST', '/2/media/upload/initialize', init({ total_bytes: 10 }))).json()) as {
        data: { id: string };
      }
    ).data.id;
    expect(await said('POST', `/2/media/upload/${id}/append`, { segment_index: 1000, media: 'AAAA' })).toBe(
      'segment_index must be a whole number from 0 to 999 (got 1000)',
    );
    expect(await said('POST', '/2/media/upload', { command: 'STATUS' })).toBe(
      'command must be INIT or APPEND or FINALIZE (got "STATUS")',
    );
    expect(await said('POST', '/2/media/upload', { media_category: 'tweet_image' })).toBe(
      'media is required (the file), or a command: INIT, APPEND or FINALIZE',
    );
    expect(await said('POST', '/2/media/upload', { media: 'AAAA' })).toBe(
      'media_category is required with the file (tweet_image, tweet_gif, tweet_video, amplify_video...)',
    );
    const v1Says = async (method: string, p: string) =>
      ((await (await signedFetch(method, p)).json()) as { errors: Array<{ code: number; message: string }> }).errors[0];
    expect(await v1Says('POST', '/1.1/media/upload.json?media_category=tweet_image')).toEqual({
      code: 170,
      message: 'media is required (media or media_data), or a command: INIT, APPEND or FINALIZE',
    });
    expect(await v1Says('POST', '/1.1/media/upload.json?media=x&media_data=AAAA')).toEqual({
      code: 44,
      message: 'media or media_data: send one of them, not both',
    });
    const v1 = await signedFetch('GET', '/1.1/media/upload.json?command=STATUS&media_id=x');
    expect(((await v1.json()) as { errors: Array<{ message: string }> }).errors[0]!.message).toBe(
      'media_id must be 1-19 digits (got "x")',
    );
  });
});
