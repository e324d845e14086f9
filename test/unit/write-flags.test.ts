// Generated writes for pipelines that run twice (issue 33): --if-exists return|fail on creates
// of named things, a duplicate's existing_id as data, and --dry-run printing the request.
import { describe, expect, it } from 'vitest';
import { DuplicateError } from '../../src/commands/ads/write-flags.js';
import { HttpRegistry, json, route } from '../helpers/http-registry.js';
import { testContext } from '../helpers/test-context.js';

const CAMPAIGNS = '/12/accounts/acct1/campaigns';
const create = [
  'ads',
  'campaigns',
  'create',
  '--name',
  'Launch',
  '--funding-instrument-id',
  'fi1',
  '--daily-budget-amount-local-micro',
  '5000000',
];

describe('--if-exists on creates of named things', () => {
  it('return: prints the live one of that name (exit 0) and creates nothing', async () => {
    const reg = new HttpRegistry();
    reg.register(
      route('GET', CAMPAIGNS),
      json({
        data: [
          { id: 'c0', name: 'Launch', deleted: true },
          { id: 'c1', name: 'Other' },
        ],
        next_cursor: 'p2',
      }),
    );
    reg.register(
      route('GET', CAMPAIGNS, { query: { cursor: 'p2' } }),
      json({ data: [{ id: 'c2', name: 'Launch', entity_status: 'PAUSED' }], next_cursor: null }),
    );
    const t = testContext({ transport: reg });
    await t.run([...create, '--if-exists', 'return', '-o', 'json', '--fields', 'id,name']);
    expect(JSON.parse(t.stdout())).toEqual({ id: 'c2', name: 'Launch' });
    expect(t.stderr()).toContain('--if-exists return: campaign "Launch" exists already (c2); nothing was created');
    expect(reg.requests.map((r) => r.method)).toEqual(['GET', 'GET']);
    reg.verify();
    t.cleanup();
  });

  it('fail: a DuplicateError (exit 1) carrying existing_id; none: the create goes ahead', async () => {
    const reg = new HttpRegistry();
    reg.register(route('GET', CAMPAIGNS), json({ data: [{ id: 'c2', name: 'Launch' }], next_cursor: null }));
    const t = testContext({ transport: reg });
    const err = await t.run([...create, '--if-exists', 'fail']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DuplicateError);
    expect((err as DuplicateError).toJSON()).toMatchObject({
      type: 'DuplicateError',
      code: 'DUPLICATE',
      existing_id: 'c2',
      exit_code: 1,
    });
    t.cleanup();

    const reg2 = new HttpRegistry();
    reg2.register(route('GET', CAMPAIGNS), json({ data: [], next_cursor: null }));
    reg2.register(route('POST', CAMPAIGNS), json({ data: { id: 'c9', name: 'Launch' } }));
    const t2 = testContext({ transport: reg2 });
    await t2.run([...create, '--if-exists', 'return', '-o', 'json', '--fields', 'id']);
    expect(JSON.parse(t2.stdout())).toEqual({ id: 'c9' });
    reg2.verify();
    t2.cleanup();
  });

  it("the service's own duplicate answer becomes a DuplicateError with the id as data", async () => {
    const reg = new HttpRegistry();
    reg.register(
      route('POST', '/12/accounts/acct1/custom_audiences'),
      json(
        {
          errors: [
            {
              code: 'INVALID_PARAMETER',
              message: 'a custom audience named "A" already exists (a77); names must be unique',
              parameter: 'name',
            },
          ],
        },
        400,
      ),
    );
    const t = testContext({ transport: reg });
    const err = await t.run(['audiences', 'create', '--name', 'A']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DuplicateError);
    expect((err as DuplicateError).existingId).toBe('a77');
    t.cleanup();
  });
});

describe('--dry-run on writes', () => {
  it('prints the request it would send and sends nothing (a delete asks nothing)', async () => {
    for (const [argv, method, url] of [
      [create, 'POST', `https://ads-api.x.com${CAMPAIGNS}`],
      [
        ['ads', 'campaigns', 'update', 'c2', '--entity-status', 'PAUSED'],
        'PUT',
        `https://ads-api.x.com${CAMPAIGNS}/c2`,
      ],
      [['ads', 'campaigns', 'delete', 'c2'], 'DELETE', `https://ads-api.x.com${CAMPAIGNS}/c2`],
    ] as const) {
      const reg = new HttpRegistry();
      const t = testContext({ transport: reg, env: { XCTL_BASE_URL: undefined } });
      await t.run([...argv, '--dry-run']);
      const printed = JSON.parse(t.stdout()) as { method: string; url: string; params: Record<string, string> };
      expect([printed.method, printed.url]).toEqual([method, url]);
      expect(reg.requests).toEqual([]);
      t.cleanup();
    }
  });
});

describe('webhooks create --if-exists / --dry-run (webhooks are named by their URL)', () => {
  const url = 'https://hooks.example.com/x';
  it('return prints the existing one; fail carries its id; --dry-run sends nothing', async () => {
    const reg = new HttpRegistry();
    reg.register(
      route('GET', '/2/webhooks'),
      json({ data: [{ id: '1146654567674912769', url, valid: true, created_at: '2026-01-01T00:00:00.000Z' }] }),
      { times: 2 },
    );
    const t = testContext({ transport: reg });
    await t.run(['webhooks', 'create', url, '--if-exists', 'return', '-o', 'json', '--fields', 'id']);
    expect(JSON.parse(t.stdout())).toEqual({ id: '1146654567674912769' });
    const err = await t.run(['webhooks', 'create', url, '--if-exists', 'fail']).catch((e: unknown) => e);
    expect((err as DuplicateError).toJSON()).toMatchObject({ existing_id: '1146654567674912769', exit_code: 1 });
    expect(reg.requests.map((r) => r.method)).toEqual(['GET', 'GET']);
    t.cleanup();

    const reg2 = new HttpRegistry();
    const t2 = testContext({ transport: reg2 });
    await t2.run(['webhooks', 'create', url, '--dry-run']);
    expect(JSON.parse(t2.stdout())).toMatchObject({ dry_run: true, method: 'POST', json: { url } });
    expect(reg2.requests).toEqual([]);
    t2.cleanup();
  });
});
