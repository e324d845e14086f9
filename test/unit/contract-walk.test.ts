// The v2 endpoints the sandbox serves, walked from their one description (src/contract/): for
// every parameter constraint each described value that meets it is accepted by the real sandbox
// (over loopback) and each that breaks it is refused with the platform's Problem: 400,
// application/problem+json, the invalid-request type, the parameter named and its `value` a
// string. Each object the body closes (additionalProperties: false in the platform's OpenAPI
// specification, version 2.167) refuses a field it does not take. The CLI validates from the same
// descriptions (core/check-input.ts), so what is refused here is refused before sending too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_ACTIVITY_ENDPOINTS } from '../../src/contract/account-activity.js';
import { ACTIVITY_ENDPOINTS } from '../../src/contract/activity.js';
import { pathOf, type Endpoint } from '../../src/contract/endpoint.js';
import { MEDIA_ENDPOINTS } from '../../src/contract/media.js';
import { OAUTH2_ENDPOINTS } from '../../src/contract/oauth2.js';
import { validate, type EndpointInput, type ParamSpec } from '../../src/contract/params.js';
import { STREAM_ENDPOINTS } from '../../src/contract/stream.js';
import { isoSeconds } from '../../src/contract/time.js';
import { WEBHOOK_ENDPOINTS, toReplayDate } from '../../src/contract/webhooks.js';
import { oauth1Header } from '../../src/core/oauth1.js';
import { webhooks } from '../../src/sandbox/modules/webhooks.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { collectionKey } from '../../src/sandbox/state.js';
import { adminKey } from '../helpers/cli.js';
import { useEndpoints, type Endpoint as Receiver } from '../helpers/endpoints.js';

const V2: Endpoint[] = [
  ...Object.values(WEBHOOK_ENDPOINTS),
  ...Object.values(STREAM_ENDPOINTS),
  ...Object.values(ACTIVITY_ENDPOINTS),
  ...Object.values(ACCOUNT_ACTIVITY_ENDPOINTS),
  ...Object.values(MEDIA_ENDPOINTS),
  OAUTH2_ENDPOINTS.me,
];
/** The 28 operations of the specification the sandbox serves. */
const DESCRIBED = V2.filter((e) => e.op !== undefined);

let sb: Sandbox;
let bearer: string;
let receiver: Receiver;
/** A receiver no webhook has yet: the URL of the webhook a create makes. */
let unused: Receiver;
const receivers = useEndpoints(() => sb.app.seed.api_secret);
/** A valid webhook of the app (its receiver answers the challenge). */
const HOOK = '1500000000000000001';
/** A webhook made again before each request that deletes it. */
const SPARE = '1500000000000000002';

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
  receiver = await receivers('ok');
  unused = await receivers('ok');
  hook(HOOK);
});
afterAll(() => sb.close());

function hook(id: string): string {
  webhooks(sb.app).set(id, {
    id,
    url: receiver.url,
    valid: true,
    created_at: sb.app.clock.iso(),
    app_key: sb.app.seed.api_key,
    last_success: sb.app.clock.now(),
  });
  return id;
}

interface Answer {
  status: number;
  type: string;
  body: Record<string, unknown>;
}

/** Sends `input` to the endpoint as a client would: JSON body, the endpoint's kind of credentials. */
async function send(e: Endpoint, input: EndpointInput, o: { secret?: string } = {}): Promise<Answer> {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(input.query ?? {})) if (v !== undefined) q.set(k, v);
  const path: Record<string, string> = {};
  for (const [k, v] of Object.entries(input.path ?? {})) if (v !== undefined) path[k] = v;
  const url = `${sb.app.baseUrl}${pathOf(e, path)}${q.size ? `?${q}` : ''}`;
  const seed = sb.app.seed;
  const user = e.auth === 'user' || o.secret !== undefined;
  const authorization = user
    ? oauth1Header(
        {
          consumerKey: seed.api_key,
          consumerSecret: o.secret ?? seed.api_secret,
          token: seed.access_token,
          tokenSecret: seed.access_token_secret,
        },
        { method: e.method, url },
      )
    : `Bearer ${bearer}`;
  const res = await fetch(url, {
    method: e.method,
    headers: { authorization, ...(input.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: input.body === undefined ? undefined : JSON.stringify(input.body),
  });
  const type = res.headers.get('content-type') ?? '';
  if (type.startsWith('application/x-ndjson')) {
    await res.body?.cancel(); // the activity stream stays open: its status is the answer
    return { status: res.status, type, body: {} };
  }
  const text = await res.text();
  return { status: res.status, type, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** `input` with the value of `name` (dotted into the body, `add[0].x` into an array) set to `v`. */
function withValue(input: EndpointInput, p: Pick<ParamSpec, 'name' | 'in'>, v: unknown): EndpointInput {
  const out: EndpointInput = structuredClone(input);
  if (p.in !== 'body') {
    out[p.in] = { ...(out[p.in] ?? {}), [p.name]: String(v) };
    return out;
  }
  out.body ??= {};
  let cur = out.body as Record<string, unknown>;
  const parts = p.name.split('.');
  for (const part of parts.slice(0, -1)) {
    const m = /^(.*)\[(\d+)\]$/.exec(part);
    if (m) cur = (cur[m[1]!] as Array<Record<string, unknown>>)[Number(m[2])]!;
    else {
      if (typeof cur[part] !== 'object' || cur[part] === null) cur[part] = {};
      cur = cur[part] as Record<string, unknown>;
    }
  }
  cur[parts.at(-1)!] = v;
  return out;
}

const ago = (ms: number) => sb.app.clock.now() - ms;
const MIN = 60_000;
/** 32 bytes that start as a PNG does (the sandbox reads the type and the size from them). */
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
  Buffer.from('IHDR'),
  Buffer.from([0, 0, 0, 4, 0, 0, 0, 4]),
  Buffer.alloc(8),
]);

async function ok(e: Endpoint, input: EndpointInput): Promise<Answer> {
  const a = await send(e, input);
  expect(a.status, `${e.method} ${e.path} ${JSON.stringify(input)} -> ${JSON.stringify(a.body)}`).toBeLessThan(300);
  return a;
}

const data = (a: Answer) => a.body.data as Record<string, unknown>;

/** Resolves once the sandbox has seen every activity stream connection close. */
async function streamsClosed(): Promise<void> {
  const open = sb.app.state.collection(collectionKey('activity_streams', { transient: true }));
  while (open.size > 0) await new Promise((r) => setTimeout(r, 5));
}

async function subscription(): Promise<string> {
  const a = await ok(ACTIVITY_ENDPOINTS.createSubscription, { body: { event_type: 'spaces.start', filter: {} } });
  return String((data(a).subscription as Record<string, unknown>).subscription_id);
}

async function upload(o: { append?: boolean; finalize?: boolean } = {}): Promise<string> {
  const init = await ok(MEDIA_ENDPOINTS.initialize, {
    body: { media_type: 'image/png', total_bytes: PNG.length, media_category: 'tweet_image' },
  });
  const id = String(data(init).id);
  if (o.append || o.finalize)
    await ok(MEDIA_ENDPOINTS.append, { path: { id }, body: { segment_index: 0, media: PNG.toString('base64') } });
  if (o.finalize) await ok(MEDIA_ENDPOINTS.finalize, { path: { id } });
  return id;
}

interface Walk {
  /** A request the sandbox accepts, made afresh for each value sent (what it names exists). */
  base(): EndpointInput | Promise<EndpointInput>;
  /** A base of its own for a parameter (a body of the other form, say). */
  baseFor?: Record<string, () => EndpointInput | Promise<EndpointInput>>;
  /** Accepted values the description leaves to the walk (they depend on the sandbox's state or clock). */
  accepted?: Record<string, () => unknown>;
  /** Parameters that name something of the sandbox's: the base's value is the accepted one. */
  fixed?: readonly string[];
  /** Undoes what an accepted request made. */
  undo?(a: Answer): Promise<unknown>;
}

const W = WEBHOOK_ENDPOINTS;
const S = STREAM_ENDPOINTS;
const A = ACTIVITY_ENDPOINTS;
const AA = ACCOUNT_ACTIVITY_ENDPOINTS;
const ruleDelete = () => ({ body: { delete: { ids: ['1234567890123456789'] } } });

/** Each described operation's valid request, by operationId. */
const WALKS: Record<string, Walk> = {
  createWebhooks: {
    base: () => ({ body: { url: unused.url } }),
    accepted: { url: () => unused.url },
    undo: (a) => send(W.delete, { path: { id: String(data(a).id) } }),
  },
  getWebhooks: { base: () => ({}) },
  deleteWebhooks: { base: () => ({ path: { id: hook(SPARE) } }) },
  validateWebhooks: { base: () => ({ path: { id: HOOK } }) },
  createWebhookReplayJob: {
    base: () => ({ body: { webhook_id: HOOK, from_date: toReplayDate(ago(60 * MIN)), to_date: toReplayDate(ago(0)) } }),
    fixed: ['webhook_id'],
    accepted: {
      from_date: () => toReplayDate(ago(120 * MIN)),
      to_date: () => toReplayDate(ago(30 * MIN)),
    },
  },
  getRules: { base: () => ({}) },
  updateRules: {
    base: () => ({ query: { dry_run: 'true' }, body: { add: [{ value: 'cats' }] } }),
    baseFor: { delete: ruleDelete, 'delete.ids': ruleDelete },
    undo: () => send(S.changeRules, { query: { delete_all: 'true' }, body: {} }),
  },
  getRuleCounts: { base: () => ({}) },
  getWebhooksStreamLinks: { base: () => ({}) },
  createWebhooksStreamLink: { base: () => ({ path: { id: HOOK } }) },
  deleteWebhooksStreamLink: {
    base: async () => {
      await ok(S.link, { path: { id: HOOK } });
      return { path: { id: HOOK } };
    },
  },
  createActivitySubscription: {
    base: () => ({ body: { event_type: 'dm.received', filter: {} } }),
    accepted: { webhook_id: () => HOOK },
    undo: (a) =>
      send(A.deleteSubscription, {
        path: { id: String((data(a).subscription as { subscription_id: string }).subscription_id) },
      }),
  },
  getActivitySubscriptions: { base: () => ({}) },
  updateActivitySubscription: {
    base: async () => ({ path: { id: await subscription() }, body: { tag: 'walk' } }),
    accepted: { webhook_id: () => HOOK },
  },
  deleteActivitySubscription: { base: async () => ({ path: { id: await subscription() } }) },
  deleteActivitySubscriptionsByIds: { base: () => ({ query: { ids: '1234567890123456789' } }) },
  activityStream: {
    base: () => ({}),
    // A stream takes 2 connections at most: the one just cancelled must be gone first.
    undo: () => streamsClosed(),
    accepted: { start_time: () => isoSeconds(ago(10 * MIN)), end_time: () => isoSeconds(ago(-10 * MIN)) },
  },
  validateAccountActivitySubscription: { base: () => ({ path: { webhook_id: HOOK } }) },
  createAccountActivitySubscription: {
    base: () => ({ path: { webhook_id: HOOK } }),
    undo: () => send(AA.unsubscribe, { path: { webhook_id: HOOK, user_id: sb.app.seed.user_id } }),
  },
  deleteAccountActivitySubscription: {
    base: async () => {
      await send(AA.subscribe, { path: { webhook_id: HOOK } });
      return { path: { webhook_id: HOOK, user_id: sb.app.seed.user_id } };
    },
  },
  getAccountActivitySubscriptionCount: { base: () => ({}) },
  getAccountActivitySubscriptions: { base: () => ({ path: { webhook_id: HOOK } }) },
  initializeMediaUpload: { base: () => ({ body: { media_type: 'video/mp4', total_bytes: 1000 } }) },
  appendMediaUpload: {
    base: async () => ({ path: { id: await upload() }, body: { segment_index: 0, media: PNG.toString('base64') } }),
  },
  finalizeMediaUpload: { base: async () => ({ path: { id: await upload({ append: true }) } }) },
  getMediaUploadStatus: {
    base: async () => ({ query: { command: 'STATUS', media_id: await upload({ finalize: true }) } }),
    fixed: ['media_id'],
  },
  mediaUpload: { base: () => ({ body: { media: PNG.toString('base64'), media_category: 'tweet_image' } }) },
  getUsersMe: { base: () => ({}) },
};

/** What a refusal must look like: the v2 invalid-request Problem naming the parameter. */
function expectRefusal(a: Answer, subject: string, what: string): void {
  expect({ status: a.status, type: a.type.split(';')[0] }, what).toEqual({
    status: 400,
    type: 'application/problem+json',
  });
  expect(a.body.type, what).toBe('https://api.x.com/2/problems/invalid-request');
  expect(a.body.parameter, what).toBe(subject);
  expect(String(a.body.detail).startsWith(`${subject} `), `${what}: ${String(a.body.detail)}`).toBe(true);
  if ('value' in a.body) expect(typeof a.body.value, what).toBe('string');
}

describe('the description of each v2 endpoint is what the sandbox enforces', () => {
  it('the 28 operations of the specification are described, each with a walk', () => {
    expect(DESCRIBED.length).toBe(28);
    expect(Object.keys(WALKS).sort()).toEqual(DESCRIBED.map((e) => e.op).sort());
    // Every parameter says what it accepts and what it refuses.
    const bare = DESCRIBED.flatMap((e) => (e.params ?? []).filter((p) => !p.samples).map((p) => `${e.op} ${p.name}`));
    expect(bare).toEqual([]);
  });

  for (const e of DESCRIBED) {
    const walk = WALKS[e.op!]!;
    describe(`${e.op}: ${e.method} ${e.path}`, () => {
      it('its valid request is accepted', async () => {
        const input = await walk.base();
        expect(validate(e, input, { loopback: true, now: sb.app.clock.now() })).toBeUndefined();
        const a = await ok(e, input);
        await walk.undo?.(a);
      });

      for (const p of e.params ?? []) {
        const subject = p.label ?? p.name;
        it(`${subject}: accepted values pass, each broken constraint is refused`, async () => {
          const base = () => (walk.baseFor?.[p.name] ?? walk.base)();
          const made = walk.accepted?.[p.name];
          const fixed = p.in === 'path' || walk.fixed?.includes(p.name);
          const good = fixed ? [] : [...(p.samples?.ok ?? []), ...(made ? [made()] : [])];
          for (const v of good) {
            const a = await ok(e, withValue(await base(), p, v));
            await walk.undo?.(a);
          }
          for (const v of p.samples?.bad ?? []) {
            const a = await send(e, withValue(await base(), p, v));
            expectRefusal(a, subject, `${e.op} ${p.name}=${JSON.stringify(v)?.slice(0, 60)}`);
          }
        });
      }

      for (const c of e.closed ?? []) {
        it(`the body's ${c.at || 'top level'} takes no other field`, async () => {
          const base = await (walk.baseFor?.[c.at.replace('[]', '')] ?? walk.base)();
          const place =
            c.at === '' ? 'colour' : c.at.endsWith('[]') ? `${c.at.slice(0, -2)}[0].colour` : `${c.at}.colour`;
          const a = await send(e, withValue(base, { name: place, in: 'body' }, 'blue'));
          expectRefusal(a, place, `${e.op} ${place}`);
        });
      }

      it('a wrong OAuth 1.0a signature answers the v2 Unauthorized Problem', async () => {
        const a = await send(e, await walk.base(), { secret: 'not-the-secret' });
        expect({ status: a.status, type: a.type.split(';')[0], body: a.body }).toEqual({
          status: 401,
          type: 'application/problem+json',
          body: { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' },
        });
      });
    });
  }
});

describe('pages and shapes as the specification gives them', () => {
  it('stream rules: max_results is a page, next_token (16 characters) the next one', async () => {
    await ok(S.changeRules, { body: { add: [{ value: 'page one' }, { value: 'page two' }, { value: 'page three' }] } });
    const first = await ok(S.listRules, { query: { max_results: '1' } });
    const meta = first.body.meta as { result_count: number; next_token: string };
    expect((first.body.data as unknown[]).length).toBe(1);
    expect(meta.next_token).toMatch(/^.{16}$/);
    const rest = await ok(S.listRules, { query: { max_results: '5', pagination_token: meta.next_token } });
    expect((rest.body.data as unknown[]).length).toBe(2);
    expect(rest.body.meta).not.toHaveProperty('next_token');
    await ok(S.changeRules, { query: { delete_all: 'true' }, body: {} });
    expect((await ok(S.listRules, {})).body.data).toBeUndefined();
  });

  it('activity subscriptions: next_token of 16 characters, meta as recorded', async () => {
    const ids = [await subscription(), await subscription()];
    const first = await ok(A.listSubscriptions, { query: { max_results: '1' } });
    const meta = first.body.meta as Record<string, unknown>;
    expect(Object.keys(meta).sort()).toEqual(['next_token', 'total_subscriptions']);
    expect(meta.next_token).toMatch(/^.{16}$/);
    const rest = await ok(A.listSubscriptions, { query: { pagination_token: String(meta.next_token) } });
    expect(Object.keys(rest.body.meta as object)).toEqual(['total_subscriptions']);
    await ok(A.deleteSubscriptions, { query: { ids: ids.join(',') } });
  });

  it('an activity stream takes 2 connections at most: the third is refused (429 TooManyConnections)', async () => {
    await streamsClosed();
    const url = `${sb.app.baseUrl}${A.stream.path}`;
    const open = [new AbortController(), new AbortController()];
    for (const c of open) {
      const res = await fetch(url, { headers: { authorization: `Bearer ${bearer}` }, signal: c.signal });
      expect(res.status).toBe(200);
    }
    const third = await fetch(url, { headers: { authorization: `Bearer ${bearer}` } });
    expect([third.status, third.headers.get('content-type')]).toEqual([429, 'application/problem+json']);
    expect(await third.json()).toMatchObject({ title: 'ConnectionException', connection_issue: 'TooManyConnections' });
    for (const c of open) c.abort();
    await streamsClosed();
    const again = await send(A.stream, {});
    expect(again.status).toBe(200);
    await streamsClosed();
  });

  it('an activity event id is a numeric string (ActivityEventId)', async () => {
    const res = await fetch(`${sb.app.baseUrl}/_sandbox/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...adminKey(sb.app.seed) },
      body: JSON.stringify({ event_type: 'spaces.start', user_id: sb.app.seed.user_id, payload: {} }),
    });
    const d = ((await res.json()) as { data: { event_uuid: string } }).data;
    expect(d.event_uuid).toMatch(/^[0-9]{1,19}$/);
  });
});
