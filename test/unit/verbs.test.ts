// Verbs in-process, through their run functions or the real command tree, with every request they
// send: named positionals, the fake clock, and the declared hooks of generated verbs.
import { afterEach, describe, expect, it } from 'vitest';
import { HttpRegistry, json, route } from '../helpers/http-registry.js';
import { TEST_NOW, testContext, type TestContext } from '../helpers/test-context.js';
import { webhooksReplay } from '../../src/commands/webhooks/replay.js';
import { subscriptionsCreate } from '../../src/commands/activity/subscriptions/create.js';

const made: TestContext[] = [];
const ctxWith = (reg: HttpRegistry, o: Parameters<typeof testContext>[0] = {}) => {
  const t = testContext({ transport: reg, ...o });
  made.push(t);
  return t;
};
afterEach(() => {
  for (const t of made.splice(0)) t.cleanup();
});

describe('webhooks replay', () => {
  it('sends the window in yyyymmddhhmm, the end floored to the current minute', async () => {
    const reg = new HttpRegistry();
    reg.register(
      route('POST', '/2/webhooks/replay'),
      json({ data: { job_id: '77', created_at: '2026-01-15T12:00:00.000Z' } }),
    );
    const t = ctxWith(reg, { globals: { output: 'jsonl' } });
    await webhooksReplay(t.ctx, { id: '123', from: new Date(TEST_NOW - 2 * 3_600_000).toISOString() });
    expect(reg.requests[0]!.json()).toEqual({ webhook_id: '123', from_date: '202601151000', to_date: '202601151200' });
    expect(JSON.parse(t.stdout())).toEqual({
      job_id: '77',
      created_at: '2026-01-15T12:00:00.000Z',
      webhook_id: '123',
      from_date: '202601151000',
      to_date: '202601151200',
    });
    reg.verify();
  });

  it('refuses a window older than 24 hours, a reversed one and a bad id, sending nothing', async () => {
    const reg = new HttpRegistry();
    const t = ctxWith(reg);
    await expect(webhooksReplay(t.ctx, { id: '123', from: '202601141159' })).rejects.toThrow(
      '--from must be within the past 24 hours',
    );
    await expect(webhooksReplay(t.ctx, { id: '123', from: '202601151100', to: '202601151000' })).rejects.toThrow(
      "--to must not be before the window's start",
    );
    await expect(webhooksReplay(t.ctx, { id: 'abc', from: '202601151100' })).rejects.toThrow(
      'webhook id must be 1-19 digits',
    );
    // the window edge itself is allowed
    reg.register(route('POST', '/2/webhooks/replay'), json({ data: {} }));
    await webhooksReplay(t.ctx, { id: '123', from: '202601141200' });
    expect(reg.requests).toHaveLength(1);
  });
});

describe('activity subscriptions create', () => {
  it('sends the body the contract allows, signed as the user', async () => {
    const reg = new HttpRegistry();
    reg.register(
      route('POST', '/2/activity/subscriptions'),
      json({ data: { subscription_id: '1', event_type: 'dm.received' } }),
    );
    const t = ctxWith(reg);
    await subscriptionsCreate(t.ctx, {
      event: 'dm.received',
      userId: '783214',
      keyword: 'k'.repeat(150),
      direction: 'inbound',
      tag: 't'.repeat(200),
      webhook: '99',
    });
    expect(reg.requests[0]!.json()).toEqual({
      event_type: 'dm.received',
      filter: { user_id: '783214', keyword: 'k'.repeat(150), direction: 'inbound' },
      tag: 't'.repeat(200),
      webhook_id: '99',
    });
    expect(reg.requests[0]!.headers.authorization).toMatch(/^OAuth /);
    reg.verify();
  });

  it('refuses one character past each limit, before sending', async () => {
    const reg = new HttpRegistry();
    const t = ctxWith(reg);
    await expect(subscriptionsCreate(t.ctx, { event: 'dm.received', keyword: 'k'.repeat(151) })).rejects.toThrow(
      '--keyword must be 1-150 characters (got 151)',
    );
    await expect(subscriptionsCreate(t.ctx, { event: 'dm.received', tag: 't'.repeat(201) })).rejects.toThrow(
      '--tag must be 1-200 characters (got 201)',
    );
    await expect(subscriptionsCreate(t.ctx, { event: 'spaces.start', direction: 'inbound' })).rejects.toThrow(
      '--direction applies to direct-message and chat events',
    );
    await expect(subscriptionsCreate(t.ctx, { event: 'ProfileBioUpdate' })).rejects.toThrow('use profile.update.bio');
    expect(reg.requests).toEqual([]);
  });

  it('signs with the app bearer when no user token is set', async () => {
    const reg = new HttpRegistry();
    reg.register(
      route('POST', '/2/activity/subscriptions'),
      json({ data: { subscription: { subscription_id: '2', event_type: 'spaces.start' } } }),
    );
    const t = ctxWith(reg, { env: { XCTL_ACCESS_TOKEN: undefined, XCTL_ACCESS_TOKEN_SECRET: undefined } });
    await subscriptionsCreate(t.ctx, { event: 'spaces.start' });
    expect(reg.requests[0]!.headers.authorization).toBe('Bearer AAAA-test-bearer');
  });
});

describe('audiences update: the generated verb with its beforeSend hook', () => {
  const aud = (type: string) => json({ data: { id: 'ca1', name: 'News', audience_type: type } });

  it('checks the flags, reads the audience, then sends the generated PUT', async () => {
    const reg = new HttpRegistry();
    reg.register(route('GET', '/12/accounts/acct1/custom_audiences/ca1'), aud('WEB'));
    reg.register(
      route('PUT', '/12/accounts/acct1/custom_audiences/ca1'),
      json({ data: { id: 'ca1', name: 'Renamed' } }),
    );
    const t = ctxWith(reg);
    await t.run(['audiences', 'update', 'ca1', '--name', 'Renamed', '-o', 'jsonl']);
    expect(reg.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /12/accounts/acct1/custom_audiences/ca1',
      'PUT /12/accounts/acct1/custom_audiences/ca1',
    ]);
    expect(reg.requests[1]!.form().get('name')).toBe('Renamed');
    expect(t.stdout()).toBe('{"id":"ca1","name":"Renamed"}\n');
    reg.verify();
  });

  it('a flexible audience is refused after the read: no PUT', async () => {
    const reg = new HttpRegistry();
    reg.register(route('GET', '/12/accounts/acct1/custom_audiences/ca1'), aud('FLEXIBLE'));
    const t = ctxWith(reg);
    await expect(t.run(['audiences', 'update', 'ca1', '--name', 'x'])).rejects.toThrow(
      /audiences update: custom audience ca1 \("News"\) is a flexible audience/,
    );
    expect(reg.requests.map((r) => r.method)).toEqual(['GET']);
  });

  it('a flag that breaks a rule is refused before the read', async () => {
    const reg = new HttpRegistry();
    const t = ctxWith(reg);
    await expect(t.run(['audiences', 'update', 'ca1', '--name', ''])).rejects.toThrow('--name must not be empty');
    expect(reg.requests).toEqual([]);
  });
});

describe('stream rules add', () => {
  it('arguments and a rules file on stdin become one add request; dry_run is a query flag', async () => {
    const reg = new HttpRegistry();
    reg.register(
      route('POST', '/2/tweets/search/stream/rules', { query: { dry_run: 'true' } }),
      json({
        data: [{ id: '1', value: 'cats', tag: 'pets' }],
        meta: { summary: { valid: 2, invalid: 0, created: 0, not_created: 2 } },
      }),
    );
    const t = ctxWith(reg, { stdin: '# comment\ndogs\n{"value":"birds","tag":"b"}\n' });
    await t.run(['stream', 'rules', 'add', 'cats', '--tag', 'pets', '--file', '-', '--dry-run', '-o', 'tsv']);
    expect(reg.requests[0]!.json()).toEqual({
      add: [{ value: 'cats', tag: 'pets' }, { value: 'dogs' }, { value: 'birds', tag: 'b' }],
    });
    // No made-up ids: the rules as they would be added.
    expect(t.stdout()).toBe('cats\tpets\n');
    expect(t.stderr()).toBe('dry run: would add 2, invalid 0; nothing was added\n');
  });

  it('delete --dry-run says what would be deleted', async () => {
    const reg = new HttpRegistry();
    reg.register(
      route('POST', '/2/tweets/search/stream/rules', { query: { dry_run: 'true' } }),
      json({ meta: { summary: { deleted: 2, not_deleted: 0 } } }),
    );
    const t = ctxWith(reg);
    await t.run(['stream', 'rules', 'delete', '11', '12', '--dry-run']);
    expect(reg.requests[0]!.json()).toEqual({ delete: { ids: ['11', '12'] } });
    expect(t.stdout()).toBe('');
    expect(t.stderr()).toBe('dry run: would delete 2, would not delete 0; nothing was deleted\n');
  });
});
