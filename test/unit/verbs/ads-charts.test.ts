// Charts of ads stats: `ads stats --chart` drawn in the terminal (80 and 160 columns, UTF-8 and
// ASCII; never when piped), the chart renderer itself, and `ads report`'s HTML and data, all
// in-process against fixed stats (the real sandbox and the browser are in test/e2e and
// test/browser).
import { describe, expect, it } from 'vitest';
import { lineChart, totalOf, utf8Locale } from '../../../src/core/chart.js';
import { esc, svgLineChart } from '../../../src/core/html-report.js';
import { bucketLabel, moneyOfMicros } from '../../../src/commands/ads/stats-output.js';
import { cpm, ctr, daysBetween, reportHtml, type AdsReport } from '../../../src/commands/ads/report.js';
import { HttpRegistry, json, route } from '../../helpers/http-registry.js';
import { useTestContexts } from '../../helpers/test-context.js';

const tc = useTestContexts();
const LI = '8v7jo';
const IMPRESSIONS = [120, 340, 90, 560, 410, 0, 275];
const MICROS = [1_500_000, 3_250_000, 0, 12_340_000, 8_000_000, 0, 4_990_000];
const STATS = {
  data_type: 'stats',
  time_series_length: 7,
  request: { params: { start_time: '2026-05-01T04:00:00Z', end_time: '2026-05-08T04:00:00Z', granularity: 'DAY' } },
  data: [
    {
      id: LI,
      id_data: [
        { segment: null, metrics: { impressions: IMPRESSIONS, engagements: null, billed_charge_local_micro: MICROS } },
      ],
    },
  ],
};
const statsHttp = () =>
  new HttpRegistry()
    .register(route('GET', '/12/stats/accounts/acct1'), json(STATS))
    .register(route('GET', '/12/accounts/acct1/funding_instruments'), json({ data: [{ id: 'fi1', currency: 'EUR' }] }))
    .register(route('GET', '/12/accounts/acct1'), json({ data: { id: 'acct1', timezone: 'America/New_York' } }));
const STATS_ARGV = [
  'ads',
  'stats',
  '--entity',
  'LINE_ITEM',
  '--ids',
  LI,
  '--start',
  '2026-05-01',
  '--end',
  '2026-05-08',
];

const BRAILLE = /[\u2800-\u28ff]/;
const width = (line: string) => [...line].length;

describe('lineChart', () => {
  const series = {
    title: 'impressions · 8v7jo',
    values: IMPRESSIONS,
    labels: ['May 1', 'May 2', 'May 3', 'May 4', 'May 5', 'May 6', 'May 7'],
    format: (v: number) => v.toLocaleString('en-US'),
  };
  for (const cols of [80, 160])
    for (const unicode of [true, false])
      it(`fits ${cols} columns (${unicode ? 'braille' : 'ASCII'}), labels the ends, totals the values`, () => {
        const lines = lineChart(series, { width: cols, height: 8, unicode });
        for (const l of lines) expect(width(l), l).toBeLessThanOrEqual(cols);
        expect(lines[0]).toBe('impressions · 8v7jo · total 1,795 over 7 buckets');
        expect(lines[1]).toMatch(/^560 [┤+]/);
        expect(lines[8]).toMatch(/^ {2}0 [┤+]/);
        expect(lines.at(-1)).toMatch(/^ {5}May 1 +May 7$/);
        expect(width(lines.at(-1)!)).toBe(cols);
        const plot = lines.slice(1, 9).join('\n');
        if (unicode) expect(plot).toMatch(BRAILLE);
        else expect(lines.join('\n')).toMatch(/^[\x20-\x7e\n·]*$/);
      });

  it('draws the highest value on the top row and the lowest on the bottom row, in order', () => {
    const lines = lineChart({ ...series, values: [0, 10] }, { width: 20, height: 4, unicode: false });
    const rows = lines.slice(1, 5).map((l) => l.slice(l.indexOf('+') + 1 || l.indexOf('|') + 1));
    expect(rows[0]!.trimEnd().endsWith('*')).toBe(true); // 10, at the right end, on top
    expect(rows[3]!.startsWith('*')).toBe(true); // 0, at the left end, at the bottom
  });

  it('leaves a gap at a missing value, and a flat series sits in the middle', () => {
    const gap = lineChart({ ...series, values: [5, null, 5] }, { width: 30, height: 3, unicode: false });
    expect(gap[2]).toMatch(/\*\s+\*/);
    expect(gap[0]).toContain('total 10 over 3 buckets');
    expect(totalOf([1, null, 2])).toBe(3);
  });

  it('reads UTF-8 from LC_ALL, then LC_CTYPE, then LANG', () => {
    expect(utf8Locale({ LANG: 'en_US.UTF-8' })).toBe(true);
    expect(utf8Locale({ LC_ALL: 'C', LANG: 'en_US.UTF-8' })).toBe(false);
    expect(utf8Locale({ LC_CTYPE: 'de_DE.utf8' })).toBe(true);
    expect(utf8Locale({})).toBe(false);
  });
});

describe('money and time labels', () => {
  it('micros as currency units, exactly', () => {
    expect(moneyOfMicros(12_340_000, 'USD')).toBe('12.34 USD');
    expect(moneyOfMicros(1_234_567_890_000)).toBe('1,234,567.89');
    expect(moneyOfMicros(0, 'EUR')).toBe('0.00 EUR');
    expect(moneyOfMicros(-5_000_000)).toBe('-5.00');
  });
  it("a bucket's start in the account's timezone", () => {
    expect(bucketLabel('2026-05-01T04:00:00Z', 'America/New_York', false)).toBe('May 1');
    expect(bucketLabel('2026-05-01T04:00:00Z', 'America/New_York', true)).toBe('May 1 00:00');
    expect(bucketLabel('2026-05-01T04:00:00Z', 'Asia/Tokyo', true)).toBe('May 1 13:00');
  });
});

describe('ads stats --chart', () => {
  for (const columns of [80, 160])
    it(`draws impressions and billed spend at ${columns} columns, in the account's timezone and currency`, async () => {
      const t = tc({ transport: statsHttp(), tty: true, columns, env: { LANG: 'en_US.UTF-8' } });
      await t.run([...STATS_ARGV, '--chart']);
      const out = t.stdout();
      const lines = out.trimEnd().split('\n');
      for (const l of lines) expect(width(l), l).toBeLessThanOrEqual(columns);
      expect(lines[0]).toBe('times in America/New_York; money in EUR');
      expect(out).toContain('impressions · 8v7jo · total 1,795 over 7 buckets');
      expect(out).toContain('billed spend · 8v7jo · total 30.08 EUR over 7 buckets');
      expect(out).toContain('12.34 EUR ┤');
      expect(out).not.toContain('engagements'); // null in the answer: nothing to draw
      expect(out).toMatch(/May 1 +May 7\n/);
      expect(out).toMatch(BRAILLE);
    });

  it('ASCII where the locale is not UTF-8; --fields picks the metrics', async () => {
    const t = tc({ transport: statsHttp(), tty: true, columns: 80, env: { LANG: 'C' } });
    await t.run([...STATS_ARGV, '--chart', '--fields', 'impressions']);
    expect(t.stdout()).not.toMatch(BRAILLE);
    expect(t.stdout()).toMatch(/^[\x20-\x7e\n·]*$/);
    expect(t.stdout()).toContain('impressions · 8v7jo · total 1,795');
    expect(t.stdout()).not.toContain('billed spend');
  });

  it('piped: the data as without --chart, and a word on stderr', async () => {
    const plain = tc({ transport: statsHttp() });
    await plain.run(STATS_ARGV);
    const t = tc({ transport: statsHttp() });
    await t.run([...STATS_ARGV, '--chart']);
    expect(t.stdout()).toBe(plain.stdout());
    expect(t.stdout().split('\n')[0]).toBe(`${LI}\t2026-05-01T04:00:00Z\t2026-05-02T04:00:00Z\t120\t\t1500000\tEUR`);
    expect(t.stderr()).toContain('--chart draws on a terminal only');
  });

  it('escapes an id from the service that carries control characters', async () => {
    const evil = { ...STATS, data: [{ ...STATS.data[0]!, id: 'x\u001b]0;pwned\u0007' }] };
    const http = new HttpRegistry()
      .register(route('GET', '/12/stats/accounts/acct1'), json(evil))
      .register(route('GET', '/12/accounts/acct1/funding_instruments'), json({ data: [] }))
      .register(route('GET', '/12/accounts/acct1'), json({ data: { id: 'acct1', timezone: 'UTC' } }));
    const t = tc({ transport: http, tty: true, env: { LANG: 'C.UTF-8' } });
    await t.run([...STATS_ARGV, '--chart']);
    expect(t.stdout()).not.toContain('\u001b');
    expect(t.stdout()).toContain('x\\u001b]0;pwned\\u0007');
  });
});

const REPORT: AdsReport = {
  account: { id: 'acct1', name: 'Shop <b>&</b> Co', timezone: 'Europe/Paris', currency: 'EUR' },
  start: '2026-05-01',
  end: '2026-05-04',
  days: ['2026-05-01', '2026-05-02', '2026-05-03'],
  campaigns: [
    {
      id: 'c1',
      name: '<script>alert(1)</script>',
      daily: {
        impressions: [1000, 2000, 0],
        engagements: [10, 30, 0],
        clicks: [5, 8, 0],
        billed_charge_local_micro: [2_000_000, 5_500_000, 0],
      },
      total: { impressions: 3000, engagements: 40, clicks: 13, billed_charge_local_micro: 7_500_000 },
      line_items: [],
    },
  ],
  requests: ['GET /12/accounts/acct1'],
};

describe('ads report', () => {
  it('CTR and CPM', () => {
    expect(ctr(13, 3000)).toBe('0.43%');
    expect(ctr(1, 0)).toBe('-');
    expect(cpm(7_500_000, 3000, 'EUR')).toBe('2.50 EUR');
    expect(daysBetween('2026-05-01', '2026-05-04')).toEqual(['2026-05-01', '2026-05-02', '2026-05-03']);
  });

  it('HTML: self-contained, escaped, every point and total carried as data', () => {
    const html = reportHtml(REPORT, 'xctl ads report --campaign-ids c1 --start 2026-05-01 --end 2026-05-04');
    expect(html).not.toContain('<script>');
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(html).toContain('Shop &#60;b&#62;&#38;&#60;/b&#62; Co');
    expect(html).not.toMatch(/\b(src|href)=|@import|url\(/);
    expect(html).toContain("default-src 'none'");
    const points = [
      ...html.matchAll(/data-metric="(\w+)" data-series="[^"]*" data-label="([\d-]+)" data-value="(\d+)"/g),
    ];
    expect(points.map((m) => `${m[1]} ${m[2]} ${m[3]}`)).toEqual([
      'billed_charge_local_micro 2026-05-01 2000000',
      'billed_charge_local_micro 2026-05-02 5500000',
      'billed_charge_local_micro 2026-05-03 0',
      'impressions 2026-05-01 1000',
      'impressions 2026-05-02 2000',
      'impressions 2026-05-03 0',
      'engagements 2026-05-01 10',
      'engagements 2026-05-02 30',
      'engagements 2026-05-03 0',
    ]);
    expect(html).toContain('data-entity="c1" data-spend-micro="7500000" data-impressions="3000"');
    expect(html).toContain('<td>7.50 EUR</td><td>3,000</td><td>40</td><td>0.43%</td><td>2.50 EUR</td>');
    expect(html).toContain('days in Europe/Paris · money in EUR');
  });

  it('an SVG chart escapes series names', () => {
    const svg = svgLineChart({
      title: 't',
      metric: 'm',
      labels: ['a"b'],
      series: [{ name: '"><img src=x>', values: [1] }],
      format: String,
    });
    expect(svg).not.toContain('<img');
    expect(esc('"\'<>&')).toBe('&#34;&#39;&#60;&#62;&#38;');
  });

  it('refuses every bad flag at once, before sending anything', async () => {
    const http = new HttpRegistry();
    const t = tc({ transport: http });
    await expect(t.run(['ads', 'report', '--campaign-ids', 'a;b', '--start', '2026-02-30'])).rejects.toThrow(
      /--campaign-ids: "a;b" is not a campaign id; --start must be a date such as 2026-05-19 \(got "2026-02-30"\); --end is required/,
    );
    await expect(
      t.run(['ads', 'report', '--campaign-ids', 'c1', '--start', '2026-01-01', '--end', '2026-05-01']),
    ).rejects.toThrow(/at most 90 days/);
    expect(http.requests).toEqual([]);
  });
});
