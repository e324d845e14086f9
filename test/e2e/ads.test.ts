// Analytics through the real CLI against a sandbox on a manual clock: line items deliver while
// ACTIVE as the clock moves; a TOTAL equals the sum of its DAYs (and of its HOURs); a stats job
// is polled to completion and its gzipped file read; active entities; refused input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdsSandbox, type AdsReply, type AdsSandbox } from '../helpers/ads.js';
import { runCli } from '../helpers/cli.js';

/** A row of `xctl ads stats` (and of a stats job's file): the entity, its bucket, the metrics. */
interface StatRow {
  id: string;
  [field: string]: string | number | null | string[];
}
/** A stats job as `xctl ads stats job` prints it. */
interface Job {
  id: number;
  id_str: string;
  status: string;
  url: string | null;
}
/** The raw stats reply's data (ads-api.md 4.5): metrics per id, segment and series. */
type RawStats = Array<{ id: string; id_data: Array<{ segment: unknown; metrics: Record<string, unknown[] | null> }> }>;

let t: AdsSandbox;
let li: string;
let li2: string;
let camp: string;
let day0: string; // the account's (America/New_York) date when the test starts
let day2: string;
const H = 3600_000;

function nyHour(ms: number): number {
  return Number(
    new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour: 'numeric', hourCycle: 'h23' }).format(
      new Date(ms),
    ),
  );
}

function nyDate(ms: number): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(new Date(ms));
}

beforeAll(async () => {
  t = await startAdsSandbox({ clock: 'manual' });
  // Start at 10:17 in the account's time zone, whatever the hour the test runs: the checks below
  // assume a day with delivery left in it after the start, and windows that do not begin on the
  // hour (run just before midnight in New York, day0 had two minutes of delivery).
  const start = t.sb.app.clock.now();
  let next = Math.ceil(start / H) * H;
  for (let i = 0; i < 24 && nyHour(next) !== 10; i++) next += H;
  await t.admin('POST', '/_sandbox/clock', { advance: `${next + 17 * 60_000 - start}ms` });
  const now = t.sb.app.clock.now();
  day0 = nyDate(now);
  day2 = nyDate(Date.parse(`${day0}T12:00:00Z`) + 48 * H);
  const fi = [...t.collection('funding_instruments').values()][0]!.id;
  camp = (
    await t.json([
      'ads',
      'campaigns',
      'create',
      '--name',
      'Stats',
      '--funding-instrument-id',
      fi,
      '--daily-budget-amount-local-micro',
      '90000000',
    ])
  ).id;
  const mk = (name: string) =>
    t.json([
      'ads',
      'line-items',
      'create',
      '--campaign-id',
      camp,
      '--objective',
      'ENGAGEMENTS',
      '--product-type',
      'PROMOTED_TWEETS',
      '--placements',
      'ALL_ON_TWITTER',
      '--bid-amount-local-micro',
      '1500000',
      '--entity-status',
      'ACTIVE',
      '--name',
      name,
      '--start-time',
      new Date(now).toISOString().replace(/\.\d+Z$/, 'Z'),
    ]);
  li = (await mk('Delivers')).id;
  li2 = (await mk('Also delivers')).id;
  await t.admin('POST', '/_sandbox/clock', { advance: '50h' });
});
afterAll(() => t.close());

const sum = (rows: StatRow[], k: string) => rows.reduce((s, r) => s + Number(r[k] ?? 0), 0);
const q = (...more: string[]) => [
  'ads',
  'stats',
  '--entity',
  'LINE_ITEM',
  '--ids',
  `${li},${li2}`,
  '--start',
  day0,
  '--end',
  day2,
  ...more,
];

describe('synchronous stats', () => {
  it('one row per entity and day; the same query gives the same numbers; TOTAL equals the sum of DAY', async () => {
    const [days, again, total] = await Promise.all([
      t.list<StatRow>(q()),
      t.list<StatRow>(q()),
      t.list<StatRow>(q('--granularity', 'TOTAL')),
    ]);
    expect(days).toHaveLength(4);
    expect(days.map((r) => r.id)).toEqual([li, li, li2, li2]);
    expect(days[0]).toMatchObject({ start: expect.stringMatching(/T0[45]:00:00Z$/), currency: 'USD' });
    expect(again).toEqual(days);
    expect(total).toHaveLength(2);
    for (const id of [li, li2]) {
      const d = days.filter((r) => r.id === id);
      const tot = total.find((r) => r.id === id)!;
      expect(sum(d, 'impressions')).toBeGreaterThan(1000);
      // Paced: no day spends more than the line item's share of the campaign's daily budget ($90 / 2).
      for (const r of d) expect(r.billed_charge_local_micro).toBeLessThanOrEqual(45_000_000);
      expect(d[0]!.billed_charge_local_micro).toBeGreaterThan(40_000_000);
      for (const k of [
        'impressions',
        'engagements',
        'clicks',
        'likes',
        'billed_engagements',
        'billed_charge_local_micro',
      ])
        expect(tot[k], k).toBe(sum(d, k));
    }
    // A line item's numbers are its own.
    expect(total[0]!.impressions).not.toBe(total[1]!.impressions);
  });

  it('HOUR adds up to TOTAL too; CAMPAIGN is the sum of its line items', async () => {
    const end = nyDate(Date.parse(`${day0}T12:00:00Z`) + 24 * H);
    const [hours, total, campaign] = await Promise.all([
      t.list<StatRow>([
        'ads',
        'stats',
        '--entity',
        'LINE_ITEM',
        '--ids',
        li,
        '--start',
        day0,
        '--end',
        end,
        '--granularity',
        'HOUR',
      ]),
      t.list<StatRow>([
        'ads',
        'stats',
        '--entity',
        'LINE_ITEM',
        '--ids',
        `${li},${li2}`,
        '--start',
        day0,
        '--end',
        end,
        '--granularity',
        'TOTAL',
      ]),
      t.list<StatRow>([
        'ads',
        'stats',
        '--entity',
        'CAMPAIGN',
        '--ids',
        camp,
        '--start',
        day0,
        '--end',
        end,
        '--granularity',
        'TOTAL',
      ]),
    ]);
    expect(hours.length).toBeGreaterThanOrEqual(23);
    expect(sum(hours, 'impressions')).toBe(total[0]!.impressions);
    expect(campaign[0]!.impressions).toBe(sum(total, 'impressions'));
  });

  it('a paused line item stops delivering', async () => {
    await t.json(['ads', 'line-items', 'update', li2, '--entity-status', 'PAUSED']);
    const from = Math.ceil(t.sb.app.clock.now() / H) * H;
    await t.admin('POST', '/_sandbox/clock', { advance: '24h' });
    const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
    const r = await t.list<StatRow>([
      'ads',
      'stats',
      '--entity',
      'LINE_ITEM',
      '--ids',
      `${li},${li2}`,
      '--start',
      iso(from),
      '--end',
      iso(from + 20 * H),
      '--granularity',
      'TOTAL',
    ]);
    expect(r[0]!.impressions).toBeGreaterThan(0);
    expect(r[1]!.impressions).toBeNull(); // no data in the range: null, as the service says
    // A paused campaign stops its line items too, until it is active again (a budget big enough
    // that pacing does not stop them first).
    await t.json([
      'ads',
      'campaigns',
      'update',
      camp,
      '--entity-status',
      'PAUSED',
      '--daily-budget-amount-local-micro',
      '90000000000',
    ]);
    const paused = Math.ceil(t.sb.app.clock.now() / H) * H;
    await t.admin('POST', '/_sandbox/clock', { advance: '3h' });
    await t.json(['ads', 'campaigns', 'update', camp, '--entity-status', 'ACTIVE']);
    await t.admin('POST', '/_sandbox/clock', { advance: '3h' });
    const hours = await t.list<StatRow>([
      'ads',
      'stats',
      '--entity',
      'LINE_ITEM',
      '--ids',
      li,
      '--start',
      iso(paused),
      '--end',
      iso(paused + 5 * H),
      '--granularity',
      'HOUR',
    ]);
    expect(hours.map((x) => Number(x.impressions) > 0)).toEqual([false, false, true, true, true]);
  });

  it('the raw response: one data item per id, every metric of each group, arrays of time_series_length', async () => {
    const raw = await t.signed<AdsReply<RawStats>>(
      'GET',
      `/12/stats/accounts/${t.sb.seed.account_id}?entity=LINE_ITEM&entity_ids=${li}&start_time=${day0}&end_time=${day2}&granularity=DAY&metric_groups=ENGAGEMENT,VIDEO,WEB_CONVERSION&placement=ALL_ON_TWITTER`,
    );
    expect(raw.status).toBe(200);
    expect(raw.body).toMatchObject({ data_type: 'stats', time_series_length: 2 });
    const m = raw.body.data[0]!.id_data[0]!.metrics;
    expect(raw.body.data[0]!.id_data[0]!.segment).toBeNull();
    expect(m.impressions).toHaveLength(2);
    expect(m.video_total_views).toBeNull(); // not a video line item
    expect(m.conversion_purchases).toBeNull();
    expect(Object.keys(m)).toContain('carousel_swipes');
  });

  it('ranges, id counts and metric groups are checked before sending', async () => {
    const ids = Array.from({ length: 21 }, (_, i) => `li${i}`).join(',');
    const errs = await t.refusedAll([
      ['ads', 'stats', '--entity', 'LINE_ITEM', '--ids', ids, '--start', '2026-05-01', '--end', '2026-05-02'],
      ['ads', 'stats', '--entity', 'LINE_ITEM', '--ids', li, '--start', '2026-05-02', '--end', '2026-05-01'],
      ['ads', 'stats', '--entity', 'LINE_ITEM', '--ids', li, '--start', '2026-05-01', '--end', '2026-05-09'],
      [
        'ads',
        'stats',
        '--entity',
        'LINE_ITEM',
        '--ids',
        li,
        '--start',
        '2026-05-01T10:30:00Z',
        '--end',
        '2026-05-02T00:00:00Z',
      ],
      [
        'ads',
        'stats',
        '--entity',
        'LINE_ITEM',
        '--ids',
        li,
        '--start',
        '2026-05-01',
        '--end',
        '2026-05-02',
        '--metric-groups',
        'MEDIA',
      ],
      [
        'ads',
        'stats',
        '--entity',
        'ACCOUNT',
        '--ids',
        li,
        '--start',
        '2026-05-01',
        '--end',
        '2026-05-02',
        '--metric-groups',
        'ENGAGEMENT,BILLING',
      ],
      ['ads', 'stats', '--entity', 'LINE_ITEM', '--ids', li, '--end', '2026-05-02'],
    ]);
    expect(errs[0]).toMatch(/--ids must list at most 20 entries \(got 21\)/);
    expect(errs[1]).toMatch(/--end must be after --start/);
    expect(errs[2]).toMatch(/--end must be at most 7 days after --start/);
    expect(errs[3]).toMatch(/--start .*whole hour/);
    expect(errs[4]).toMatch(/--metric-groups entry "MEDIA" must be one of BILLING/);
    expect(errs[5]).toMatch(/BILLING is not available for --entity ACCOUNT/);
    expect(errs[6]).toMatch(/--start is required/);
    // 7 days exactly is fine; DAY needs the account's midnight (the sandbox knows its timezone).
    const r = await t.fails(1, [
      'ads',
      'stats',
      '--entity',
      'LINE_ITEM',
      '--ids',
      li,
      '--start',
      `${day0}T00:00:00Z`,
      '--end',
      `${day2}T00:00:00Z`,
    ]);
    expect(r.stderr).toMatch(/start_time must be midnight in the account timezone \(America\/New_York/);
    expect(
      (await t.fails(1, ['ads', 'stats', '--entity', 'LINE_ITEM', '--ids', 'nosuch', '--start', day0, '--end', day2]))
        .stderr,
    ).toMatch(/HTTP 404/);
  });

  it('active entities: the line items that delivered in the window', async () => {
    const start = new Date(Math.floor(t.sb.app.clock.now() / H) * H - 30 * H).toISOString().replace(/\.\d+Z$/, 'Z');
    const end = new Date(Math.floor(t.sb.app.clock.now() / H) * H).toISOString().replace(/\.\d+Z$/, 'Z');
    const rows = await t.list([
      'ads',
      'stats',
      'active-entities',
      '--entity',
      'LINE_ITEM',
      '--start-time',
      start,
      '--end-time',
      end,
      '--line-item-ids',
      `${li},${li2}`,
    ]);
    expect(rows.map((r) => r.entity_id).sort()).toEqual([li, li2].sort());
    expect(rows[0]).toMatchObject({
      activity_start_time: expect.any(String),
      activity_end_time: expect.any(String),
      placements: ['ALL_ON_TWITTER'],
    });
    expect(
      (
        await t.refused([
          'ads',
          'stats',
          'active-entities',
          '--entity',
          'ORGANIC_TWEET',
          '--start-time',
          start,
          '--end-time',
          end,
        ])
      ).stderr,
    ).toMatch(/--entity must be one of/);
    expect(
      (
        await t.refused([
          'ads',
          'stats',
          'active-entities',
          '--entity',
          'LINE_ITEM',
          '--start-time',
          start,
          '--end-time',
          end,
          '--campaign-ids',
          camp,
          '--line-item-ids',
          li,
        ])
      ).stderr,
    ).toMatch(/cannot be used together/);
  });
});

describe('stats jobs', () => {
  it('create, wait (polling while the clock moves), download the gzipped file: the same numbers as the sync TOTAL', async () => {
    const job = await t.json<Job>([
      'ads',
      'stats',
      'job',
      'create',
      '--entity',
      'LINE_ITEM',
      '--ids',
      `${li},${li2}`,
      '--start',
      day0,
      '--end',
      day2,
      '--granularity',
      'TOTAL',
    ]);
    expect(job).toMatchObject({ status: 'QUEUED', url: null, entity: 'LINE_ITEM', granularity: 'TOTAL' });
    expect(job.id_str).toMatch(/^\d{19}$/);
    expect(String(job.id)).not.toBe(job.id_str); // JSON.parse (this test's) rounds the number...
    const polls = () => t.requests.filter((l) => l.startsWith('GET /12/stats/jobs/accounts/')).length;
    const before = polls();
    const waiting = runCli(['ads', 'stats', 'job', 'wait', job.id_str, '--json'], { env: t.env });
    // The clock moves only once `wait` has seen the job unfinished (however slow the machine).
    for (let i = 0; i < 600 && polls() === before; i++) await new Promise((r) => setTimeout(r, 50));
    await t.admin('POST', '/_sandbox/clock', { advance: '5s' });
    const done = await waiting;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toMatch(/QUEUED; checking again in 1\.0 s/);
    const finished = JSON.parse(done.stdout) as Job;
    expect(finished).toMatchObject({
      status: 'SUCCESS',
      url: expect.stringMatching(/\/_sandbox\/files\/stats_job_\d+\.json\.gz$/),
    });
    const [rows, sync, got, listed] = await Promise.all([
      t.list<StatRow>(['ads', 'stats', 'job', 'download', job.id_str]),
      t.list<StatRow>(q('--granularity', 'TOTAL')),
      t.json<Job>(['ads', 'stats', 'job', 'get', job.id_str]),
      t.list<Job>(['ads', 'stats', 'job', 'list']),
    ]);
    expect(rows.map((r) => [r.id, r.impressions, r.billed_charge_local_micro])).toEqual(
      sync.map((r) => [r.id, r.impressions, r.billed_charge_local_micro]),
    );
    expect(got.status).toBe('SUCCESS');
    expect(listed[0]!.id_str).toBe(job.id_str); // newest first
    // The file as written: gzip of the synchronous schema.
    const res = await fetch(finished.url!);
    expect(res.headers.get('content-type')).toBe('application/gzip');
    const { gunzipSync } = await import('node:zlib');
    expect(JSON.parse(gunzipSync(Buffer.from(await res.arrayBuffer())).toString())).toMatchObject({
      data_type: 'stats',
      time_series_length: 1,
    });
    // 48 hours later the file is gone.
    await t.admin('POST', '/_sandbox/clock', { advance: '49h' });
    expect((await t.fails(1, ['ads', 'stats', 'job', 'download', job.id_str])).stderr).toMatch(/expired/);
  });

  it('64-bit ids keep every digit: `create --fields id -o tsv` then `wait` with what it printed', async () => {
    const args = [
      'ads',
      'stats',
      'job',
      'create',
      '--entity',
      'LINE_ITEM',
      '--ids',
      li,
      '--start',
      day0,
      '--end',
      day2,
      '--granularity',
      'TOTAL',
    ];
    const tsv = await t.run([...args, '--fields', 'id', '-o', 'tsv']);
    expect(tsv.code, tsv.stderr).toBe(0);
    const id = tsv.stdout.trim();
    expect(id).toMatch(/^\d{19}$/);
    const raw = await t.run([...args, '-o', 'jsonl']); // ...but xctl prints the digits it received
    expect(raw.stdout).toMatch(/^\{"id":(\d{19}),"id_str":"\1",/);
    const jq = await t.run([...args, '--jq', '[.id, .id_str] | map(tostring) | .[0] == .[1]']);
    expect(jq.stdout).toBe('true\n');
    const polls = () => t.requests.filter((l) => l.startsWith('GET /12/stats/jobs/accounts/')).length;
    const before = polls();
    const waiting = runCli(['ads', 'stats', 'job', 'wait', id, '--fields', 'id,status', '-o', 'tsv'], { env: t.env });
    for (let i = 0; i < 600 && polls() === before; i++) await new Promise((r) => setTimeout(r, 50));
    await t.admin('POST', '/_sandbox/clock', { advance: '5s' });
    const done = await waiting;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toBe(`${id}\tSUCCESS\n`);
  });

  it('segmented by GENDER: the segments add up to the total; cancel a queued job once', async () => {
    const seg = await t.json<Job>([
      'ads',
      'stats',
      'job',
      'create',
      '--entity',
      'LINE_ITEM',
      '--ids',
      li,
      '--start',
      day0,
      '--end',
      day2,
      '--granularity',
      'TOTAL',
      '--segmentation-type',
      'GENDER',
    ]);
    const other = await t.json<Job>([
      'ads',
      'stats',
      'job',
      'create',
      '--entity',
      'LINE_ITEM',
      '--ids',
      li,
      '--start',
      day0,
      '--end',
      day2,
    ]);
    expect((await t.json(['ads', 'stats', 'job', 'cancel', other.id_str])).status).toBe('CANCELLED');
    expect((await t.fails(1, ['ads', 'stats', 'job', 'cancel', other.id_str])).stderr).toMatch(
      /only QUEUED or PROCESSING jobs can be cancelled/,
    );
    await t.admin('POST', '/_sandbox/clock', { advance: '5s' });
    const [rows, total] = await Promise.all([
      t.list<StatRow>(['ads', 'stats', 'job', 'wait', seg.id_str, '--download']),
      t.list<StatRow>([
        'ads',
        'stats',
        '--entity',
        'LINE_ITEM',
        '--ids',
        li,
        '--start',
        day0,
        '--end',
        day2,
        '--granularity',
        'TOTAL',
      ]),
    ]);
    expect(rows.map((r) => r.segment)).toEqual(['Female', 'Male']);
    expect(sum(rows, 'impressions')).toBe(total[0]!.impressions);
    expect((await t.fails(1, ['ads', 'stats', 'job', 'wait', other.id_str])).stderr).toMatch(/ended CANCELLED/);
  });

  it('job rules: 90 days, 45 when segmented, METROS needs a country, CONVERSION_TAGS only for WEB_CONVERSION', async () => {
    const base = ['ads', 'stats', 'job', 'create', '--entity', 'LINE_ITEM', '--ids', li];
    const errs = await t.refusedAll([
      [...base, '--start', '2026-01-01', '--end', '2026-04-02'],
      [...base, '--start', '2026-01-01', '--end', '2026-02-16', '--segmentation-type', 'AGE'],
      [...base, '--start', '2026-01-01', '--end', '2026-01-02', '--segmentation-type', 'METROS'],
      [...base, '--start', '2026-01-01', '--end', '2026-01-02', '--segmentation-type', 'CONVERSION_TAGS'],
      [...base, '--start', '2026-01-01', '--end', '2026-01-02', '--segmentation-type', 'LANGUAGES'],
      ['ads', 'stats', 'job', 'get', 'abc'],
    ]);
    expect(errs[0]).toMatch(/--end must be at most 90 days after --start/);
    expect(errs[1]).toMatch(/--end must be at most 45 days after --start \(segmented\)/);
    expect(errs[2]).toMatch(/--country is required with --segmentation-type METROS/);
    expect(errs[3]).toMatch(/CONVERSION_TAGS is only for --metric-groups WEB_CONVERSION/);
    expect(errs[4]).toMatch(/--segmentation-type must be one of AGE/);
    expect(errs[5]).toMatch(/<job-id> must be the job's id_str/);
    // 90 days exactly is accepted.
    expect((await t.json([...base, '--start', '2026-01-01', '--end', '2026-04-01'])).status).toBe('QUEUED');
  });
});
