// The flows the official clients check (test/conformance/), through the real CLI against a real
// sandbox: activity subscriptions (aliases, update, delete-many, stream windows), the Account
// Activity API, stream rules counts and links, trigger's event types, read-only tokens, and a
// webhook's deletion ending what points at it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { adminKey, startTestSandbox, type TestSandbox } from '../helpers/cli.js';
import { appBearer, startReceiver, waitFor, expectedSignature, type TestReceiver } from '../helpers/receiver.js';
import { decideOnPage, signedFetch } from '../helpers/oauth-client.js';
import type { Row } from '../helpers/json.js';

let t: TestSandbox;
let rx: TestReceiver;

const json = (s: string) => JSON.parse(s);
async function ok(args: string[], env?: Record<string, string>) {
  const r = await t.run(args, env ? { env } : {});
  expect(r.code, `xctl ${args.join(' ')}\n${r.stderr}`).toBe(0);
  return r;
}
async function webhook(url = rx.url): Promise<string> {
  return json((await ok(['webhooks', 'create', url, '-o', 'json'])).stdout).id;
}

beforeAll(async () => {
  t = await startTestSandbox();
  t.env.XCTL_BEARER_TOKEN = await appBearer(t.sb.baseUrl, t.sb.seed.api_key, t.sb.seed.api_secret);
});
afterAll(async () => t.close());
beforeEach(async () => {
  for (const w of json((await ok(['webhooks', 'list', '-o', 'json'])).stdout))
    await ok(['webhooks', 'delete', w.id, '--yes']);
  rx = await startReceiver(t.sb.seed.api_secret);
  return () => rx.close();
});

describe('activity subscriptions', () => {
  it('create prints the subscription of {data:{subscription}}; aliases become the platform name; update; delete many', async () => {
    const w1 = await webhook();
    const w2 = await webhook(rx.url + '2');
    const a = json(
      (
        await ok([
          'activity',
          'subscriptions',
          'create',
          '--event',
          'profile.update.verified',
          '--user-id',
          '783214',
          '--tag',
          'a',
          '--webhook',
          w1,
          '-o',
          'json',
        ])
      ).stdout,
    );
    expect(a).toMatchObject({
      event_type: 'profile.update.verified_badge',
      filter: { user_id: '783214' },
      tag: 'a',
      webhook_id: w1,
    });
    const b = json(
      (
        await ok([
          'activity',
          'subscriptions',
          'create',
          '--event',
          'chat.conversation_join',
          '--direction',
          'inbound',
          '-o',
          'json',
        ])
      ).stdout,
    );
    expect(b.event_type).toBe('chat.conversation.join');
    const c = json((await ok(['activity', 'subscriptions', 'create', '--event', 'like.create', '-o', 'json'])).stdout);

    const up = json(
      (
        await ok([
          'activity',
          'subscriptions',
          'update',
          a.subscription_id,
          '--tag',
          'renamed',
          '--webhook',
          w2,
          '-o',
          'json',
        ])
      ).stdout,
    );
    expect(up).toMatchObject({
      subscription_id: a.subscription_id,
      tag: 'renamed',
      webhook_id: w2,
      event_type: 'profile.update.verified_badge',
    });
    const none = await t.run(['activity', 'subscriptions', 'update', a.subscription_id]);
    expect([none.code, none.stderr]).toEqual([2, expect.stringMatching(/--tag and\/or --webhook/)]);
    const gone = await t.run(['activity', 'subscriptions', 'update', '1234567', '--tag', 'x']);
    expect([gone.code, gone.stderr]).toEqual([1, expect.stringMatching(/HTTP 404/)]);
    await ok([
      'sandbox',
      'trigger',
      'profile.update.verified_badge',
      '--user-id',
      '783214',
      '--data',
      '{"before":false,"after":true}',
    ]);
    await waitFor(() => rx.deliveries.length === 1, 'the delivery');
    expect(rx.deliveries[0]!.json.data).toMatchObject({ event_type: 'profile.update.verified_badge', tag: 'renamed' });

    const many = await t.run([
      'activity',
      'subscriptions',
      'delete',
      a.subscription_id,
      b.subscription_id,
      '1976325569252868097',
      '--yes',
    ]);
    expect(many.code).toBe(1);
    expect(many.stderr).toContain(`deleted subscription ${a.subscription_id}`);
    expect(many.stderr).toContain('subscription 1976325569252868097 not deleted: Subscription not found');
    expect(many.stderr).toMatch(/2 of 3 deleted \(1 left\)/);
    const list = json((await ok(['activity', 'subscriptions', 'list', '-o', 'json'])).stdout);
    expect(list.map((s: Row) => s.subscription_id)).toEqual([c.subscription_id]);
    await ok(['activity', 'subscriptions', 'delete', c.subscription_id, '--yes']);
  });

  it('activity stream --start-time/--end-time replays a past window, then exits 0', async () => {
    await ok([
      'activity',
      'subscriptions',
      'create',
      '--event',
      'spaces.end',
      '--user-id',
      '783214',
      '--tag',
      'window',
    ]);
    const ev = json((await ok(['sandbox', 'trigger', 'spaces.end', '--user-id', '783214', '-o', 'json'])).stdout);
    const at = Date.parse(ev.created_at);
    const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
    await new Promise((r) => setTimeout(r, 1100));
    const r = await ok(['activity', 'stream', '--start-time', iso(at - 1000), '--end-time', iso(at + 1000)]);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => json(l).data.event_uuid),
    ).toEqual([ev.event_uuid]);
    const both = await t.run(['activity', 'stream', '--start-time', iso(at), '--backfill-minutes', '1']);
    expect(both.code).toBe(2);
    expect((await t.run(['activity', 'stream', '--start-time', 'yesterday'])).code).toBe(2);
  });
});

describe('Account Activity API', () => {
  it('subscribe (user token), --check, list, count, a signed delivery, unsubscribe (bearer)', async () => {
    const w = await webhook();
    const uid = t.sb.seed.user_id;
    expect((await t.run(['account-activity', 'subscribe', w, '--check'])).code).toBe(1);
    expect(json((await ok(['account-activity', 'subscribe', w, '-o', 'json'])).stdout)).toEqual({
      webhook_id: w,
      subscribed: true,
    });
    await ok(['account-activity', 'subscribe', w, '--check']);
    expect(json((await ok(['account-activity', 'list', w, '-o', 'json'])).stdout)).toEqual([
      { user_id: uid, webhook_id: w, webhook_url: rx.url },
    ]);
    expect(json((await ok(['account-activity', 'count', '-o', 'json'])).stdout)).toMatchObject({
      subscriptions_count_all: '1',
      provisioned_count: '15',
    });
    await ok(['sandbox', 'trigger', 'like.create', '--user-id', uid, '--data', '{"favorited_status":{"id_str":"1"}}']);
    await waitFor(() => rx.deliveries.length === 1, 'the account activity delivery');
    expect(rx.deliveries[0]!.json).toEqual({
      for_user_id: uid,
      favorite_events: [{ favorited_status: { id_str: '1' } }],
    });
    expect(rx.deliveries[0]!.headers['x-service-webhooks-signature']).toBe(
      expectedSignature(t.sb.seed.api_secret, rx.deliveries[0]!.raw),
    );
    expect((await t.run(['account-activity', 'unsubscribe', w])).code).toBe(2); // asks; --yes off a terminal
    const un = await ok(['account-activity', 'unsubscribe', w, '--yes']);
    expect(un.stderr).toContain(`user ${uid} unsubscribed from webhook ${w}`);
    const again = await t.run(['account-activity', 'unsubscribe', w, '--yes']);
    expect([again.code, again.stderr]).toEqual([1, expect.stringMatching(/not subscribed.*HTTP 404/)]);
    expect((await t.run(['account-activity', 'list', 'abc'])).code).toBe(2);
    expect((await t.run(['account-activity', 'unsubscribe', w, '--user-id', 'me', '--yes'])).code).toBe(2);
  });

  it('a read-only token is refused on writes with a hint to sign in with write access (exit 3)', async () => {
    const keys = { consumerKey: t.sb.seed.api_key, consumerSecret: t.sb.seed.api_secret };
    const rt = await signedFetch(keys, 'POST', `${t.sb.baseUrl}/oauth/request_token`, {
      extra: { oauth_callback: 'oob' },
      form: { x_auth_access_type: 'read' },
    });
    const page = await decideOnPage(`${t.sb.baseUrl}/oauth/authorize?oauth_token=${rt.data.oauth_token}`, 'allow');
    const at = await signedFetch(
      { ...keys, token: String(rt.data.oauth_token), tokenSecret: String(rt.data.oauth_token_secret) },
      'POST',
      `${t.sb.baseUrl}/oauth/access_token`,
      {
        extra: { oauth_verifier: page.pin! },
      },
    );
    const env = {
      XCTL_ACCESS_TOKEN: String(at.data.oauth_token),
      XCTL_ACCESS_TOKEN_SECRET: String(at.data.oauth_token_secret),
    };
    const w = await webhook();
    const r = await t.run(['account-activity', 'subscribe', w], { env });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^error: .*oauth1 app permissions.*code oauth1-permissions/m);
    expect(r.stderr).toMatch(/^hint: .*read-only.*--access-level write/m);
    expect((await t.run(['account-activity', 'subscribe', w, '--check'], { env })).code).toBe(1); // reads work
  });
});

describe('stream rules and links', () => {
  it('rules counts; a link per field set, with includes for author_id; list shows the field sets', async () => {
    await ok(['stream', 'rules', 'add', 'cats', '--tag', 'cats']);
    const counts = json((await ok(['stream', 'rules', 'counts', '-o', 'json'])).stdout);
    expect(counts).toMatchObject({ app_rules: 1, project_rules: '1', cap_per_client_app: '25000' });
    const w = await webhook();
    await ok(['stream', 'webhooks', 'link', w]);
    await ok(['stream', 'webhooks', 'link', w, '--expansions', 'author_id', '--user-fields', 'username,name']);
    expect((await t.run(['stream', 'webhooks', 'link', w, '--expansions', 'author_id;drop'])).code).toBe(2);
    const links = json((await ok(['stream', 'webhooks', 'list', '-o', 'json'])).stdout);
    expect(links.map((l: Row) => [l.webhook_id, l.fields])).toEqual([
      [w, ''],
      [w, 'expansions=author_id&user.fields=username,name'],
    ]);
    await ok(['sandbox', 'trigger', 'post.create', '--user-id', '783214', '--data', '{"text":"cats everywhere"}']);
    await waitFor(() => rx.deliveries.length === 2, 'one delivery per link');
    expect(rx.deliveries.filter((d) => d.json.includes).map((d) => d.json.includes!.users[0]!.id)).toEqual(['783214']);
    await ok(['stream', 'webhooks', 'unlink', w]);
    const again = await t.run(['stream', 'webhooks', 'unlink', w]);
    expect([again.code, again.stderr]).toEqual([1, expect.stringMatching(/not linked.*HTTP 404/)]);
  });

  it('deleting a webhook ends its subscriptions and links', async () => {
    const w = await webhook();
    await ok(['activity', 'subscriptions', 'create', '--event', 'post.create', '--webhook', w]);
    await ok(['account-activity', 'subscribe', w]);
    await ok(['stream', 'webhooks', 'link', w]);
    await ok(['webhooks', 'delete', w, '--yes']);
    expect(
      json((await ok(['activity', 'subscriptions', 'list', '-o', 'json'])).stdout).filter(
        (s: Row) => s.webhook_id === w,
      ),
    ).toEqual([]);
    expect(json((await ok(['account-activity', 'count', '-o', 'json'])).stdout).subscriptions_count_all).toBe('0');
    expect(json((await ok(['stream', 'webhooks', 'list', '-o', 'json'])).stdout)).toEqual([]);
  });
});

describe('event types: one list for trigger, --event and completion', () => {
  it('trigger refuses unknown and deprecated types before sending; completion offers the types', async () => {
    const unknown = await t.run(['sandbox', 'trigger', 'profile.update.picture']);
    expect([unknown.code, unknown.stderr]).toEqual([
      2,
      expect.stringMatching(
        /^error: <event-type> must be one of the platform's event types \(got "profile.update.picture"\)\nhint: (did you mean [^;]*; )?event types: profile.update.bio /,
      ),
    ]);
    const dep = await t.run(['sandbox', 'trigger', 'ProfileBannerUpdate']);
    expect([dep.code, dep.stderr]).toEqual([2, expect.stringContaining('use profile.update.banner_picture')]);
    const admin = await fetch(`${t.sb.baseUrl}/_sandbox/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...adminKey(t.sb.seed) },
      body: '{"event_type":"nope.nope"}',
    });
    expect(admin.status).toBe(400);
    const bash = (await ok(['completion', 'bash'])).stdout;
    expect(bash).toMatch(/\['--event'\]='profile\.update\.bio [^']*block\.unblock [^']*'/);
    expect(bash).toMatch(/\['sandbox trigger'\]='profile\.update\.bio /);
  });
});
