// The rules of targeting criteria (notes 5), stats requests (notes 6) and media uploads
// (notes 3), just inside and just outside, through the validation the CLI and sandbox share.
import { describe, expect, it } from 'vitest';
import { resourceByName } from '../../src/ads/resources.js';
import { validateParams } from '../../src/ads/params.js';
import { checkBatch } from '../../src/ads/batch.js';
import type { AdsCollection, OperationDef } from '../../src/ads/resource-types.js';
import { AGE_BUCKETS, TARGETING_BATCH_MAX } from '../../src/ads/resources/targeting.js';
import { METRICS, STATS_IDS_MAX } from '../../src/ads/resources/stats.js';
import {
  bytesMatchType,
  categoryMismatch,
  imageSize,
  keyPrefix,
  sizeProblem,
  sniff,
} from '../../src/contract/media.js';
import { tzOffsetMs } from '../../src/sandbox/ads/stats.js';

const op = (res: AdsCollection, verb: string): OperationDef =>
  resourceByName(res)!.operations.find((o) => o.verb === verb)!;
const first = (o: OperationDef, raw: Record<string, unknown>) => validateParams(o.params, raw, o.rules).violations[0];

describe('targeting criteria', () => {
  const add = op('targeting_criteria', 'add');
  const tc = (targeting_type: string, targeting_value: string, more: Record<string, unknown> = {}) =>
    first(add, { line_item_id: 'l1', targeting_type, targeting_value, ...more });
  it('types: every documented one; unknown is INVALID_TARGETING_TYPE', () => {
    expect(tc('LOCATION', '96683cc9126741d1')).toBeUndefined();
    expect(tc('LOCATIONS', 'x')).toMatchObject({ param: 'targeting_type', code: 'INVALID_TARGETING_TYPE' });
    expect(tc('NEGATIVE_PHRASE_KEYWORD', 'x')).toMatchObject({ code: 'INVALID_TARGETING_TYPE' });
  });
  it('value shapes: AGE buckets, GENDER 1/2, ISO language, months, user ids', () => {
    expect(AGE_BUCKETS).toHaveLength(20);
    expect(tc('AGE', 'AGE_OVER_50')).toBeUndefined();
    expect(tc('AGE', 'AGE_OVER_51')).toMatchObject({ param: 'targeting_value' });
    expect(tc('GENDER', '2')).toBeUndefined();
    expect(tc('GENDER', '0')).toMatchObject({ param: 'targeting_value' });
    expect(tc('LANGUAGE', 'en')).toBeUndefined();
    expect(tc('LANGUAGE', 'eng')).toMatchObject({ param: 'targeting_value' });
    expect(tc('FOLLOWERS_OF_USER', '1234567890123456789')).toBeUndefined();
    expect(tc('FOLLOWERS_OF_USER', '@ada')).toMatchObject({ param: 'targeting_value' });
    expect(tc('ENGAGEMENT_TYPE', 'VIDEO_VIEW_COMPLETE')).toBeUndefined();
    expect(tc('ENGAGEMENT_TYPE', 'CLICK')).toMatchObject({ param: 'targeting_value' });
    expect(tc('BROAD_KEYWORD', 'k'.repeat(255))).toBeUndefined();
    expect(tc('BROAD_KEYWORD', 'k'.repeat(256))).toMatchObject({ param: 'targeting_value' });
  });
  it('operators: EQ default, GTE/LT only for NETWORK_ACTIVATION_DURATION, APP_LIST only NE', () => {
    expect(tc('NETWORK_ACTIVATION_DURATION', '6', { operator_type: 'LT' })).toBeUndefined();
    expect(tc('NETWORK_ACTIVATION_DURATION', '6')).toMatchObject({ param: 'operator_type' });
    expect(tc('LOCATION', 'x1', { operator_type: 'LT' })).toMatchObject({ param: 'operator_type' });
    expect(tc('LOCATION', 'x1', { operator_type: 'NE' })).toBeUndefined();
    expect(tc('APP_LIST', 'al1', { operator_type: 'NE' })).toBeUndefined();
    expect(tc('APP_LIST', 'al1', { operator_type: 'EQ' })).toMatchObject({ param: 'operator_type' });
  });
  it(`batch: ${TARGETING_BATCH_MAX} items pass, ${TARGETING_BATCH_MAX + 1} fail; Create and Delete only`, () => {
    const item = { operation_type: 'Delete', params: { targeting_criterion_id: 't1' } };
    const b = op('targeting_criteria', 'batch');
    expect(checkBatch(b, Array(TARGETING_BATCH_MAX).fill(item)).requestErrors).toEqual([]);
    expect(checkBatch(b, Array(TARGETING_BATCH_MAX + 1).fill(item)).requestErrors[0]?.message).toMatch(
      /at most 500 items/,
    );
    expect(checkBatch(b, [{ operation_type: 'Update', params: {} }]).itemErrors[0]![0]?.param).toBe('operation_type');
  });
  it('tv shows count 1-50 (the lookups own range)', () => {
    const tv = op('targeting_options', 'tv-shows');
    expect(first(tv, { locale: 'en-US', count: '50' })).toBeUndefined();
    expect(first(tv, { locale: 'en-US', count: '51' })).toMatchObject({ param: 'count' });
    expect(first(tv, { locale: 'english' })).toMatchObject({ param: 'locale' });
  });
});

describe('stats', () => {
  const sync = op('stats', 'query');
  const base = {
    entity: 'LINE_ITEM',
    entity_ids: 'a',
    granularity: 'DAY',
    metric_groups: 'ENGAGEMENT',
    placement: 'ALL_ON_TWITTER',
  };
  const s = (raw: Record<string, unknown>) =>
    first(sync, { ...base, start_time: '2026-05-01', end_time: '2026-05-02', ...raw });
  it(`entity_ids 1-${STATS_IDS_MAX}`, () => {
    expect(s({ entity_ids: Array.from({ length: 20 }, (_, i) => `e${i}`).join(',') })).toBeUndefined();
    expect(s({ entity_ids: Array.from({ length: 21 }, (_, i) => `e${i}`).join(',') })).toMatchObject({
      param: 'entity_ids',
    });
  });
  it('range: 7 days sync, end after start; whole hours or dates', () => {
    expect(s({ start_time: '2026-05-01', end_time: '2026-05-08' })).toBeUndefined();
    expect(s({ start_time: '2026-05-01', end_time: '2026-05-09' })).toMatchObject({ code: 'INVALID_TIME_WINDOW' });
    expect(s({ start_time: '2026-05-01T00:00:00Z', end_time: '2026-05-08T00:00:00Z' })).toBeUndefined();
    expect(s({ start_time: '2026-05-01T00:00:00Z', end_time: '2026-05-08T01:00:00Z' })).toMatchObject({
      code: 'INVALID_TIME_WINDOW',
    });
    expect(s({ start_time: '2026-05-01T00:00:00Z', end_time: '2026-05-01T00:00:00Z' })).toMatchObject({
      code: 'INVALID_TIME_WINDOW',
      message: 'must be after start_time',
    });
    expect(s({ start_time: '2026-05-01T00:00:01Z' })).toMatchObject({
      param: 'start_time',
      message: expect.stringMatching(/whole hour/),
    });
    expect(s({ start_time: '2026-02-30' })).toMatchObject({ param: 'start_time' });
  });
  it('metric groups: the six of v12 (MEDIA refused), ACCOUNT only ENGAGEMENT, FUNDING_INSTRUMENT also BILLING', () => {
    expect(Object.keys(METRICS)).toHaveLength(6);
    expect(
      s({
        metric_groups: 'ENGAGEMENT,BILLING,VIDEO,WEB_CONVERSION,MOBILE_CONVERSION,LIFE_TIME_VALUE_MOBILE_CONVERSION',
      }),
    ).toBeUndefined();
    expect(s({ metric_groups: 'MEDIA' })).toMatchObject({ param: 'metric_groups' });
    expect(s({ entity: 'ACCOUNT', metric_groups: 'ENGAGEMENT' })).toBeUndefined();
    expect(s({ entity: 'ACCOUNT', metric_groups: 'BILLING' })).toMatchObject({ param: 'metric_groups' });
    expect(s({ entity: 'FUNDING_INSTRUMENT', metric_groups: 'BILLING' })).toBeUndefined();
    expect(s({ entity: 'FUNDING_INSTRUMENT', metric_groups: 'VIDEO' })).toMatchObject({ param: 'metric_groups' });
    expect(s({ placement: 'PUBLISHER_NETWORK' })).toBeUndefined();
    expect(s({ placement: 'TWITTER_TIMELINE' })).toMatchObject({ param: 'placement' });
  });
  it('jobs: 90 days, 45 segmented; METROS needs country; CONVERSION_TAGS only WEB_CONVERSION', () => {
    const job = op('stats_jobs', 'create');
    const j = (raw: Record<string, unknown>) =>
      first(job, { ...base, start_time: '2026-01-01', end_time: '2026-04-01', ...raw });
    expect(j({})).toBeUndefined();
    expect(j({ end_time: '2026-04-02' })).toMatchObject({ code: 'INVALID_TIME_WINDOW' });
    expect(j({ end_time: '2026-02-15', segmentation_type: 'AGE' })).toBeUndefined();
    expect(j({ end_time: '2026-02-16', segmentation_type: 'AGE' })).toMatchObject({ code: 'INVALID_TIME_WINDOW' });
    expect(j({ end_time: '2026-01-02', segmentation_type: 'METROS', country: '96683cc9126741d1' })).toBeUndefined();
    expect(j({ end_time: '2026-01-02', segmentation_type: 'METROS' })).toMatchObject({ param: 'country' });
    expect(
      j({ end_time: '2026-01-02', segmentation_type: 'CONVERSION_TAGS', metric_groups: 'WEB_CONVERSION' }),
    ).toBeUndefined();
    expect(j({ end_time: '2026-01-02', segmentation_type: 'CONVERSION_TAGS' })).toMatchObject({
      param: 'segmentation_type',
    });
  });
  it('active entities: 90 days, whole hours, one id filter at a time', () => {
    const ae = op('stats', 'active-entities');
    const a = (raw: Record<string, unknown>) =>
      first(ae, { entity: 'LINE_ITEM', start_time: '2026-01-01T00:00:00Z', end_time: '2026-04-01T00:00:00Z', ...raw });
    expect(a({})).toBeUndefined();
    expect(a({ end_time: '2026-04-01T01:00:00Z' })).toMatchObject({ code: 'INVALID_TIME_WINDOW' });
    expect(a({ campaign_ids: 'c1', line_item_ids: 'l1' })).toMatchObject({ param: 'campaign_ids' });
    expect(a({ entity: 'ORGANIC_TWEET' })).toMatchObject({ param: 'entity' });
  });
  it('account timezone offsets (DAY buckets are account midnights)', () => {
    expect(tzOffsetMs('America/New_York', Date.parse('2026-05-19T12:00:00Z'))).toBe(-4 * 3600_000);
    expect(tzOffsetMs('America/New_York', Date.parse('2026-11-23T12:00:00Z'))).toBe(-5 * 3600_000);
    expect(tzOffsetMs('Asia/Kolkata', Date.parse('2026-11-23T12:00:00Z'))).toBe(5.5 * 3600_000);
    expect(tzOffsetMs('UTC', 0)).toBe(0);
  });
});

describe('media upload contract', () => {
  const MB = 1024 * 1024;
  it('size limits per category: image 5 MB, GIF 15 MB, video 512 MB', () => {
    expect(sizeProblem(5 * MB, 'tweet_image')).toBeUndefined();
    expect(sizeProblem(5 * MB + 1, 'tweet_image')).toMatch(/at most 5 MB/);
    expect(sizeProblem(15 * MB, 'tweet_gif')).toBeUndefined();
    expect(sizeProblem(15 * MB + 1, 'tweet_gif')).toMatch(/at most 15 MB/);
    expect(sizeProblem(512 * MB, 'amplify_video')).toBeUndefined();
    expect(sizeProblem(512 * MB + 1, 'amplify_video')).toMatch(/at most 512 MB/);
    expect(sizeProblem(0, 'tweet_image')).toMatch(/empty/);
  });
  it('types fit categories; key prefixes of the ads examples', () => {
    expect(categoryMismatch('image/png', 'tweet_image')).toBeUndefined();
    expect(categoryMismatch('image/gif', 'tweet_image')).toBeUndefined();
    expect(categoryMismatch('video/mp4', 'tweet_image')).toMatch(/takes an image/);
    expect(categoryMismatch('image/png', 'amplify_video')).toMatch(/takes a video/);
    expect(categoryMismatch('image/png', 'tweet_gif')).toMatch(/image\/gif/);
    expect(['tweet_image', 'tweet_video', 'amplify_video', 'tweet_gif'].map((c) => keyPrefix(c as never))).toEqual([
      '3',
      '7',
      '13',
      '16',
    ]);
  });
  it('sniffs the first bytes; reads image sizes', () => {
    const pngHead = Buffer.from('89504e470d0a1a0a0000000d4948445200000320000001a2', 'hex');
    expect(sniff(pngHead)).toBe('image/png');
    expect(imageSize(pngHead)).toEqual({ w: 800, h: 418 });
    const gif = Buffer.concat([Buffer.from('GIF89a'), Buffer.from([0x10, 0x00, 0x20, 0x00])]);
    expect(imageSize(gif)).toEqual({ w: 16, h: 32 });
    const jpeg = Buffer.from('ffd8ffe000104a46494600010100000100010000ffc0001108012c01900301220002110103110100', 'hex');
    expect(sniff(jpeg)).toBe('image/jpeg');
    expect(imageSize(jpeg)).toEqual({ w: 400, h: 300 });
    expect(bytesMatchType(jpeg, 'image/pjpeg')).toBe(true);
    expect(bytesMatchType(jpeg, 'image/png')).toBe(false);
    expect(sniff(Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypqt  ')]))).toBe('video/quicktime');
    // issue 29 item 8: "ftyp" at offset 4 of random bytes is no box (its size must cover a
    // header and a brand)
    const box = (size: number, rest: string) => Buffer.concat([Buffer.from([0, 0, 0, size]), Buffer.from(rest)]);
    expect(sniff(box(4, 'ftypisom'))).toBeUndefined();
    expect(sniff(box(0x20, 'ftyp'))).toBeUndefined();
    expect(bytesMatchType(box(0x20, 'ftypisom'), 'video/mp4')).toBe(true);
  });
});

describe('stats rows (what tables, json, jsonl and tsv print)', () => {
  it('one row per id, segment and bucket, with bucket times from the echoed request; conversion objects flattened', async () => {
    const { statsRows } = await import('../../src/commands/ads/stats-output.js');
    const env = {
      time_series_length: 2,
      request: { params: { start_time: '2026-05-19T04:00:00Z', end_time: '2026-05-21T04:00:00Z', granularity: 'DAY' } },
      data: [
        {
          id: 'a',
          id_data: [
            {
              segment: null,
              metrics: {
                impressions: [5, 0],
                billed_charge_local_micro: [1500000, 0],
                likes: null,
                conversion_purchases: { post_view: [1, 2] },
              },
            },
          ],
        },
        {
          id: 'b',
          id_data: [{ segment: { segment_name: 'Female', segment_value: '2' }, metrics: { impressions: [1, 2] } }],
        },
      ],
    };
    expect(statsRows(env, 'USD')).toEqual([
      {
        id: 'a',
        start: '2026-05-19T04:00:00Z',
        end: '2026-05-20T04:00:00Z',
        impressions: 5,
        billed_charge_local_micro: 1500000,
        likes: null,
        'conversion_purchases.post_view': 1,
        currency: 'USD',
      },
      {
        id: 'a',
        start: '2026-05-20T04:00:00Z',
        end: '2026-05-21T04:00:00Z',
        impressions: 0,
        billed_charge_local_micro: 0,
        likes: null,
        'conversion_purchases.post_view': 2,
        currency: 'USD',
      },
      { id: 'b', segment: 'Female', start: '2026-05-19T04:00:00Z', end: '2026-05-20T04:00:00Z', impressions: 1 },
      { id: 'b', segment: 'Female', start: '2026-05-20T04:00:00Z', end: '2026-05-21T04:00:00Z', impressions: 2 },
    ]);
    const total = statsRows({
      ...env,
      time_series_length: 1,
      request: { params: { ...env.request.params, granularity: 'TOTAL' } },
    });
    expect(total[0]).toMatchObject({ start: '2026-05-19T04:00:00Z', end: '2026-05-21T04:00:00Z', impressions: 5 });
  });
});

describe('money in tables', () => {
  it('micros print as money with the row currency on a terminal; json keeps the integers', async () => {
    const { PassThrough } = await import('node:stream');
    const { IO } = await import('../../src/core/io.js');
    const { printList } = await import('../../src/core/output.js');
    const run = async (format: 'table' | 'json') => {
      const out = Object.assign(new PassThrough(), { isTTY: true, columns: 200 });
      const err = Object.assign(new PassThrough(), { isTTY: true, columns: 200 });
      let text = '';
      out.on('data', (d) => (text += d));
      const io = new IO({ stdin: new PassThrough(), stdout: out, stderr: err }, { color: false });
      await printList(
        io,
        { format },
        [
          { id: 'a', billed_charge_local_micro: 543_000_000, currency: 'USD' },
          { id: 'b', billed_charge_local_micro: 1, currency: 'USD' },
        ],
        { columns: ['id', 'billed_charge_local_micro', 'currency'] },
      );
      return text;
    };
    const table = await run('table');
    expect(table).toMatch(/543\.00 USD/);
    expect(table).toMatch(/0\.00 USD/);
    expect(table).not.toMatch(/543000000/);
    expect(JSON.parse(await run('json'))[0].billed_charge_local_micro).toBe(543_000_000);
  });
});
