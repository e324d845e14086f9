// The sandbox's audience users endpoints, called through `xctl request --ads`: body shape,
// hashing rule, operation and byte limits, time rules, do-not-reach restrictions, account
// association, all-or-nothing batches, the short-count fault and the rate-limit category.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../helpers/cli.js';
import { sha256Hex } from '../../src/audiences/normalize.js';

let t: TestSandbox;
let acct: string;
beforeAll(async () => {
  t = await startTestSandbox();
  acct = t.sb.seed.account_id;
  const now = new Date().toISOString();
  for (const [kind, id] of [
    ['custom_audiences', 'ca1'],
    ['custom_audiences', 'ca2'],
    ['do_not_reach_lists', 'dnr1'],
  ] as const) {
    t.sb.app.state.collection(kind).set(id, {
      id,
      account_id: acct,
      name: id,
      description: '',
      audience_size: 0,
      deleted: false,
      created_at: now,
      updated_at: now,
    });
  }
  t.sb.app.state
    .collection('accounts')
    .set('other1', { id: 'other1', name: 'Not yours', user_ids: ['783214'], deleted: false });
});
afterAll(() => t.close());

const CA = (id = 'ca1', account = acct) => `/12/accounts/${account}/custom_audiences/${id}/users`;
const DNR = () => `/12/batch/accounts/${acct}/do_not_reach_lists/dnr1/users`;
const h = (s: string) => sha256Hex(s);
const post = (path: string, body: unknown, extra: string[] = []) =>
  t.run(['request', '--ads', '-X', 'POST', path, '--body', '-', ...extra], {
    input: typeof body === 'string' ? body : JSON.stringify(body),
  });
const size = (id: string, kind: 'custom_audiences' | 'do_not_reach_lists' = 'custom_audiences') =>
  t.sb.app.state.collection(kind).get(id)!.audience_size;
const upd = (users: unknown[], params: Record<string, unknown> = {}) => ({
  operation_type: 'Update',
  params: { ...params, users },
});

describe('POST custom_audiences/:id/users', () => {
  it('counts distinct users; service_id is twitter_id; partner_user_id is not hashed; Delete removes', async () => {
    const r = await post(
      CA(),
      [
        upd([
          { service_id: [h('783214')] },
          { twitter_id: [h('783214')] },
          { partner_user_id: ['crm-1'] },
          { email: [h('a@example.com')], phone_number: [h('14155552671')] },
        ]),
      ],
      ['-i'],
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      request: { params: { account_id: acct, custom_audience_id: 'ca1' } },
      data: { success_count: 4, total_count: 4 },
    });
    expect(r.stderr).toMatch(/x-rate-limit-limit: 1500/);
    expect(size('ca1')).toBe(3);
    const d = await post(CA(), [{ operation_type: 'Delete', params: { users: [{ twitter_id: [h('783214')] }] } }]);
    expect(d.code, d.stderr).toBe(0);
    expect(size('ca1')).toBe(2);
  });

  it('rejects whole batches that break a rule, applying nothing', async () => {
    const good = upd([{ email: [h('new@example.com')] }]);
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    const cases: Array<[unknown, RegExp, number]> = [
      [[good, upd([{ email: [h('x').toUpperCase()] }])], /must be SHA-256 hashed/, 1],
      [[good, upd([{ email: ['plain@example.com'] }])], /must be SHA-256 hashed/, 1],
      [[good, upd([{ fax: [h('1')] }])], /unknown identifier type "fax"/, 1],
      [[good, upd([])], /users must be a non-empty array/, 1],
      [
        [good, { operation_type: 'Create', params: { users: [{ email: [h('1')] }] } }],
        /operation_type must be Update or Delete/,
        1,
      ],
      [
        [upd([{ email: [h('1')] }], { effective_at: iso(now + 86400_000), expires_at: iso(now) })],
        /expires_at must be after effective_at/,
        1,
      ],
      [[upd([{ email: [h('1')] }], { expires_at: iso(now + 400 * 86400_000) })], /at most 13 months/, 1],
      [Array.from({ length: 2501 }, () => good), /At most 2500 operations/, 1],
      [{ not: 'an array' }, /non-empty JSON array/, 1],
    ];
    const before = size('ca2');
    const rs = await Promise.all(cases.map(([body]) => post(CA('ca2'), body)));
    rs.forEach((r, i) => {
      expect(r.code, JSON.stringify(cases[i]![0]).slice(0, 200)).toBe(cases[i]![2]);
      expect(r.stderr).toMatch(cases[i]![1]);
      expect(r.stderr).toMatch(/HTTP 400, code INVALID_PARAMETER/);
    });
    expect(size('ca2')).toBe(before);
  });

  it('refuses bodies over 5,000,000 bytes', async () => {
    const users = Array.from({ length: 66_000 }, (_, i) => ({ email: [h(String(i))] }));
    const r = await post(CA('ca2'), [upd(users)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/exceeds 5000000 bytes \(HTTP 413/);
  });

  it('needs an account associated with the user, and an existing audience', async () => {
    const a = await post(CA('ca1', 'other1'), [upd([{ email: [h('1')] }])]);
    expect(a.code).toBe(1); // a wrong account, not a credential problem (issue 33)
    expect(a.stderr).toMatch(/HTTP 403, code ACCOUNT_NOT_FOUND/);
    const b = await post(CA('nope'), [upd([{ email: [h('1')] }])]);
    expect(b.code).toBe(1);
    expect(b.stderr).toMatch(/HTTP 404, code NOT_FOUND/);
  });

  it('short_count_rate answers with a short count and applies nothing', async () => {
    await t.admin('POST', '/_sandbox/faults', { short_count_rate: 1, match: '/users$' });
    const before = size('ca2');
    const r = await post(CA('ca2'), [upd([{ email: [h('s1')] }, { email: [h('s2')] }])]);
    await t.admin('DELETE', '/_sandbox/faults');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).data).toEqual({ success_count: 1, total_count: 2 });
    expect(size('ca2')).toBe(before);
  });
});

describe('POST batch/.../do_not_reach_lists/:id/users', () => {
  it('takes email and phone_number, no effective_at, expiry under 13 months', async () => {
    const ok = await post(DNR(), [
      upd([{ email: [h('a@example.com')] }, { phone_number: [h('14155552671')] }], {
        expires_at: new Date(Date.now() + 30 * 86400_000).toISOString(),
      }),
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(size('dnr1', 'do_not_reach_lists')).toBe(2);
    const rs = await Promise.all([
      post(DNR(), [upd([{ handle: [h('jack')] }])]),
      post(DNR(), [upd([{ email: [h('b')] }], { effective_at: new Date().toISOString() })]),
      post(DNR(), [upd([{ email: [h('b')] }], { expires_at: new Date(Date.now() + 396 * 86400_000).toISOString() })]),
    ]);
    expect(rs.map((r) => r.code)).toEqual([1, 1, 1]);
    expect(rs[0]!.stderr).toMatch(/do-not-reach lists take email and phone_number/);
    expect(rs[1]!.stderr).toMatch(/effective_at is not accepted/);
    expect(rs[2]!.stderr).toMatch(/less than 13 months ahead/);
    expect(size('dnr1', 'do_not_reach_lists')).toBe(2);
  });
});
