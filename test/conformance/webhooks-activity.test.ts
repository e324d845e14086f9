// v2 webhooks, activity subscriptions (every event type, update, delete-many, stream, backfill,
// start/end window), the Account Activity API, stream rules and links: driven through XDK's
// public methods (Client with baseUrl; bearer from twitter-api-v2's appLogin) against a real
// sandbox with a local CRC receiver, and checked field by field against the SDK's types.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TwitterApi } from 'twitter-api-v2';
import { ApiError, Client, OAuth1 } from '@xdevplatform/xdk';
import { startTestSandbox, type TestSandbox } from '../helpers/cli.js';
import { decideOnPage } from '../helpers/oauth-client.js';
import { expectedSignature, startReceiver, waitFor, type TestReceiver } from '../helpers/receiver.js';
import { ACTIVITY_EVENT_TYPES } from '../../src/contract/activity.js';
import { expectShape, toSandbox, twitterApiSettings } from './helpers.js';
import type { Row, V2Reply } from '../helpers/json.js';

// XDK's CreateActivitySubscriptionRequest.eventType union (dist/index.d.ts), copied as the judge.
const XDK_EVENT_TYPES = [
  'profile.update.bio',
  'profile.update.profile_picture',
  'profile.update.banner_picture',
  'profile.update.screenname',
  'profile.update.geo',
  'profile.update.url',
  'profile.update.verified_badge',
  'profile.update.affiliate_badge',
  'profile.update.handle',
  'news.new',
  'follow.follow',
  'follow.unfollow',
  'spaces.start',
  'spaces.end',
  'chat.received',
  'chat.sent',
  'chat.conversation_join',
  'dm.sent',
  'dm.received',
  'dm.indicate_typing',
  'dm.read',
  'post.create',
  'post.delete',
  'post.mention.create',
  'like.create',
  'mute.mute',
  'mute.unmute',
  'block.block',
  'block.unblock',
] as const;

// XDK's response types, as field shapes (camelCase: XDK transforms keys).
const SUBSCRIPTION = {
  subscriptionId: 'digits',
  eventType: 'string',
  filter: 'object',
  'tag?': 'string',
  'webhookId?': 'digits',
  createdAt: 'iso-time',
  updatedAt: 'iso-time',
} as const;
const WEBHOOK = { id: 'digits', url: 'string', valid: 'boolean', createdAt: 'iso-time' } as const;
const PROBLEM = {
  title: 'string',
  detail: 'string',
  type: 'string',
  'status?': 'number',
  'parameter?': 'string',
  'value?': 'string',
  'errors?': 'array',
} as const;
const NOT_FOUND = { ...PROBLEM, resource_type: 'string', 'resource_id?': 'string' } as const;

let t: TestSandbox;
let base: string;
let rx: TestReceiver;
let app: Client; // app-only bearer
let user: Client; // OAuth 1.0a user context (the seeded owner)
let bearer: string;

/** An event as POST /_sandbox/events answers it, and as a stream chunk carries it. */
interface EventBody {
  event_uuid: string;
  created_at: string;
  [field: string]: unknown;
}
interface StreamChunk {
  data?: EventBody;
}

const admin = async <T = Row>(method: string, path: string, body?: unknown) => t.admin<T>(method, path, body);
const trigger = (event_type: string, user_id: string, payload: Record<string, unknown> = {}) =>
  admin<{ data: EventBody }>('POST', '/_sandbox/events', { event_type, user_id, payload });

async function apiError(p: Promise<unknown>): Promise<ApiError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ApiError);
  return e as ApiError;
}

beforeAll(async () => {
  t = await startTestSandbox();
  base = t.sb.seed.base_url;
  const tw = new TwitterApi({ appKey: t.sb.seed.api_key, appSecret: t.sb.seed.api_secret }, twitterApiSettings(base));
  bearer = ((await tw.appLogin()).getActiveTokens() as { bearerToken: string }).bearerToken;
  app = new Client({ baseUrl: base, bearerToken: bearer });
  const oauth1 = new OAuth1({
    apiKey: t.sb.seed.api_key,
    apiSecret: t.sb.seed.api_secret,
    callback: 'oob',
    accessToken: t.sb.seed.access_token,
    accessTokenSecret: t.sb.seed.access_token_secret,
  });
  user = new Client({ baseUrl: base, oauth1 });
});
afterAll(async () => t.close());
beforeEach(async () => {
  for (const w of (await app.webhooks.get()).data ?? []) await app.webhooks.delete(w.id!);
  rx = await startReceiver(t.sb.seed.api_secret);
  return () => rx.close();
});

describe('v2 webhooks (XDK webhooks.*)', () => {
  it('create, get, validate, delete answer as WebhookConfig says; user context is accepted as XDK sends it', async () => {
    const created = await app.webhooks.create({ url: rx.url });
    expectShape(created.data, WEBHOOK, 'CreateWebhooksResponse.data');
    expect(created.data).toMatchObject({ url: rx.url, valid: true });
    const list = await app.webhooks.get();
    expect(Object.keys(list).sort()).toEqual(['data', 'meta']);
    expectShape(list.data![0], WEBHOOK, 'GetWebhooksResponse.data[]');
    expect(list.meta).toEqual({ resultCount: 1 });
    const valid = await app.webhooks.validate(created.data!.id);
    expect(valid).toEqual({ data: { valid: true } });
    // XDK prefers OAuth 1.0a user context on writes; spec section 5 asks for a bearer: both work.
    const second = await user.webhooks.create({ url: rx.url + '2' });
    expect(second.data!.valid).toBe(true);
    expect(await user.webhooks.validate(second.data!.id)).toEqual({ data: { valid: true } });
    expect(await user.webhooks.delete(second.data!.id)).toEqual({ data: { deleted: true } });
    expect(await app.webhooks.delete(created.data!.id)).toEqual({ data: { deleted: true } });
  });

  it('errors are v2 problem objects; not-found names the resource type', async () => {
    await app.webhooks.create({ url: rx.url });
    const dup = await apiError(app.webhooks.create({ url: rx.url }));
    expect(dup.status).toBe(400);
    expectShape(dup.data, PROBLEM, 'duplicate url problem');
    expect((dup.data as V2Reply).type).toBe('https://api.x.com/2/problems/invalid-request');
    expectShape((dup.data as V2Reply).errors![0], { ...PROBLEM, code: 'string' }, 'errors[0]');
    const missing = await apiError(app.webhooks.delete('1234567'));
    expect(missing.status).toBe(404);
    expectShape(missing.data, NOT_FOUND, 'not-found problem');
    expect(missing.data).toMatchObject({
      type: 'https://api.x.com/2/problems/resource-not-found',
      resource_type: 'webhook',
      resource_id: '1234567',
      parameter: 'webhook_id',
    });
    const sub = await apiError(app.activity.updateSubscription('1234567', { tag: 'x' }));
    expect(sub.data).toMatchObject({ resource_type: 'subscription', resource_id: '1234567' });
  });
});

describe('activity subscriptions (XDK activity.*)', () => {
  it("the sandbox's list is XDK's eventType union (chat join in the spec's canonical spelling)", () => {
    const ours = [...ACTIVITY_EVENT_TYPES].map((e) => (e === 'chat.conversation.join' ? 'chat.conversation_join' : e));
    expect(ours.sort()).toEqual([...XDK_EVENT_TYPES].sort());
    expect(ours).toHaveLength(29);
  });

  it('every event type: create (CreateActivitySubscriptionResponse), delivery to the webhook, list', async () => {
    const w = (await app.webhooks.create({ url: rx.url })).data!;
    const uid = t.sb.seed.user_id;
    const ids: string[] = [];
    for (const eventType of XDK_EVENT_TYPES) {
      const res = await app.activity.createSubscription({
        eventType,
        filter: { userId: uid },
        tag: `t-${eventType}`,
        webhookId: w.id,
      });
      expect(Object.keys(res)).toEqual(['data']);
      expect(Object.keys(res.data!)).toEqual(['subscription']);
      expectShape(res.data!.subscription, SUBSCRIPTION, `CreateActivitySubscriptionResponse(${eventType})`);
      const sub = res.data!.subscription!;
      expect(sub.eventType).toBe(eventType === 'chat.conversation_join' ? 'chat.conversation.join' : eventType);
      expect(sub.filter).toEqual({ userId: uid });
      ids.push(sub.subscriptionId!);
    }
    for (const eventType of XDK_EVENT_TYPES) {
      const ev = await trigger(eventType, uid, { probe: eventType });
      expect(ev.data.deliveries, eventType).toBeGreaterThanOrEqual(1);
    }
    await waitFor(() => rx.deliveries.length >= XDK_EVENT_TYPES.length, 'one delivery per event type');
    for (const d of rx.deliveries.filter((x) => x.json.data?.event_uuid)) {
      expect(d.headers['x-twitter-webhooks-signature']).toBe(expectedSignature(t.sb.seed.api_secret, d.raw));
      expectShape(
        d.json.data,
        { event_uuid: 'string', event_type: 'string', filter: 'object', 'tag?': 'string', payload: 'object' },
        'ActivityStreamResponse.data',
      );
    }
    const page = await app.activity.getSubscriptions({ maxResults: 10 });
    expect(page.data).toHaveLength(10);
    for (const s of page.data!) expectShape(s, SUBSCRIPTION, 'GetActivitySubscriptionsResponse.data[]');
    // meta.total_subscriptions is docs/contract.md, notes's (XDK's type has no meta): the spec wins.
    expect((page as { meta?: unknown }).meta).toMatchObject({ totalSubscriptions: 29, nextToken: expect.any(String) });
    expect(ids).toContain(page.data![0]!.subscriptionId);
  });

  it('update changes tag and webhook only (UpdateActivitySubscriptionResponse); delete-many reports each id', async () => {
    const w1 = (await app.webhooks.create({ url: rx.url })).data!;
    const w2 = (await app.webhooks.create({ url: rx.url + '2' })).data!;
    const mk = async (tag: string) =>
      (
        await app.activity.createSubscription({
          eventType: 'profile.update.bio',
          filter: { userId: t.sb.seed.user_id },
          tag,
          webhookId: w1.id,
        })
      ).data!.subscription!;
    const a = await mk('a');
    const b = await mk('b');
    const c = await mk('c');
    await new Promise((r) => setTimeout(r, 5));
    const up = await app.activity.updateSubscription(a.subscriptionId!, { tag: 'renamed', webhookId: w2.id });
    expect(Object.keys(up.data!).sort()).toEqual(['subscription', 'totalSubscriptions']);
    expectShape(up.data!.subscription, SUBSCRIPTION, 'UpdateActivitySubscriptionResponse.data.subscription');
    expect(up.data!.subscription).toMatchObject({
      tag: 'renamed',
      webhookId: w2.id,
      eventType: 'profile.update.bio',
      createdAt: a.createdAt,
    });
    expect(up.data!.totalSubscriptions).toBe(3);
    expect(await apiError(app.activity.updateSubscription(a.subscriptionId!, {}))).toMatchObject({ status: 400 });
    expect(
      await apiError(app.activity.updateSubscription(a.subscriptionId!, { eventType: 'news.new' } as never)),
    ).toMatchObject({ status: 400 });
    expect(
      (await apiError(app.activity.updateSubscription(a.subscriptionId!, { webhookId: '999' }))).data,
    ).toMatchObject({ parameter: 'webhook_id' });
    // The events now go to the new webhook, with the new tag.
    await trigger('profile.update.bio', t.sb.seed.user_id, { before: 'x', after: 'y' });
    await waitFor(() => rx.deliveries.length === 3, 'three deliveries');
    expect(rx.deliveries.map((d) => d.json.data!.tag).sort()).toEqual(['b', 'c', 'renamed']);

    const many = await app.activity.deleteSubscriptionsByIds([
      a.subscriptionId!,
      b.subscriptionId!,
      '1976325569252868097',
    ]);
    expect(many).toEqual({
      data: [
        { subscriptionId: a.subscriptionId, deleted: true },
        { subscriptionId: b.subscriptionId, deleted: true },
      ],
      errors: [{ subscriptionId: '1976325569252868097', reason: 'NotFound', message: 'Subscription not found' }],
      meta: { totalSubscriptions: 1 },
    });
    const one = await app.activity.deleteSubscription(c.subscriptionId!);
    expect(one.data).toEqual({ deleted: true });
    // Single and many deletes take an app-only bearer only.
    // (XDK itself refuses to send user context there; twitter-api-v2 sends what it is asked to.)
    const tw = new TwitterApi(
      {
        appKey: t.sb.seed.api_key,
        appSecret: t.sb.seed.api_secret,
        accessToken: t.sb.seed.access_token,
        accessSecret: t.sb.seed.access_token_secret,
      },
      twitterApiSettings(base),
    );
    const asUser = await tw.v2.delete(`activity/subscriptions/${c.subscriptionId}`).catch((x) => x);
    expect(asUser.code).toBe(403);
    expect(asUser.data).toMatchObject({ type: 'https://api.x.com/2/problems/unsupported-authentication' });
  });

  it('stream (XDK stream.activity): live events, backfill_minutes, and a start/end window that replays then ends', async () => {
    const uid = '783214';
    await app.activity.createSubscription({ eventType: 'spaces.start', filter: { userId: uid }, tag: 'live' });
    const early = await trigger('spaces.start', uid, { title: 'early' });
    const from = new Date(Date.parse(early.data.created_at) - 1000).toISOString().replace(/\.\d+Z$/, 'Z');

    const stream = await app.stream.activity({ backfillMinutes: 5 });
    const got: StreamChunk[] = [];
    stream.on('data', (d: StreamChunk) => d.data && got.push(d));
    await waitFor(() => got.length === 1, 'the backfilled event');
    const live = await trigger('spaces.start', uid, { title: 'live' });
    await waitFor(() => got.length === 2, 'the live event');
    stream.close();
    expect(got.map((g) => g.data!.event_uuid)).toEqual([early.data.event_uuid, live.data.event_uuid]);
    expectShape(
      got[0].data,
      { event_uuid: 'string', event_type: 'string', filter: 'object', tag: 'string', payload: 'object' },
      'ActivityStreamResponse.data',
    );

    const to = new Date(Date.parse(live.data.created_at) + 1000).toISOString().replace(/\.\d+Z$/, 'Z');
    await new Promise((r) => setTimeout(r, 1100));
    const window = await app.stream.activity({ startTime: from, endTime: to });
    const replayed: string[] = [];
    let closed = false;
    window.on('data', (d: StreamChunk) => d.data && replayed.push(d.data.event_uuid));
    window.on('close', () => (closed = true));
    await waitFor(() => closed, 'the window stream to end');
    expect(replayed).toEqual([early.data.event_uuid, live.data.event_uuid]);
    await expect(app.stream.activity({ startTime: 'yesterday' })).rejects.toThrow(/400/);
    await expect(app.stream.activity({ startTime: from, backfillMinutes: 1 })).rejects.toThrow(/400/);
  });
});

describe('Account Activity API (XDK accountActivity.*)', () => {
  it('subscribe as the user, list and count with the bearer, deliveries signed, replay, unsubscribe', async () => {
    const w = (await app.webhooks.create({ url: rx.url })).data!;
    const uid = t.sb.seed.user_id;
    expect(await user.accountActivity.validateSubscription(w.id!)).toEqual({ data: { subscribed: false } });
    expect(await user.accountActivity.createSubscription(w.id!, {})).toEqual({ data: { subscribed: true } });
    expect(await user.accountActivity.validateSubscription(w.id!)).toEqual({ data: { subscribed: true } });

    const count = await app.accountActivity.getSubscriptionCount();
    expectShape(
      count.data,
      {
        accountName: 'string',
        provisionedCount: 'string',
        subscriptionsCountAll: 'string',
        subscriptionsCountDirectMessages: 'string',
      },
      'GetAccountActivitySubscriptionCountResponse.data',
    );
    expect(count.data).toMatchObject({ subscriptionsCountAll: '1', subscriptionsCountDirectMessages: '1' });
    const list = await app.accountActivity.getSubscriptions(w.id!);
    expectShape(
      list.data,
      { applicationId: 'digits', subscriptions: 'array', webhookId: 'digits', webhookUrl: 'string' },
      'GetAccountActivitySubscriptionsResponse.data',
    );
    expect(list.data).toMatchObject({ webhookId: w.id, webhookUrl: rx.url, subscriptions: [{ userId: uid }] });

    const ev = await trigger('follow.follow', uid, { source: { id: '783214' }, target: { id: uid } });
    expect(ev.data.deliveries).toBe(1);
    await trigger('follow.follow', '783214', {}); // another user: not subscribed
    await waitFor(() => rx.deliveries.length === 1, 'the account activity delivery');
    const d = rx.deliveries[0]!;
    expect(d.json).toEqual({ for_user_id: uid, follow_events: [{ source: { id: '783214' }, target: { id: uid } }] });
    expect(d.headers['x-twitter-webhooks-signature']).toBe(expectedSignature(t.sb.seed.api_secret, d.raw));

    // Replay through POST /2/webhooks/replay (XDK webhooks.createWebhookReplayJob).
    const now = Date.parse((await admin<{ clock: { now: string } }>('GET', '/_sandbox/state')).clock.now);
    const ymd = (ms: number) => new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 12);
    const job = await app.webhooks.createWebhookReplayJob({
      webhookId: w.id!,
      fromDate: ymd(now - 3_600_000),
      toDate: ymd(now),
    });
    expectShape(job.data, { jobId: 'digits', createdAt: 'iso-time' }, 'CreateWebhookReplayJobResponse.data');
    await waitFor(() => rx.deliveries.length === 2, 'the replayed delivery');
    expect(rx.deliveries[1]!.raw.equals(d.raw)).toBe(true);

    expect(await app.accountActivity.deleteSubscription(w.id!, uid)).toEqual({ data: { subscribed: false } });
    const again = await apiError(app.accountActivity.deleteSubscription(w.id!, uid));
    expect(again.status).toBe(404);
    expect(again.data).toMatchObject({ resource_type: 'subscription' });
  });
});

describe('read-only OAuth 1.0a tokens (docs/contract.md, notes-2 section 2)', () => {
  it('are refused on writes with the platform forms, and carry x-access-level', async () => {
    const tw = new TwitterApi({ appKey: t.sb.seed.api_key, appSecret: t.sb.seed.api_secret }, twitterApiSettings(base));
    const link = await tw.generateAuthLink('oob', { authAccessType: 'read' });
    const page = await decideOnPage(toSandbox(link.url, base), 'allow');
    const pending = new TwitterApi(
      {
        appKey: t.sb.seed.api_key,
        appSecret: t.sb.seed.api_secret,
        accessToken: link.oauth_token,
        accessSecret: link.oauth_token_secret,
      },
      twitterApiSettings(base),
    );
    const signedIn = await pending.login(page.pin!);
    const w = (await app.webhooks.create({ url: rx.url })).data!;
    const reader = new Client({
      baseUrl: base,
      oauth1: new OAuth1({
        apiKey: t.sb.seed.api_key,
        apiSecret: t.sb.seed.api_secret,
        callback: 'oob',
        accessToken: signedIn.accessToken,
        accessTokenSecret: signedIn.accessSecret,
      }),
    });
    // Reads work; writes get the v2 oauth1-permissions problem.
    expect(await reader.accountActivity.validateSubscription(w.id!)).toEqual({ data: { subscribed: false } });
    const e = await apiError(reader.accountActivity.createSubscription(w.id!, {}));
    expect(e.status).toBe(403);
    expect(e.data).toEqual({
      title: 'Forbidden',
      status: 403,
      detail: 'Your client app is not configured with the appropriate oauth1 app permissions for this endpoint.',
      type: 'https://api.x.com/2/problems/oauth1-permissions',
    });
    const v1 = await signedIn.client.v1.get('account/verify_credentials.json', {}, { fullResponse: true });
    expect(v1.headers['x-access-level']).toBe('read');
    // Ads writes: READONLY_CLIENT_APPLICATION.
    const ads = await signedIn.client
      .post(`https://ads-api.x.com/12/accounts/${t.sb.seed.account_id}/campaigns`, { name: 'x' })
      .catch((x) => x);
    expect(ads.code).toBe(403);
    expect(ads.data.errors[0].code).toBe('READONLY_CLIENT_APPLICATION');
  });
});

describe('stream rules (twitter-api-v2 v2.*, XDK stream.*) and stream links (XDK webhooks.*)', () => {
  it('rules, rule counts, link with fields, matched deliveries, unlink', async () => {
    const tw = new TwitterApi(bearer, twitterApiSettings(base));
    const added = await tw.v2.updateStreamRules({
      add: [
        { value: 'from:sandbox_alice', tag: 'alice' },
        { value: 'cats', tag: 'cats' },
      ],
    });
    expect(added.meta.summary).toMatchObject({ created: 2, not_created: 0 });
    const rules = await tw.v2.streamRules();
    expect(rules.data.map((r) => r.value).sort()).toEqual(['cats', 'from:sandbox_alice']);
    const xdkRules = await app.stream.getRules();
    expect(xdkRules.data).toHaveLength(2);

    const counts = await app.stream.getRuleCounts();
    expectShape(
      counts.data,
      {
        capPerClientApp: 'string',
        capPerProject: 'string',
        clientAppRulesCount: 'object',
        projectRulesCount: 'string',
        'allProjectClientApps?': 'array',
      },
      'GetRuleCountsResponse.data',
    );
    expect(counts.data).toMatchObject({ projectRulesCount: '2', clientAppRulesCount: { ruleCount: 2 } });
    const withApps = await app.stream.getRuleCounts({ rulesCountFields: 'all_project_client_apps' } as never);
    expect(withApps.data!.allProjectClientApps).toHaveLength(1);

    const w = (await app.webhooks.create({ url: rx.url })).data!;
    expect(await app.webhooks.createStreamLink(w.id!)).toEqual({ data: { provisioned: true } });
    const linkedList = await app.webhooks.getStreamLinks();
    expect(linkedList.data).toHaveLength(1);
    expectShape(
      linkedList.data![0],
      {
        applicationId: 'digits',
        businessUserId: 'digits',
        createdAt: 'iso-time',
        fields: 'array',
        instanceId: 'digits',
        webhookId: 'digits',
      },
      'GetWebhooksStreamLinksResponse.data[]',
    );
    // Linking with a field set (the quickstart's query parameters) adds a second instance.
    const r = await fetch(
      `${base}/2/tweets/search/webhooks/${w.id}?expansions=author_id&user.fields=username,name,id`,
      { method: 'POST', headers: { authorization: `Bearer ${bearer}` } },
    );
    expect(r.status).toBe(200);
    const both = (await app.webhooks.getStreamLinks()).data!;
    expect(both.map((l) => l.fields)).toEqual([[], ['expansions=author_id', 'user.fields=username,name,id']]);

    await trigger('post.create', '783214', { text: 'I like cats' });
    await waitFor(() => rx.deliveries.length === 2, 'a delivery per link');
    const bodies = rx.deliveries.map((d) => d.json);
    expect(bodies[0]!.matching_rules!.map((m) => m.tag).sort()).toEqual(['alice', 'cats']);
    expect(bodies[0]!.includes).toBeUndefined();
    expect(bodies[1]!.includes!.users[0]).toMatchObject({ id: '783214' });
    expectShape(
      bodies[1].data,
      { id: 'digits', text: 'string', created_at: 'iso-time', author_id: 'digits', edit_history_tweet_ids: 'array' },
      'stream delivery data',
    );

    expect(await app.webhooks.deleteStreamLink(w.id!)).toEqual({ data: { deleted: true } });
    expect((await apiError(app.webhooks.deleteStreamLink(w.id!))).data).toMatchObject({
      resource_type: 'webhook link',
    });
  });

  it('deleting a webhook ends its activity subscriptions, account activity subscriptions and stream links', async () => {
    const w = (await app.webhooks.create({ url: rx.url })).data!;
    const keep = (await app.activity.createSubscription({ eventType: 'news.new', filter: { keyword: 'cats' } })).data!
      .subscription!;
    await app.activity.createSubscription({ eventType: 'news.new', filter: { keyword: 'dogs' }, webhookId: w.id });
    await user.accountActivity.createSubscription(w.id!, {});
    await app.webhooks.createStreamLink(w.id!);
    await app.webhooks.delete(w.id!);
    const left = (await app.activity.getSubscriptions()).data ?? [];
    expect(left.map((s) => s.subscriptionId)).toContain(keep.subscriptionId);
    expect(left.some((s) => s.webhookId === w.id)).toBe(false);
    expect((await app.accountActivity.getSubscriptionCount()).data!.subscriptionsCountAll).toBe('0');
    expect((await app.webhooks.getStreamLinks()).data).toEqual([]);
    await app.activity.deleteSubscription(keep.subscriptionId!);
  });
});
