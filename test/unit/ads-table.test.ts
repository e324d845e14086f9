// The ads resource table: every limit of spec section 8 (and the section 4 ranges) that these
// resources carry passes just inside and fails just outside, through the same validation the
// CLI and the sandbox run.
import { describe, expect, it } from 'vitest';
import { RESOURCES, resourceByName } from '../../src/ads/resources.js';
import { validateParams } from '../../src/ads/params.js';
import { checkBatch } from '../../src/ads/batch.js';
import type { AdsCollection, OperationDef, ParamDef } from '../../src/ads/resource-types.js';
import { DEFAULT_LIMITS } from '../../src/sandbox/ratelimit.js';
import { Option } from 'commander';
import { attributeOf } from '../../src/commands/ads/run.js';
import { CAMPAIGN_BATCH_MAX, DEFAULT_MAX_ACTIVE_CAMPAIGNS } from '../../src/ads/resources/campaigns.js';

function op(resource: AdsCollection, verb: string): OperationDef {
  const o = resourceByName(resource)?.operations.find((x) => x.verb === verb);
  if (!o) throw new Error(`no ${resource} ${verb}`);
  return o;
}

/** Violations for one op given raw values (required params filled with valid samples). */
function check(o: OperationDef, raw: Record<string, unknown>, base: Record<string, unknown> = {}) {
  return validateParams(o.params, { ...base, ...raw }, o.rules).violations;
}

const campaignBase = { funding_instrument_id: 'fi1', name: 'c' };
const words = (n: number, w = 'a') => w.repeat(n);

describe('text lengths (spec 8)', () => {
  const cases: Array<[AdsCollection, string, string, number, Record<string, unknown>]> = [
    ['campaigns', 'create', 'name', 255, { funding_instrument_id: 'fi1' }],
    ['campaigns', 'update', 'name', 255, {}],
    ['campaigns', 'create', 'purchase_order_number', 50, campaignBase],
    ['campaigns', 'update', 'purchase_order_number', 50, {}],
    ['campaigns', 'list', 'q', 255, {}],
    ['accounts', 'list', 'q', 255, {}],
  ];
  for (const [res, verb, param, max, base] of cases) {
    it(`${res} ${verb} ${param}: ${max} passes, ${max + 1} fails`, () => {
      expect(check(op(res, verb), { [param]: words(max) }, base)).toEqual([]);
      const v = check(op(res, verb), { [param]: words(max + 1) }, base);
      expect(v).toEqual([{ param, code: 'INVALID_PARAMETER', message: `must be at most ${max} characters` }]);
    });
  }
  it('q needs at least one character (1-255)', () => {
    expect(check(op('campaigns', 'list'), { q: '' })[0]?.param).toBe('q');
  });
});

describe('count ranges (spec 2.1: 1-1000)', () => {
  const lists = RESOURCES.flatMap((r) =>
    r.operations.filter((o) => o.params.some((p) => p.name === 'count')).map((o) => [r.noun, o] as const),
  );
  it('covers every list that takes count', () => expect(lists.length).toBeGreaterThan(10));
  for (const [noun, o] of lists) {
    // Most lists take 1-1000; some state their own range (cards and posts 1-200, media library 1-50).
    const max = Number(/^1-(\d+)/.exec(o.params.find((p) => p.name === 'count')!.rule ?? '')![1]);
    it(`${noun} ${o.verb}: 1 and ${max} pass, 0 and ${max + 1} fail`, () => {
      const req = Object.fromEntries(o.params.filter((p) => p.required).map((p) => [p.name, sample(p)]));
      expect(check(o, { count: '1' }, req)).toEqual([]);
      expect(check(o, { count: String(max) }, req)).toEqual([]);
      expect(check(o, { count: '0' }, req)[0]).toMatchObject({
        param: 'count',
        message: `must be between 1 and ${max}`,
      });
      expect(check(o, { count: String(max + 1) }, req)[0]).toMatchObject({
        param: 'count',
        message: `must be between 1 and ${max}`,
      });
    });
  }
});

// A valid sample value of a parameter, for filling the required ones.
function sample(p: ParamDef, n = 1): string {
  const item =
    p.enumValues?.[0] ??
    (
      {
        country_codes: 'US',
        keywords: 'kw',
        negative_keywords: 'kw',
        subscribe_email_types: 'ACCOUNT_PERFORMANCE',
        card_uris: 'card://c1',
        media_keys: '3_1',
        locale: 'en-US',
        job_ids: '1',
      } as Record<string, string>
    )[p.name] ??
    (p.rule === 'long' || p.name.startsWith('tweet') ? '1' : 'abc');
  if (p.kind === 'list') return Array.from({ length: n }, () => item).join(',');
  if (p.kind === 'time') return p.name === 'end_time' ? '2026-01-02T00:00:00Z' : '2026-01-01T00:00:00Z';
  if (p.kind === 'long') return '12';
  if (p.kind === 'int' || p.kind === 'micro') return '1';
  if (p.kind === 'bool') return 'true';
  if (p.name.endsWith('url')) return 'https://example.com/x';
  if (p.name === 'currency') return 'USD';
  return item;
}

describe('identifier lists (spec 8: up to 200 entries unless stated)', () => {
  const lists = RESOURCES.flatMap((r) =>
    // negative_keywords counts together with the required keywords: its test is below.
    r.operations.flatMap((o) =>
      o.params.filter((p) => p.kind === 'list' && p.name !== 'negative_keywords').map((p) => [r.noun, o, p] as const),
    ),
  );
  it('covers the id lists', () =>
    expect(lists.filter(([, , p]) => p.name.endsWith('_ids')).length).toBeGreaterThan(15));
  for (const [noun, o, p] of lists) {
    const max = Number(/max (\d+)/.exec(p.rule ?? '')![1]);
    it(`${noun} ${o.verb} ${p.name}: ${max} entries pass, ${max + 1} fail`, () => {
      const req = Object.fromEntries(
        o.params.filter((x) => x.required && x.name !== p.name).map((x) => [x.name, sample(x)]),
      );
      // Cross-field rules (line items: objective against placements...) are tested on their own.
      expect(check(o, { [p.name]: sample(p, max) }, req).filter((v) => !v.crossField)).toEqual([]);
      const v = check(o, { [p.name]: sample(p, max + 1) }, req);
      expect(v[0]).toMatchObject({
        param: p.name,
        code: 'INVALID_PARAMETER',
        message: `must list at most ${max} entries (got ${max + 1})`,
      });
    });
  }
  it('ids lists are 200 (spec 2.1) and tweet_ids is 50 (spec 8)', () => {
    expect(op('campaigns', 'list').params.find((p) => p.name === 'campaign_ids')!.rule).toBe('comma list, max 200');
    expect(op('promoted_tweets', 'create').params.find((p) => p.name === 'tweet_ids')!.rule).toBe('comma list, max 50');
    expect(op('targeting_criteria', 'list').params.find((p) => p.name === 'line_item_ids')!.required).toBe(true);
  });
  it('refuses empty entries and non-ids', () => {
    expect(check(op('campaigns', 'list'), { campaign_ids: 'a,,b' })[0]?.message).toMatch(/no empty entries/);
    expect(check(op('campaigns', 'list'), { campaign_ids: 'a,b c' })[0]?.message).toMatch(/must be an id/);
    expect(check(op('promoted_tweets', 'create'), { line_item_id: 'l', tweet_ids: '1,x' })[0]?.message).toMatch(
      /whole number/,
    );
  });
});

describe('campaign batch (spec 8: 40 items)', () => {
  const batch = op('campaigns', 'batch');
  const create = {
    operation_type: 'Create',
    params: { name: 'n', funding_instrument_id: 'f', daily_budget_amount_local_micro: 1 },
  };
  it(`${CAMPAIGN_BATCH_MAX} items pass, ${CAMPAIGN_BATCH_MAX + 1} is a request-level error`, () => {
    expect(CAMPAIGN_BATCH_MAX).toBe(40);
    const okay = checkBatch(batch, Array(40).fill(create));
    expect(okay.requestErrors).toEqual([]);
    expect(okay.itemErrors.every((e) => e.length === 0)).toBe(true);
    expect(checkBatch(batch, Array(41).fill(create)).requestErrors[0]?.message).toBe(
      'must hold at most 40 items (got 41)',
    );
  });
  it('item errors are reported by position, with the item params validated like flags', () => {
    const r = checkBatch(batch, [
      create,
      { operation_type: 'Update', params: { name: 'x'.repeat(256) } },
      { operation_type: 'Archive', params: {} },
      create,
    ]);
    expect(r.requestErrors).toEqual([]);
    expect(r.itemErrors[0]).toEqual([]);
    expect(r.itemErrors[1]!.map((e) => e.param)).toEqual(['campaign_id', 'name']);
    expect(r.itemErrors[2]![0]!.message).toBe('must be one of Create, Update, Delete');
    expect(r.itemErrors[3]).toEqual([]);
  });
  it('a body that is not an array, or is empty, is a request-level error', () => {
    expect(checkBatch(batch, { a: 1 }).requestErrors).toHaveLength(1);
    expect(checkBatch(batch, []).requestErrors).toHaveLength(1);
  });
});

describe('campaign rules', () => {
  const create = op('campaigns', 'create');
  it('entity_status: create takes DRAFT, update only ACTIVE or PAUSED', () => {
    expect(check(create, { entity_status: 'DRAFT' }, campaignBase)).toEqual([]);
    expect(check(op('campaigns', 'update'), { entity_status: 'DRAFT' })[0]?.message).toBe(
      'must be one of ACTIVE, PAUSED',
    );
  });
  it('daily budget at most the total budget', () => {
    expect(
      check(create, { daily_budget_amount_local_micro: '5', total_budget_amount_local_micro: '5' }, campaignBase),
    ).toEqual([]);
    expect(
      check(create, { daily_budget_amount_local_micro: '6', total_budget_amount_local_micro: '5' }, campaignBase)[0],
    ).toMatchObject({
      param: 'daily_budget_amount_local_micro',
      message: 'must be at most total_budget_amount_local_micro',
    });
  });
  it('standard_delivery only with budget_optimization CAMPAIGN', () => {
    expect(check(create, { standard_delivery: 'false', budget_optimization: 'CAMPAIGN' }, campaignBase)).toEqual([]);
    expect(
      check(create, { standard_delivery: 'false', budget_optimization: 'LINE_ITEM' }, campaignBase)[0]?.param,
    ).toBe('standard_delivery');
  });
  it('required parameters are MISSING_PARAMETER', () => {
    expect(check(create, {})).toEqual([
      { param: 'funding_instrument_id', code: 'MISSING_PARAMETER', message: 'is required' },
      { param: 'name', code: 'MISSING_PARAMETER', message: 'is required' },
    ]);
  });
  it('money is whole micros', () => {
    expect(check(create, { daily_budget_amount_local_micro: '1.5' }, campaignBase)[0]?.param).toBe(
      'daily_budget_amount_local_micro',
    );
  });
  it(`the active-campaign limit is ${DEFAULT_MAX_ACTIVE_CAMPAIGNS}`, () =>
    expect(DEFAULT_MAX_ACTIVE_CAMPAIGNS).toBe(200));
});

describe('common parameters', () => {
  it('with_total_count is exclusive with cursor wherever both exist (spec 2.1)', () => {
    let n = 0;
    for (const r of RESOURCES) {
      for (const o of r.operations) {
        const names = o.params.map((p) => p.name);
        if (!names.includes('with_total_count') || !names.includes('cursor')) continue;
        n++;
        const req = Object.fromEntries(o.params.filter((p) => p.required).map((p) => [p.name, sample(p)]));
        expect(check(o, { with_total_count: 'true' }, req)).toEqual([]);
        expect(check(o, { with_total_count: 'true', cursor: 'c-1' }, req)[0]).toMatchObject({
          param: 'with_total_count',
          message: 'cannot be used together with cursor',
          crossField: true,
        });
        expect(check(o, { with_total_count: 'false', cursor: 'c-1' }, req)).toEqual([]);
      }
    }
    expect(n).toBeGreaterThan(10);
  });
  it('sort_by is <attribute>-asc|desc; booleans are true or false', () => {
    const l = op('campaigns', 'list');
    expect(check(l, { sort_by: 'name-asc' })).toEqual([]);
    expect(check(l, { sort_by: 'name' })[0]?.param).toBe('sort_by');
    expect(check(l, { with_deleted: 'yes' })[0]?.message).toBe('must be true or false');
  });
  it('with_total_count requests have their own limit of 200 per 15 minutes', () => {
    expect(DEFAULT_LIMITS['ads-total-count']).toEqual({ limit: 200, windowMs: 15 * 60_000 });
  });
  it("flags are the kebab-case of the spec names, read back under commander's attribute names", () => {
    for (const r of RESOURCES) {
      for (const o of r.operations) {
        for (const p of o.params) {
          // The one exception: stats takes --ids --start --end (the and docs/contract.md, design's words).
          const short =
            r.noun === 'stats' || r.noun === 'job'
              ? ({ entity_ids: '--ids', start_time: '--start', end_time: '--end' } as Record<string, string>)[p.name]
              : undefined;
          if (short && o.verb !== 'active-entities') expect(p.flag).toBe(short);
          else expect(p.flag).toBe('--' + p.name.replace(/_/g, '-'));
          expect(attributeOf(p.flag)).toBe(new Option(`${p.flag} <v>`).attributeName());
        }
      }
    }
  });
});

describe('keyword insights (spec 8: 10 keywords combined, 7-day range)', () => {
  const o = op('keyword_insights', 'search');
  const base = { granularity: 'DAY', start_time: '2026-01-01T00:00:00Z' };
  it('10 keywords combined pass, 11 fail', () => {
    expect(check(o, { keywords: 'a,b,c,d,e', negative_keywords: 'f,g,h,i,j' }, base)).toEqual([]);
    expect(check(o, { keywords: 'a,b,c,d,e,k', negative_keywords: 'f,g,h,i,j' }, base)[0]).toMatchObject({
      param: 'keywords',
      message: 'must be at most 10 combined with negative_keywords (got 11)',
    });
  });
  it('a range of exactly 7 days passes, a second more fails', () => {
    expect(check(o, { keywords: 'a', end_time: '2026-01-08T00:00:00Z' }, base)).toEqual([]);
    expect(check(o, { keywords: 'a', end_time: '2026-01-08T00:00:01Z' }, base)[0]).toMatchObject({
      param: 'end_time',
      message: 'must be at most 7 days after start_time',
    });
    expect(check(o, { keywords: 'a', end_time: '2026-01-01T00:00:00Z' }, base)[0]?.message).toBe(
      'must be after start_time',
    );
  });
});

describe('times', () => {
  const h = op('accounts', 'history');
  const base = { entity_type: 'CAMPAIGN', entity_id: 'c1', end_time: '2026-01-02T00:00:00Z' };
  it('account history takes whole hours only', () => {
    expect(check(h, { start_time: '2026-01-01T05:00:00Z' }, base)).toEqual([]);
    expect(check(h, { start_time: '2026-01-01T05:00Z' }, base)).toEqual([]);
    expect(check(h, { start_time: '2026-01-01T05:01:00Z' }, base)[0]?.message).toBe(
      'must be a whole hour (minutes and seconds 00)',
    );
    expect(check(h, { start_time: '2026-01-01T05:00:01Z' }, base)[0]?.param).toBe('start_time');
  });
  it('ISO 8601 with a zone is required', () => {
    expect(check(h, { start_time: '2026-01-01 05:00:00' }, base)[0]?.message).toMatch(/ISO 8601/);
    expect(check(h, { start_time: '2026-02-30T05:00:00Z' }, base)[0]?.param).toBe('start_time');
  });
  it('funding instrument currency is ISO 4217', () => {
    const fi = op('funding_instruments', 'create');
    expect(check(fi, { currency: 'EUR', start_time: '2026-01-01T00:00:00Z' })).toEqual([]);
    expect(check(fi, { currency: 'euro', start_time: '2026-01-01T00:00:00Z' })[0]?.param).toBe('currency');
  });
});

describe('enums from the spec', () => {
  it('sandbox feature keys, read feature keys, industry types, tracking tag types', () => {
    expect(check(op('accounts', 'add-features'), { feature_keys: 'AGE_TARGETING,DR_TAP' })).toEqual([]);
    expect(check(op('accounts', 'add-features'), { feature_keys: 'AGE_TARGETING,FLYING' })[0]?.message).toMatch(
      /entry "FLYING" must be one of/,
    );
    expect(check(op('accounts', 'features'), { feature_keys: 'AGE_TARGETING' })[0]?.param).toBe('feature_keys');
    expect(check(op('accounts', 'update'), { industry_type: 'RETAIL' })).toEqual([]);
    expect(check(op('accounts', 'update'), { industry_type: 'retail' })[0]?.param).toBe('industry_type');
    expect(
      check(op('tracking_tags', 'create'), {
        line_item_id: 'l',
        tracking_tag_type: 'PIXEL',
        tracking_tag_url: 'https://t.example/x',
      })[0]?.param,
    ).toBe('tracking_tag_type');
    expect(
      check(op('tracking_tags', 'create'), {
        line_item_id: 'l',
        tracking_tag_type: 'CLICK_TRACKER',
        tracking_tag_url: 'ftp://x',
      })[0]?.param,
    ).toBe('tracking_tag_url');
  });
  it('every SANDBOX-only operation is marked', () => {
    const marked = RESOURCES.flatMap((r) =>
      r.operations.filter((o) => o.sandboxOnly).map((o) => `${o.method} ${o.path}`),
    ).sort();
    expect(marked).toEqual(
      [
        'POST /accounts',
        'DELETE /accounts/:account_id',
        'POST /accounts/:account_id/features',
        'DELETE /accounts/:account_id/features',
        'POST /accounts/:account_id/funding_instruments',
      ].sort(),
    );
  });
});
