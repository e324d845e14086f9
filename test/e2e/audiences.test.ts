// Custom audiences, flexible audiences, targeted line items, do-not-reach lists and estimates
// through the real CLI against the sandbox, with the error cases of ads-api.md section 7.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdsSandbox, type AdsSandbox } from '../helpers/ads.js';
import { tempDir } from '../helpers/cli.js';

let t: AdsSandbox;
let dir: string;
let acct: string;
beforeAll(async () => {
  t = await startAdsSandbox();
  dir = tempDir('xctl-aud-');
  acct = t.sb.seed.account_id;
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function file(name: string, body: unknown): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, typeof body === 'string' ? body : JSON.stringify(body));
  return p;
}

const hash = (i: number) => i.toString(16).padStart(64, '0');

describe('custom audiences', () => {
  it('create, get (audience_size, is_owner), list with q prefix, update, delete; names are unique', async () => {
    const a = await t.json(['audiences', 'create', '--name', 'Newsletter readers', '--description', 'from the CRM']);
    expect(a).toMatchObject({
      name: 'Newsletter readers',
      description: 'from the CRM',
      audience_size: 0,
      account_id: acct,
      deleted: false,
      is_owner: true,
    });
    // audience_size is the exact number of distinct hashed users (written by the users endpoint).
    const users = await t.signed('POST', `/12/accounts/${acct}/custom_audiences/${a.id}/users`, [
      {
        operation_type: 'Update',
        params: { users: [{ email: [hash(1)] }, { email: [hash(2)] }, { email: [hash(1)] }] },
      },
    ]);
    expect(users.status).toBe(200);
    expect(await t.json(['audiences', 'get', a.id])).toMatchObject({ id: a.id, audience_size: 2, is_owner: true });
    const table = await t.run(['audiences', 'get', a.id, '-o', 'tsv', '--fields', 'name,audience_size']);
    expect(table.stdout).toBe('Newsletter readers\t2\n');

    await t.json(['audiences', 'create', '--name', 'News junkies']);
    const byPrefix = (await t.list(['audiences', 'list', '--q', 'news'])).map((x) => x.name).sort();
    expect(byPrefix).toEqual(['News junkies', 'Newsletter readers']);
    expect((await t.list(['audiences', 'list', '--q', 'newsl'])).map((x) => x.id)).toEqual([a.id]);

    // Spec 7: a duplicate name is an error (on create and on rename), whatever the case.
    const dup = await t.fails(1, ['audiences', 'create', '--name', 'newsletter READERS']);
    expect(dup.stderr).toMatch(
      /a custom audience named "newsletter READERS" already exists \(.+\); names must be unique \(HTTP 400, code INVALID_PARAMETER, parameter name\)/,
    );
    const renameDup = await t.fails(1, ['audiences', 'update', a.id, '--name', 'News junkies']);
    expect(renameDup.stderr).toMatch(/already exists/);

    const upd = await t.json(['audiences', 'update', a.id, '--name', 'Readers', '--description', 'weekly']);
    expect(upd).toMatchObject({ name: 'Readers', description: 'weekly', audience_size: 2 });
    expect((await t.json(['audiences', 'delete', a.id, '--yes'])).deleted).toBe(true);
    expect((await t.fails(1, ['audiences', 'get', a.id])).stderr).toMatch(/HTTP 404, code NOT_FOUND/);
    expect((await t.json(['audiences', 'get', a.id, '--with-deleted'])).deleted).toBe(true);
    expect((await t.json(['audiences', 'list', '--q', 'Readers'])).length).toBe(0);
    expect((await t.json(['audiences', 'list', '--q', 'Readers', '--with-deleted'])).length).toBe(1);
    // A deleted audience's name is free again.
    expect((await t.json(['audiences', 'create', '--name', 'Readers'])).name).toBe('Readers');
  });

  it('lists page with --count / --all / --limit like every ads list', async () => {
    for (let i = 0; i < 5; i++) await t.signed('POST', `/12/accounts/${acct}/custom_audiences?name=Paged%20${i}`);
    expect((await t.json(['audiences', 'list', '--q', 'Paged', '--count', '2'])).length).toBe(2);
    expect((await t.list(['audiences', 'list', '--q', 'Paged', '--count', '2', '--all'])).map((x) => x.name)).toEqual([
      'Paged 0',
      'Paged 1',
      'Paged 2',
      'Paged 3',
      'Paged 4',
    ]);
    expect((await t.json(['audiences', 'list', '--q', 'Paged', '--count', '2', '--limit', '3'])).length).toBe(3);
    const total = await t.run(['audiences', 'list', '--q', 'Paged', '--with-total-count', '--json']);
    expect(total.stderr).toMatch(/total_count: 5/);
  });

  it('refuses bad input before sending (exit 2)', async () => {
    expect((await t.refused(['audiences', 'create'])).stderr).toMatch(/--name is required/);
    expect((await t.refused(['audiences', 'create', '--name', ''])).stderr).toMatch(/--name must not be empty/);
    expect((await t.refused(['audiences', 'list', '--permission-scope', 'ALL'])).stderr).toMatch(
      /--permission-scope must be one of OWNER, SHARED/,
    );
    expect((await t.refused(['audiences', 'list', '--q', 'x'.repeat(256)])).stderr).toMatch(
      /--q must be at most 255 characters/,
    );
    expect((await t.refused(['audiences', 'list', '--with-total-count', '--cursor', 'c-1'])).stderr).toMatch(
      /--with-total-count cannot be used together with --cursor/,
    );
  });
});

describe('flexible audiences', () => {
  let a1: string;
  let a2: string;
  beforeAll(async () => {
    a1 = (await t.json(['audiences', 'create', '--name', 'Flex buyers'])).id;
    a2 = (await t.json(['audiences', 'create', '--name', 'Flex churned'])).id;
  });
  const spec = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    segments: {
      boolean_operator: 'AND',
      child_segments: [{ custom_audience_id: a1, negate: false, lookback_window: 30 }, { custom_audience_id: a2 }],
    },
    ...extra,
  });

  it('creates from a spec file with the spec defaults, warns about negate, and is immutable afterwards', async () => {
    const r = await t.run([
      'audiences',
      'flexible',
      'create',
      '--file',
      file('flex.json', spec('Buyers not churned')),
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /segments\.child_segments\[1\] has no "negate": the spec's default is true, which EXCLUDES that audience/,
    );
    const [f] = JSON.parse(r.stdout);
    expect(f).toMatchObject({ name: 'Buyers not churned', audience_type: 'FLEXIBLE', deleted: false });
    expect(f.segments.child_segments).toEqual([
      { custom_audience_id: a1, negate: false, lookback_window: 30, frequency: 1, frequency_comparator: 'NUM_GTE' },
      { custom_audience_id: a2, frequency: 1, frequency_comparator: 'NUM_GTE', negate: true },
    ]);
    expect(await t.json(['audiences', 'get', f.id])).toMatchObject({ audience_type: 'FLEXIBLE', is_owner: true });

    // Immutable: the CLI refuses (exit 2) after one read and sends no change...
    const before = t.requests.length;
    const upd = await t.fails(2, ['audiences', 'update', f.id, '--name', 'Renamed']);
    expect(upd.stderr).toMatch(/is a flexible audience; flexible audiences are immutable once created/);
    expect(t.requests.slice(before).every((l) => l.startsWith('GET '))).toBe(true);
    const batchUpd = await t.fails(2, [
      'audiences',
      'flexible',
      'create',
      '--file',
      file('upd.json', [{ operation_type: 'Update', params: { custom_audience_id: f.id, name: 'Renamed' } }]),
    ]);
    expect(batchUpd.stderr).toMatch(/item 1 \(Update\): custom audience .* is a flexible audience/);
    const batchUpd2 = await t.fails(2, [
      'audiences',
      'flexible',
      'create',
      '--file',
      file('upd2.json', [
        { operation_type: 'Update', params: { custom_audience_id: f.id, audience_type: 'FLEXIBLE' } },
      ]),
    ]);
    expect(batchUpd2.stderr).toMatch(/immutable/);
    // ...and so does the sandbox, on PUT and on a batch Update.
    const put = await t.signed('PUT', `/12/accounts/${acct}/custom_audiences/${f.id}?name=Renamed`);
    expect(put.status).toBe(400);
    expect(put.body.errors![0].message).toMatch(/flexible audiences are immutable once created/);
    const raw = await t.signed('POST', `/12/batch/accounts/${acct}/custom_audiences`, [
      { operation_type: 'Update', params: { custom_audience_id: f.id, name: 'Renamed' } },
    ]);
    expect(raw.status).toBe(400);
    expect(raw.body.operation_errors![0]![0].message).toMatch(/immutable/);
    expect((await t.json(['audiences', 'get', f.id])).name).toBe('Buyers not churned');
    // Deleting is not a change of its definition: allowed.
    expect((await t.json(['audiences', 'delete', f.id, '--yes'])).deleted).toBe(true);
  });

  it('the batch is all or nothing: an item-level failure names its position and nothing is applied', async () => {
    const r = await t.fails(1, [
      'audiences',
      'flexible',
      'create',
      '--file',
      file('two.json', [
        spec('Flex ok'),
        spec('Flex bad', {
          segments: { boolean_operator: 'OR', child_segments: [{ custom_audience_id: 'nosuch1', negate: false }] },
        }),
      ]),
    ]);
    expect(r.stderr).toMatch(
      /the batch was refused as a whole \(nothing was applied\):\n\s+item 2: INVALID_PARAMETER segments: custom audience nosuch1 does not exist/,
    );
    expect(await t.json(['audiences', 'list', '--q', 'Flex ok'])).toEqual([]);
    // A duplicate name, within the batch or with an existing audience, is an item error too.
    const dup = await t.fails(1, [
      'audiences',
      'flexible',
      'create',
      '--file',
      file('dup.json', [spec('Flex twice'), spec('flex TWICE')]),
    ]);
    expect(dup.stderr).toMatch(/item 2: INVALID_PARAMETER a custom audience named "flex TWICE" already exists/);
    const dup2 = await t.fails(1, [
      'audiences',
      'flexible',
      'create',
      '--file',
      file('dup2.json', spec('Flex buyers')),
    ]);
    expect(dup2.stderr).toMatch(/item 1: INVALID_PARAMETER a custom audience named "Flex buyers" already exists/);
  });

  it('batch errors caught before sending: 11 items, 11 leaves, lookback_window, boolean_operator, audience_type', async () => {
    const many = Array.from({ length: 11 }, (_, i) => spec(`Flex ${i}`));
    expect((await t.refused(['audiences', 'flexible', 'create', '--file', file('many.json', many)])).stderr).toMatch(
      /the batch must hold at most 10 items \(got 11\)/,
    );
    const leaves = {
      boolean_operator: 'OR',
      child_segments: Array.from({ length: 11 }, () => ({ custom_audience_id: a1, negate: false })),
    };
    expect(
      (
        await t.refused([
          'audiences',
          'flexible',
          'create',
          '--file',
          file('leaves.json', spec('Big', { segments: leaves })),
        ])
      ).stderr,
    ).toMatch(/item 1 \(Create\): segments must hold at most 10 custom audiences \(leaf segments\), got 11/);
    const lb = spec('Lb', {
      segments: { boolean_operator: 'AND', child_segments: [{ custom_audience_id: a1, lookback_window: 3 }] },
    });
    expect((await t.refused(['audiences', 'flexible', 'create', '--file', file('lb.json', lb)])).stderr).toMatch(
      /segments at child_segments\[0\]\.lookback_window: must be one of 1, 7, 14, 30/,
    );
    const noOp = spec('NoOp', { segments: { child_segments: [{ custom_audience_id: a1 }] } });
    expect((await t.refused(['audiences', 'flexible', 'create', '--file', file('noop.json', noOp)])).stderr).toMatch(
      /segments at boolean_operator: is required when child_segments is non-empty/,
    );
    expect(
      (
        await t.refused([
          'audiences',
          'flexible',
          'create',
          '--file',
          file('type.json', spec('T', { audience_type: 'WEB' })),
        ])
      ).stderr,
    ).toMatch(/audience_type must be one of FLEXIBLE, MOBILE_AUDIENCE/);
    expect((await t.refused(['audiences', 'flexible', 'create', '--file', file('bad.json', '{nope')])).stderr).toMatch(
      /--file: the flexible audience spec is not valid JSON/,
    );
    // The sandbox applies the same limits: request-level `errors`, item-level `operation_errors`.
    const raw = await t.signed(
      'POST',
      `/12/batch/accounts/${acct}/custom_audiences`,
      many.map((p) => ({ operation_type: 'Create', params: { audience_type: 'FLEXIBLE', ...p } })),
    );
    expect(raw.status).toBe(400);
    expect(raw.body.errors![0].message).toMatch(/at most 10 items/);
    const rawItem = await t.signed('POST', `/12/batch/accounts/${acct}/custom_audiences`, [
      { operation_type: 'Create', params: { audience_type: 'FLEXIBLE', ...lb } },
    ]);
    expect(rawItem.body.operation_errors![0]![0]).toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'segments' });
  });

  it('MOBILE_AUDIENCE combinations may be updated and deleted through the batch', async () => {
    const [m] = await t.list([
      'audiences',
      'flexible',
      'create',
      '--file',
      file('mob.json', spec('Mobile mix', { audience_type: 'MOBILE_AUDIENCE' })),
    ]);
    expect(m.audience_type).toBe('MOBILE_AUDIENCE');
    const [u] = await t.list([
      'audiences',
      'flexible',
      'create',
      '--file',
      file('mobu.json', [{ operation_type: 'Update', params: { custom_audience_id: m.id, name: 'Mobile mix 2' } }]),
    ]);
    expect(u.name).toBe('Mobile mix 2');
    const [d] = await t.list([
      'audiences',
      'flexible',
      'create',
      '--file',
      file('mobd.json', [{ operation_type: 'Delete', params: { custom_audience_id: m.id } }]),
    ]);
    expect(d.deleted).toBe(true);
  });
});

describe('targeted', () => {
  it('lists the campaigns and line items that target an audience; --with-active false adds non-servable ones', async () => {
    const seeded = (await t.list(['audiences', 'list', '--q', 'Seeded customers']))[0]!;
    const rows = await t.list<{ campaign_id: string; line_items: unknown[] }>(['audiences', 'targeted', seeded.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      campaign_name: 'Seeded campaign',
      line_items: [{ name: 'Preroll views', servable: true }],
    });
    // Pausing the campaign makes its line items not servable.
    await t.json(['ads', 'campaigns', 'update', rows[0]!.campaign_id, '--entity-status', 'PAUSED']);
    expect(await t.json(['audiences', 'targeted', seeded.id])).toEqual([]);
    const all = await t.list<{ line_items: unknown[] }>(['audiences', 'targeted', seeded.id, '--no-with-active']);
    expect(all[0]!.line_items).toEqual([expect.objectContaining({ name: 'Preroll views', servable: false })]);
    await t.json(['ads', 'campaigns', 'update', rows[0]!.campaign_id, '--entity-status', 'ACTIVE']);
    const other = await t.json(['audiences', 'create', '--name', 'Untargeted']);
    expect(await t.json(['audiences', 'targeted', other.id])).toEqual([]);
    expect((await t.fails(1, ['audiences', 'targeted', 'nosuch1'])).stderr).toMatch(/HTTP 404/);
  });
});

describe('do-not-reach lists', () => {
  it('at most one per account; create, list, delete, create again', async () => {
    const l = await t.json(['audiences', 'do-not-reach', 'create', '--description', 'opted out']);
    expect(l).toMatchObject({ description: 'opted out', audience_size: 0, account_id: acct, deleted: false });
    const second = await t.fails(1, ['audiences', 'do-not-reach', 'create', '--description', 'again']);
    expect(second.stderr).toMatch(new RegExp(`already has do-not-reach list ${l.id}; an account has at most one`));
    expect((await t.list(['audiences', 'do-not-reach', 'list'])).map((x) => x.id)).toEqual([l.id]);
    // The upload endpoint fills it; list shows the distinct count.
    await t.signed('POST', `/12/batch/accounts/${acct}/do_not_reach_lists/${l.id}/users`, [
      { operation_type: 'Update', params: { users: [{ email: [hash(7)] }, { phone_number: [hash(8)] }] } },
    ]);
    expect((await t.list(['audiences', 'do-not-reach', 'list']))[0].audience_size).toBe(2);
    expect((await t.json(['audiences', 'do-not-reach', 'delete', l.id, '--yes'])).deleted).toBe(true);
    expect(await t.json(['audiences', 'do-not-reach', 'list'])).toEqual([]);
    const again = await t.json(['audiences', 'do-not-reach', 'create']);
    expect(again.description).toBeNull();
    expect((await t.list(['audiences', 'do-not-reach', 'list', '--with-deleted'])).map((x) => x.id).sort()).toEqual(
      [l.id, again.id].sort(),
    );
    // Another account has its own.
    const sister = [...t.collection('accounts').values()].find((a) => a.name === 'Sandbox Sister Account')!.id;
    expect((await t.json(['audiences', 'do-not-reach', 'create', '--account', sister])).account_id).toBe(sister);
  });
});

/** What `xctl audiences estimate` prints (ads-api.md 4.4). */
interface Estimate {
  audience_size: { min: number; max: number };
}

describe('estimate', () => {
  const keyword = { targeting_type: 'BROAD_KEYWORD', targeting_value: 'nba' };
  const location = { targeting_type: 'LOCATION', targeting_value: '96683cc9126741d1' };
  it('estimates a targeting; NE negates it; the same input gives the same estimate', async () => {
    const f = file('t.json', [keyword, location]);
    const eq = await t.json<Estimate>(['audiences', 'estimate', '--targeting', f]);
    expect(eq.audience_size.min).toBeGreaterThan(0);
    expect(eq.audience_size.max).toBeGreaterThan(eq.audience_size.min);
    expect(await t.json(['audiences', 'estimate', '--targeting', f])).toEqual(eq);
    const ne = await t.json<Estimate>(['audiences', 'estimate', '--targeting', f, '--operator', 'NE']);
    expect(ne.audience_size.min).toBeGreaterThan(eq.audience_size.max);
    // {"targeting_criteria": [...]} from stdin works too.
    const r = await t.run(['audiences', 'estimate', '--targeting', '-', '-o', 'tsv'], {
      input: JSON.stringify({ targeting_criteria: [keyword, location] }),
    });
    expect(r.stdout).toBe(`${eq.audience_size.min}\t${eq.audience_size.max}\n`);
  });

  it('a custom audience criterion counts its users', async () => {
    const a = await t.json(['audiences', 'create', '--name', 'Estimated']);
    await t.signed('POST', `/12/accounts/${acct}/custom_audiences/${a.id}/users`, [
      {
        operation_type: 'Update',
        params: { users: Array.from({ length: 100 }, (_, i) => ({ email: [hash(1000 + i)] })) },
      },
    ]);
    const est = await t.json([
      'audiences',
      'estimate',
      '--targeting',
      file('ca.json', [{ targeting_type: 'CUSTOM_AUDIENCE', targeting_value: a.id }]),
    ]);
    expect(est.audience_size).toEqual({ min: 90, max: 110 });
    expect(
      (
        await t.fails(1, [
          'audiences',
          'estimate',
          '--targeting',
          file('ca2.json', [{ targeting_type: 'CUSTOM_AUDIENCE', targeting_value: 'nosuch1' }]),
        ])
      ).stderr,
    ).toMatch(/custom audience nosuch1 cannot be targeted by account/);
  });

  it('needs at least one primary criterion, a known type and EQ/NE (exit 2, nothing sent); the sandbox agrees', async () => {
    expect((await t.refused(['audiences', 'estimate', '--targeting', file('loc.json', [location])])).stderr).toMatch(
      /--targeting: targeting_criteria needs at least one primary criterion/,
    );
    expect((await t.refused(['audiences', 'estimate', '--targeting', file('empty.json', [])])).stderr).toMatch(
      /non-empty array/,
    );
    expect(
      (await t.refused(['audiences', 'estimate', '--targeting', file('k.json', [keyword]), '--operator', 'GT'])).stderr,
    ).toMatch(/--operator must be one of EQ, NE/);
    expect((await t.refused(['audiences', 'estimate', '--targeting', file('obj.json', {})])).stderr).toMatch(
      /targeting_criteria is required/,
    );
    expect((await t.refused(['audiences', 'estimate'])).stderr).toMatch(/--targeting/);
    const raw = await t.signed('POST', `/12/accounts/${acct}/audience_estimate`, { targeting_criteria: [location] });
    expect(raw.status).toBe(400);
    expect(raw.body.errors![0]).toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'targeting_criteria' });
  });
});
