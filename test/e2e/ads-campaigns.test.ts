// Campaigns, funding instruments and line items through the real CLI against the sandbox:
// every verb, pagination across pages, batches (success, a failing item, too many items), the
// active-campaign limit, and refused input that sends nothing.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdsSandbox, type AdsReply, type AdsSandbox, type Row } from '../helpers/ads.js';
import { tempDir } from '../helpers/cli.js';

let t: AdsSandbox;
let fi: string;
let dir: string;
beforeAll(async () => {
  t = await startAdsSandbox();
  dir = tempDir('xctl-ads-');
  fi = [...t.collection('funding_instruments').values()][0]!.id;
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const budget = ['--daily-budget-amount-local-micro', '5000000'];

describe('campaigns', () => {
  it('--daily-budget and --total-budget in the currency, converted exactly; too many decimals refused (issue 29)', async () => {
    const c = await t.json([
      'ads',
      'campaigns',
      'create',
      '--name',
      'Money',
      '--funding-instrument-id',
      fi,
      '--daily-budget',
      '30.50',
      '--total-budget',
      '1000',
    ]);
    expect(c).toMatchObject({
      daily_budget_amount_local_micro: 30_500_000,
      total_budget_amount_local_micro: 1_000_000_000,
      currency: 'USD',
    });
    const r = await t.fails(2, ['ads', 'campaigns', 'update', c.id, '--daily-budget', '30.505']);
    expect(r.stderr).toContain('--daily-budget 30.505: USD has 2 decimals');
  });

  it('create, get, list, update, delete; a second delete is 404', async () => {
    const c = await t.json([
      'ads',
      'campaigns',
      'create',
      '--name',
      'Spring sale',
      '--funding-instrument-id',
      fi,
      ...budget,
      '--purchase-order-number',
      'PO-1',
    ]);
    expect(c).toMatchObject({
      name: 'Spring sale',
      entity_status: 'ACTIVE',
      budget_optimization: 'CAMPAIGN',
      standard_delivery: true,
      funding_instrument_id: fi,
      deleted: false,
      currency: 'USD',
    });
    expect(c.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(await t.json(['ads', 'campaigns', 'get', c.id])).toMatchObject({ id: c.id, name: 'Spring sale' });
    const upd = await t.json([
      'ads',
      'campaigns',
      'update',
      c.id,
      '--entity-status',
      'PAUSED',
      '--name',
      'Spring sale 2',
    ]);
    expect(upd).toMatchObject({ entity_status: 'PAUSED', name: 'Spring sale 2', servable: false });
    // The stored daily budget (5,000,000) is above a new total: the sandbox checks the result.
    const over = await t.fails(1, ['ads', 'campaigns', 'update', c.id, '--total-budget-amount-local-micro', '4000000']);
    expect(over.stderr).toMatch(/daily_budget_amount_local_micro must be at most total_budget_amount_local_micro/);
    expect((await t.json(['ads', 'campaigns', 'get', c.id])).total_budget_amount_local_micro).toBeNull(); // sent, null when unset
    const del = await t.json(['ads', 'campaigns', 'delete', c.id, '--yes']);
    expect(del.deleted).toBe(true);
    // Irreversible: later deletes and gets are 404; with_deleted still shows it.
    const again = await t.fails(1, ['ads', 'campaigns', 'delete', c.id, '--yes']);
    expect(again.stderr).toMatch(/HTTP 404, code NOT_FOUND/);
    await t.fails(1, ['ads', 'campaigns', 'get', c.id]);
    expect((await t.json(['ads', 'campaigns', 'get', c.id, '--with-deleted'])).deleted).toBe(true);
    const ids = (await t.list(['ads', 'campaigns', 'list', '--with-deleted', '--campaign-ids', c.id])).map((x) => x.id);
    expect(ids).toEqual([c.id]);
    expect(await t.json(['ads', 'campaigns', 'list', '--campaign-ids', c.id])).toEqual([]);
  });

  it('a credit-card funding instrument needs a daily budget; an unknown one is 404', async () => {
    const r = await t.fails(1, ['ads', 'campaigns', 'create', '--name', 'x', '--funding-instrument-id', fi]);
    expect(r.stderr).toMatch(/MISSING_PARAMETER, parameter daily_budget_amount_local_micro/);
    const r2 = await t.fails(1, [
      'ads',
      'campaigns',
      'create',
      '--name',
      'x',
      '--funding-instrument-id',
      'nope1',
      ...budget,
    ]);
    expect(r2.stderr).toMatch(/HTTP 404, code NOT_FOUND, parameter funding_instrument_id/);
  });

  it('DRAFT campaigns are listed only with --with-draft; q is a name prefix', async () => {
    const d = await t.json([
      'ads',
      'campaigns',
      'create',
      '--name',
      'Draft idea',
      '--funding-instrument-id',
      fi,
      ...budget,
      '--entity-status',
      'DRAFT',
    ]);
    expect((await t.list(['ads', 'campaigns', 'list', '--q', 'draft'])).map((x) => x.id)).toEqual([]);
    expect((await t.list(['ads', 'campaigns', 'list', '--q', 'draft', '--with-draft'])).map((x) => x.id)).toEqual([
      d.id,
    ]);
  });

  it('pages with cursors: one page by default, --all follows, --limit stops, --with-total-count reports', async () => {
    for (let i = 0; i < 4; i++)
      t.sb.app.state.collection('campaigns').set(`page${i}`, {
        id: `page${i}`,
        account_id: t.sb.seed.account_id,
        name: `Paged ${i}`,
        entity_status: 'PAUSED',
        deleted: false,
        funding_instrument_id: fi,
        created_at: '2026-01-01T00:00:00Z',
      });
    const one = await t.list(['ads', 'campaigns', 'list', '--q', 'Paged', '--count', '3']);
    expect(one.map((x) => x.name)).toEqual(['Paged 0', 'Paged 1', 'Paged 2']);
    const before = t.requests.length;
    const all = await t.list(['ads', 'campaigns', 'list', '--q', 'Paged', '--count', '3', '--all']);
    expect(all.map((x) => x.name)).toEqual(['Paged 0', 'Paged 1', 'Paged 2', 'Paged 3']);
    expect(t.requests.slice(before).filter((l) => l.includes('/campaigns'))).toHaveLength(2);
    const lim = await t.list(['ads', 'campaigns', 'list', '--q', 'Paged', '--count', '1', '--limit', '2']);
    expect(lim.map((x) => x.name)).toEqual(['Paged 0', 'Paged 1']);
    const sorted = await t.list([
      'ads',
      'campaigns',
      'list',
      '--q',
      'Paged',
      '--sort-by',
      'name-desc',
      '--limit',
      '4',
      '--count',
      '2',
      '--with-total-count',
    ]);
    expect(sorted.map((x) => x.name)).toEqual(['Paged 3', 'Paged 2', 'Paged 1', 'Paged 0']);
    const r = await t.run([
      'ads',
      'campaigns',
      'list',
      '--q',
      'Paged',
      '--with-total-count',
      '-o',
      'tsv',
      '--fields',
      'name',
    ]);
    expect(r.stderr).toMatch(/total_count: 4/);
    expect(r.stdout.trim().split('\n')).toHaveLength(4);
  });

  it('invalid input exits 2 naming the flag and the rule, and sends nothing', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['ads', 'campaigns', 'create', '--funding-instrument-id', fi], /--name is required/],
      [
        ['ads', 'campaigns', 'create', '--name', 'x'.repeat(256), '--funding-instrument-id', fi],
        /--name must be at most 255 characters/,
      ],
      [
        [
          'ads',
          'campaigns',
          'create',
          '--name',
          'x',
          '--funding-instrument-id',
          fi,
          '--purchase-order-number',
          'p'.repeat(51),
        ],
        /--purchase-order-number must be at most 50/,
      ],
      [
        [
          'ads',
          'campaigns',
          'create',
          '--name',
          'x',
          '--funding-instrument-id',
          fi,
          '--daily-budget-amount-local-micro',
          '9',
          '--total-budget-amount-local-micro',
          '8',
        ],
        /--daily-budget-amount-local-micro must be at most --total-budget-amount-local-micro/,
      ],
      [
        ['ads', 'campaigns', 'update', 'abc', '--entity-status', 'DRAFT'],
        /--entity-status must be one of ACTIVE, PAUSED/,
      ],
      [['ads', 'campaigns', 'list', '--count', '1001'], /--count must be between 1 and 1000 \(got "1001"\)/],
      [
        ['ads', 'campaigns', 'list', '--with-total-count', '--cursor', 'c-1'],
        /--with-total-count cannot be used together with --cursor/,
      ],
      [
        ['ads', 'campaigns', 'list', '--campaign-ids', Array.from({ length: 201 }, (_, i) => `c${i}`).join(',')],
        /--campaign-ids must list at most 200 entries/,
      ],
      [['ads', 'campaigns', 'get', 'bad id'], /<campaign-id> must be an id/],
    ];
    const errs = await t.refusedAll(cases.map(([args]) => args));
    cases.forEach(([, msg], i) => expect(errs[i]).toMatch(msg));
  });

  it(`the 200 active campaigns of an account are a limit; paused ones are not`, async () => {
    const coll = t.sb.app.state.collection('campaigns');
    const active = [...coll.values()].filter(
      (c) => c.account_id === t.sb.seed.account_id && c.entity_status === 'ACTIVE' && !c.deleted,
    ).length;
    for (let i = active; i < 199; i++)
      coll.set(`act${i}`, {
        id: `act${i}`,
        account_id: t.sb.seed.account_id,
        name: `Active ${i}`,
        entity_status: 'ACTIVE',
        deleted: false,
      });
    const last = await t.json([
      'ads',
      'campaigns',
      'create',
      '--name',
      'Number 200',
      '--funding-instrument-id',
      fi,
      ...budget,
    ]);
    const r = await t.fails(1, [
      'ads',
      'campaigns',
      'create',
      '--name',
      'Number 201',
      '--funding-instrument-id',
      fi,
      ...budget,
    ]);
    expect(r.stderr).toMatch(/already has 200 active campaigns/);
    const paused = await t.json([
      'ads',
      'campaigns',
      'create',
      '--name',
      'Paused 201',
      '--funding-instrument-id',
      fi,
      ...budget,
      '--entity-status',
      'PAUSED',
    ]);
    await t.fails(1, ['ads', 'campaigns', 'update', paused.id, '--entity-status', 'ACTIVE']);
    await t.json(['ads', 'campaigns', 'update', last.id, '--entity-status', 'PAUSED']);
    expect((await t.json(['ads', 'campaigns', 'update', paused.id, '--entity-status', 'ACTIVE'])).entity_status).toBe(
      'ACTIVE',
    );
    for (const k of [...coll.keys()]) if (k.startsWith('act')) coll.delete(k);
  });
});

describe('the sandbox envelope and errors', () => {
  it('lists carry request.params, data_type, next_cursor and total_count; errors carry code and parameter', async () => {
    const base = `/12/accounts/${t.sb.seed.account_id}/campaigns`;
    for (const id of ['env1', 'env2'])
      t.sb.app.state
        .collection('campaigns')
        .set(id, { id, account_id: t.sb.seed.account_id, name: id, entity_status: 'PAUSED', deleted: false });
    const page = await t.signed<AdsReply<Row[]>>('GET', `${base}?count=1&with_total_count=true`);
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({
      data_type: 'campaign',
      request: { params: { account_id: t.sb.seed.account_id, count: 1, with_total_count: true } },
    });
    expect(page.body.data).toHaveLength(1);
    expect(page.body.next_cursor).toMatch(/^c-/);
    expect(page.body.total_count).toBeGreaterThan(1);
    const next = await t.signed<AdsReply<Row[]>>('GET', `${base}?count=1&cursor=${page.body.next_cursor}`);
    expect(next.body.data[0]!.id).not.toBe(page.body.data[0]!.id);
    expect(next.body.total_count).toBeUndefined();
    const one = await t.signed('GET', `${base}/${page.body.data[0]!.id}`);
    expect(one.body).toMatchObject({ data: { id: page.body.data[0]!.id }, data_type: 'campaign' });
    expect((await t.signed('GET', `${base}?cursor=garbage`)).body.errors![0]).toMatchObject({
      code: 'INVALID_PARAMETER',
      parameter: 'cursor',
    });
    expect((await t.signed('GET', `${base}?sort_by=colour-asc`)).body.errors![0]).toMatchObject({
      code: 'INVALID_PARAMETER',
      parameter: 'sort_by',
    });
    const both = await t.signed('GET', `${base}?with_total_count=true&cursor=c-1`);
    expect(both.status).toBe(400);
    expect(both.body.errors![0]).toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'with_total_count' });
    const missing = await t.signed('POST', base);
    expect(missing.status).toBe(400);
    expect(missing.body.errors!.map((e) => [e.code, e.parameter])).toEqual([
      ['MISSING_PARAMETER', 'funding_instrument_id'],
      ['MISSING_PARAMETER', 'name'],
    ]);
    const unknown = await t.signed('GET', `/12/accounts/${t.sb.seed.account_id}/campaigns/nope1`);
    expect(unknown).toMatchObject({ status: 404, body: { errors: [{ code: 'NOT_FOUND', parameter: 'campaign_id' }] } });
    const anon = await fetch(`${t.sb.seed.base_url}${base}`);
    expect(anon.status).toBe(401);
    expect(((await anon.json()) as AdsReply).errors![0]!.code).toBe('UNAUTHORIZED_ACCESS');
  });
});

describe('campaigns batch', () => {
  it('applies every item, in order, from a file or stdin', async () => {
    const target = await t.json([
      'ads',
      'campaigns',
      'create',
      '--name',
      'To update',
      '--funding-instrument-id',
      fi,
      ...budget,
    ]);
    const doomed = await t.json([
      'ads',
      'campaigns',
      'create',
      '--name',
      'To delete',
      '--funding-instrument-id',
      fi,
      ...budget,
    ]);
    const ops = [
      {
        operation_type: 'Create',
        params: {
          name: 'Batch new',
          funding_instrument_id: fi,
          daily_budget_amount_local_micro: 1000000,
          entity_status: 'PAUSED',
        },
      },
      { operation_type: 'Update', params: { campaign_id: target.id, name: 'Updated by batch' } },
      { operation_type: 'Delete', params: { campaign_id: doomed.id } },
    ];
    const file = path.join(dir, 'ops.json');
    fs.writeFileSync(file, JSON.stringify(ops));
    const out = await t.list(['ads', 'campaigns', 'batch', '--file', file]);
    expect(out.map((x) => [x.name, x.deleted])).toEqual([
      ['Batch new', false],
      ['Updated by batch', false],
      ['To delete', true],
    ]);
    expect((await t.json(['ads', 'campaigns', 'get', target.id])).name).toBe('Updated by batch');
    const viaStdin = await t.list(
      ['ads', 'campaigns', 'batch', '--file', '-'],
      JSON.stringify([{ operation_type: 'Update', params: { campaign_id: target.id, entity_status: 'PAUSED' } }]),
    );
    expect(viaStdin[0].entity_status).toBe('PAUSED');
  });

  it('a failing item fails the whole batch: nothing is applied, errors by position', async () => {
    const keep = await t.json([
      'ads',
      'campaigns',
      'create',
      '--name',
      'Keep me',
      '--funding-instrument-id',
      fi,
      ...budget,
    ]);
    const count = t.sb.app.state.collection('campaigns').size;
    const ops = [
      { operation_type: 'Update', params: { campaign_id: keep.id, name: 'Should not stick' } },
      {
        operation_type: 'Create',
        params: { name: 'Never created', funding_instrument_id: fi, daily_budget_amount_local_micro: 1 },
      },
      { operation_type: 'Delete', params: { campaign_id: 'missing1' } },
    ];
    const r = await t.fails(1, ['ads', 'campaigns', 'batch', '--file', '-'], JSON.stringify(ops));
    expect(r.stderr).toMatch(/refused as a whole/);
    expect(r.stderr).toMatch(/item 3: NOT_FOUND campaign_id missing1 was not found/);
    expect(t.sb.app.state.collection('campaigns').size).toBe(count);
    expect((await t.json(['ads', 'campaigns', 'get', keep.id])).name).toBe('Keep me');
  });

  it('the sandbox answers operation_errors by position and request-level errors', async () => {
    const p = `/12/batch/accounts/${t.sb.seed.account_id}/campaigns`;
    const items = await t.signed('POST', p, [
      { operation_type: 'Delete', params: { campaign_id: [...t.collection('campaigns').keys()][0] } },
      { operation_type: 'Create', params: { funding_instrument_id: fi } },
      { operation_type: 'Update', params: { campaign_id: 'x1', name: 'n' } },
    ]);
    expect(items.status).toBe(400);
    expect(items.body.operation_errors).toEqual([
      [],
      [{ code: 'MISSING_PARAMETER', message: 'name is required', parameter: 'name' }],
      [],
    ]);
    // Item 2 is well-formed but names no campaign: found when applying, reported at its position.
    const applied = await t.signed('POST', p, [{ operation_type: 'Update', params: { campaign_id: 'x1', name: 'n' } }]);
    expect(applied.body.operation_errors![0]![0]).toMatchObject({ code: 'NOT_FOUND', parameter: 'campaign_id' });
    const big = await t.signed('POST', p, Array(41).fill({ operation_type: 'Delete', params: { campaign_id: 'x1' } }));
    expect(big.status).toBe(400);
    expect(big.body.errors![0]).toMatchObject({
      code: 'INVALID_PARAMETER',
      message: 'body must hold at most 40 items (got 41)',
    });
    expect(big.body.operation_errors).toBeUndefined();
  });

  it('refuses an invalid batch before sending: items by position, 41 items, bad JSON', async () => {
    const r = await t.refused(
      ['ads', 'campaigns', 'batch', '--file', '-'],
      JSON.stringify([
        { operation_type: 'Create', params: { name: 'ok', funding_instrument_id: fi } },
        { operation_type: 'Update', params: { name: 'n' } },
      ]),
    );
    expect(r.stderr).toMatch(/item 2 \(Update\): campaign_id is required/);
    const big = await t.refused(
      ['ads', 'campaigns', 'batch', '--file', '-'],
      JSON.stringify(Array(41).fill({ operation_type: 'Delete', params: { campaign_id: 'x' } })),
    );
    expect(big.stderr).toMatch(/at most 40 items \(got 41\)/);
    expect((await t.refused(['ads', 'campaigns', 'batch', '--file', '-'], '[{')).stderr).toMatch(/not valid JSON/);
    expect((await t.refused(['ads', 'campaigns', 'batch'])).stderr).toMatch(/--file is required/);
  });
});

describe('funding instruments and line items', () => {
  it('list, get, and the sandbox-only create', async () => {
    const list = await t.list(['ads', 'funding-instruments', 'list']);
    expect(list.map((x) => x.id)).toContain(fi);
    expect((await t.json(['ads', 'funding-instruments', 'get', fi])).currency).toBe('USD');
    const created = await t.json([
      'ads',
      'funding-instruments',
      'create',
      '--currency',
      'EUR',
      '--start-time',
      '2026-12-01T00:00:00Z',
    ]);
    expect(created).toMatchObject({
      currency: 'EUR',
      type: 'CREDIT_CARD',
      entity_status: 'ACTIVE',
      start_time: '2026-12-01T00:00:00Z',
    });
    expect(
      (await t.list(['ads', 'funding-instruments', 'list', '--funding-instrument-ids', created.id])).map((x) => x.id),
    ).toEqual([created.id]);
  });

  it('a SANDBOX-only endpoint is refused toward the production host, before sending', async () => {
    const r = await t.run(
      ['ads', 'funding-instruments', 'create', '--currency', 'EUR', '--start-time', '2026-12-01T00:00:00Z'],
      { env: { XCTL_BASE_URL: undefined } },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/exists only on the ads sandbox/);
  });

  it('seeded line items are listed, filtered by campaign, and fetched', async () => {
    const lis = await t.list<Row & { campaign_id: string }>(['ads', 'line-items', 'list']);
    expect(lis.map((x) => x.objective).sort()).toEqual(['FOLLOWERS', 'PREROLL_VIEWS', 'WEBSITE_CLICKS']);
    const camp = lis[0]!.campaign_id;
    expect(await t.json(['ads', 'line-items', 'list', '--campaign-ids', camp])).toHaveLength(3);
    expect(await t.json(['ads', 'line-items', 'list', '--campaign-ids', 'other'])).toHaveLength(0);
    expect((await t.json(['ads', 'line-items', 'get', t.lineItem('FOLLOWERS')])).product_type).toBe('PROMOTED_ACCOUNT');
  });
});
