// `xctl ads report`: a campaign report as one self-contained HTML file (inline SVG and CSS, no
// script, no network): spend, impressions, engagements, CTR and CPM a day for each campaign and
// its line items, totals from the service's TOTAL granularity, the account's currency and
// timezone, and every request the numbers came from. `-o json` prints the same data instead.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { ApiError, UsageError } from '../../core/errors.js';
import { esc, htmlPage, htmlTable, svgLineChart } from '../../core/html-report.js';
import { printJson } from '../../core/output.js';
import { parseInstant } from '../../contract/time.js';
import { declare } from '../define.js';
import { SYNC_RANGE_DAYS, STATS_IDS_MAX } from '../../ads/resources/stats.js';
import { accountCurrency, moneyOfMicros, type StatsEnvelope } from './stats-output.js';

const DAY_MS = 86_400_000;
/** Longest report: stats are asked for 7 days a request, so 90 days is 13 requests an entity batch. */
export const REPORT_MAX_DAYS = 90;
const METRICS = ['impressions', 'engagements', 'clicks', 'billed_charge_local_micro'] as const;
type Metric = (typeof METRICS)[number];
type Numbers = Record<Metric, number>;
type Daily = Record<Metric, Array<number | null>>;

export interface EntityReport {
  id: string;
  name: string;
  daily: Daily;
  /** From the service's TOTAL granularity (summed over the 7-day windows of a longer report). */
  total: Numbers;
}
export interface CampaignReport extends EntityReport {
  line_items: EntityReport[];
}
export interface AdsReport {
  account: { id: string; name: string; timezone: string; currency: string | null };
  start: string;
  end: string;
  /** The days, as dates in the account's timezone. */
  days: string[];
  campaigns: CampaignReport[];
  /** Every GET the numbers came from: path and query, no credentials. */
  requests: string[];
}

export interface ReportOptions {
  campaignIds: string;
  start: string;
  end: string;
  out?: string;
  open?: boolean;
}

export function register(ads: Command, runF = reportRun): void {
  declare(ads, {
    name: 'report',
    description: 'a campaign report as one self-contained HTML file: spend, impressions, engagements, CTR, CPM a day',
    options: [
      ['--campaign-ids <ids>', `campaigns to report on, comma-separated (1-${STATS_IDS_MAX}; required)`],
      ['--start <date>', 'first day, YYYY-MM-DD in the account timezone (required)'],
      ['--end <date>', `day after the last, YYYY-MM-DD (exclusive; at most ${REPORT_MAX_DAYS} days; required)`],
      ['--out <file>', 'write the HTML here (default on a terminal: ads-report-<account>-<start>-<end>.html)'],
      ['--open', 'open the written file in the browser'],
    ],
    run: (ctx, o) =>
      runF(ctx, {
        campaignIds: o.campaignIds ?? '',
        start: o.start ?? '',
        end: o.end ?? '',
        ...(o.out !== undefined ? { out: o.out } : {}),
        ...(o.open ? { open: true } : {}),
      }),
  });
}

/** The days from start (inclusive) to end (exclusive) as YYYY-MM-DD. */
export function daysBetween(start: string, end: string): string[] {
  const out: string[] = [];
  for (let t = parseInstant(start)!; t < parseInstant(end)!; t += DAY_MS)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

function checkOptions(o: ReportOptions): { ids: string[]; days: string[] } {
  const problems: string[] = [];
  const ids = o.campaignIds
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!o.campaignIds) problems.push('--campaign-ids is required');
  else if (ids.length === 0 || ids.length > STATS_IDS_MAX)
    problems.push(`--campaign-ids takes 1 to ${STATS_IDS_MAX} ids (got ${ids.length})`);
  else if (ids.some((id) => !/^[a-z0-9]{1,32}$/i.test(id)))
    problems.push(`--campaign-ids: "${ids.find((id) => !/^[a-z0-9]{1,32}$/i.test(id))}" is not a campaign id`);
  for (const [flag, v] of [
    ['--start', o.start],
    ['--end', o.end],
  ] as const) {
    if (!v) problems.push(`${flag} is required`);
    else if (!/^\d{4}-\d{2}-\d{2}$/.test(v) || parseInstant(v) === undefined)
      problems.push(`${flag} must be a date such as 2026-05-19 (got "${v}")`);
  }
  if (problems.length) throw new UsageError(problems.join('; '));
  const days = daysBetween(o.start, o.end);
  if (days.length === 0) throw new UsageError('--end must be after --start', { flag: '--end' });
  if (days.length > REPORT_MAX_DAYS)
    throw new UsageError(`--end must be at most ${REPORT_MAX_DAYS} days after --start (got ${days.length})`, {
      flag: '--end',
    });
  return { ids: [...new Set(ids)], days };
}

/** GET of the ads API, its path and query kept for the report's list of requests. */
async function get<T>(ctx: Context, report: { requests: string[] }, p: string, query: Record<string, string> = {}) {
  const http = await ctx.http();
  const qs = new URLSearchParams(query).toString();
  report.requests.push(`GET ${p}${qs ? `?${qs}` : ''}`);
  const res = await http.request<T>({ method: 'GET', host: 'ads', path: p, auth: 'user', query });
  return res.data;
}

interface Named {
  id: string;
  name?: unknown;
  campaign_id?: unknown;
}

/** Every record of a list (following next_cursor). */
async function all(ctx: Context, r: { requests: string[] }, p: string, query: Record<string, string>) {
  const out: Named[] = [];
  let cursor: string | undefined;
  do {
    const page = await get<{ data?: Named[]; next_cursor?: string | null }>(ctx, r, p, {
      ...query,
      ...(cursor ? { cursor } : {}),
    });
    out.push(...(page?.data ?? []));
    cursor = page?.next_cursor ?? undefined;
  } while (cursor);
  return out;
}

const zeros = (): Numbers => ({ impressions: 0, engagements: 0, clicks: 0, billed_charge_local_micro: 0 });
const emptyDaily = (n: number): Daily => ({
  impressions: new Array(n).fill(null),
  engagements: new Array(n).fill(null),
  clicks: new Array(n).fill(null),
  billed_charge_local_micro: new Array(n).fill(null),
});

/** The first number of a metric array (TOTAL) or its i-th (DAY). */
const at = (m: Record<string, unknown> | undefined, k: Metric, i: number): number | null => {
  const v = m?.[k];
  return Array.isArray(v) && typeof v[i] === 'number' ? v[i] : null;
};

/** DAY and TOTAL stats of entities, 20 ids and 7 days a request. */
async function statsOf(
  ctx: Context,
  r: AdsReport,
  entity: 'CAMPAIGN' | 'LINE_ITEM',
  ids: string[],
): Promise<Map<string, { daily: Daily; total: Numbers }>> {
  const out = new Map(ids.map((id) => [id, { daily: emptyDaily(r.days.length), total: zeros() }]));
  const p = `/12/stats/accounts/${encodeURIComponent(r.account.id)}`;
  for (let i = 0; i < ids.length; i += STATS_IDS_MAX) {
    const batch = ids.slice(i, i + STATS_IDS_MAX);
    for (let d = 0; d < r.days.length; d += SYNC_RANGE_DAYS) {
      const from = r.days[d]!;
      const to = d + SYNC_RANGE_DAYS < r.days.length ? r.days[d + SYNC_RANGE_DAYS]! : r.end;
      const query = (granularity: string) => ({
        entity,
        entity_ids: batch.join(','),
        start_time: from,
        end_time: to,
        granularity,
        metric_groups: 'ENGAGEMENT,BILLING',
        placement: 'ALL_ON_TWITTER',
      });
      const daily = await get<StatsEnvelope>(ctx, r, p, query('DAY'));
      const total = await get<StatsEnvelope>(ctx, r, p, query('TOTAL'));
      for (const item of daily?.data ?? []) {
        const e = out.get(item.id);
        const m = item.id_data?.[0]?.metrics;
        if (!e) continue;
        for (const k of METRICS)
          for (let j = 0; j < Math.min(SYNC_RANGE_DAYS, r.days.length - d); j++) e.daily[k][d + j] = at(m, k, j);
      }
      for (const item of total?.data ?? []) {
        const e = out.get(item.id);
        const m = item.id_data?.[0]?.metrics;
        if (e) for (const k of METRICS) e.total[k] += at(m, k, 0) ?? 0;
      }
    }
  }
  return out;
}

/** Reads everything the report shows from the service. */
export async function collectReport(ctx: Context, o: ReportOptions): Promise<AdsReport> {
  const { ids, days } = checkOptions(o);
  const accountId = await ctx.accountId();
  const r: AdsReport = {
    account: { id: accountId, name: '', timezone: 'UTC', currency: null },
    start: o.start,
    end: o.end,
    days,
    campaigns: [],
    requests: [],
  };
  const acct = `/12/accounts/${encodeURIComponent(accountId)}`;
  const a = await get<{ data?: { name?: unknown; timezone?: unknown } }>(ctx, r, acct);
  r.account.name = String(a?.data?.name ?? '');
  if (typeof a?.data?.timezone === 'string') r.account.timezone = a.data.timezone;
  r.account.currency = (await accountCurrency(ctx)) ?? null;
  const campaigns = await all(ctx, r, `${acct}/campaigns`, { campaign_ids: ids.join(','), with_deleted: 'true' });
  const missing = ids.filter((id) => !campaigns.some((c) => c.id === id));
  if (missing.length) throw new ApiError(`no campaign ${missing.join(', ')} in account ${accountId}`);
  const lineItems = await all(ctx, r, `${acct}/line_items`, {
    campaign_ids: ids.join(','),
    with_deleted: 'true',
    count: '1000',
  });
  const cStats = await statsOf(ctx, r, 'CAMPAIGN', ids);
  const lStats = await statsOf(
    ctx,
    r,
    'LINE_ITEM',
    lineItems.map((l) => l.id),
  );
  for (const id of ids) {
    const c = campaigns.find((x) => x.id === id)!;
    r.campaigns.push({
      id,
      name: String(c.name ?? ''),
      ...cStats.get(id)!,
      line_items: lineItems
        .filter((l) => l.campaign_id === id)
        .map((l) => ({ id: l.id, name: String(l.name ?? ''), ...lStats.get(l.id)! })),
    });
  }
  return r;
}

/** CTR (clicks per impression) as a percentage, 2 decimals; "-" without impressions. */
export const ctr = (clicks: number, impressions: number) =>
  impressions ? `${((clicks * 100) / impressions).toFixed(2)}%` : '-';
/** CPM: spend per thousand impressions, in currency units. */
export const cpm = (micros: number, impressions: number, currency: string | null) =>
  impressions ? moneyOfMicros((micros * 1000) / impressions, currency ?? undefined) : '-';

function entityTable(r: AdsReport, e: EntityReport): string {
  const cur = r.account.currency;
  const rows = r.days.map((d, i) => {
    const n = (k: Metric) => e.daily[k][i] ?? 0;
    return [
      d,
      moneyOfMicros(n('billed_charge_local_micro'), cur ?? undefined),
      n('impressions').toLocaleString('en-US'),
      n('engagements').toLocaleString('en-US'),
      ctr(n('clicks'), n('impressions')),
      cpm(n('billed_charge_local_micro'), n('impressions'), cur),
    ];
  });
  const t = e.total;
  const total = [
    'total',
    moneyOfMicros(t.billed_charge_local_micro, cur ?? undefined),
    t.impressions.toLocaleString('en-US'),
    t.engagements.toLocaleString('en-US'),
    ctr(t.clicks, t.impressions),
    cpm(t.billed_charge_local_micro, t.impressions, cur),
  ];
  const html = htmlTable(['day', 'spend', 'impressions', 'engagements', 'CTR', 'CPM'], rows);
  const totalRow =
    `<tr class="total" data-entity="${esc(e.id)}" data-spend-micro="${t.billed_charge_local_micro}"` +
    ` data-impressions="${t.impressions}" data-engagements="${t.engagements}" data-clicks="${t.clicks}">` +
    `${total.map((v) => `<td>${esc(v)}</td>`).join('')}</tr>`;
  return html.replace('\n</tbody>', `\n${totalRow}\n</tbody>`);
}

const CHARTS: Array<{ metric: Metric; title: string }> = [
  { metric: 'billed_charge_local_micro', title: 'spend' },
  { metric: 'impressions', title: 'impressions' },
  { metric: 'engagements', title: 'engagements' },
];

/** The report as one HTML page. */
export function reportHtml(r: AdsReport, commandLine: string): string {
  const cur = r.account.currency;
  const fmt = (m: Metric) =>
    m === 'billed_charge_local_micro'
      ? (v: number) => moneyOfMicros(v, cur ?? undefined)
      : (v: number) => v.toLocaleString('en-US');
  const last = r.days[r.days.length - 1]!;
  const body: string[] = [
    `<h1>Ads report: ${esc(r.account.name || r.account.id)}</h1>`,
    `<p class="meta">account ${esc(r.account.id)} · ${esc(r.start)} to ${esc(last)} (${r.days.length} days) · ` +
      `days in ${esc(r.account.timezone)} · money in ${esc(cur ?? 'the funding instruments\u2019 currencies')}</p>`,
    '<h2>All campaigns</h2><div class="charts">',
    ...CHARTS.map((c) =>
      svgLineChart({
        title: `${c.title} a day${c.metric === 'billed_charge_local_micro' && cur ? ` (${cur})` : ''}`,
        metric: c.metric,
        labels: r.days,
        series: r.campaigns.map((k) => ({ name: `${k.name} (${k.id})`, values: k.daily[c.metric] })),
        format: fmt(c.metric),
      }),
    ),
    '</div>',
  ];
  for (const c of r.campaigns) {
    body.push(`<h2 id="c-${esc(c.id)}">Campaign ${esc(c.name)} <small>(${esc(c.id)})</small></h2>`, entityTable(r, c));
    if (c.line_items.length) {
      body.push(
        '<div class="charts">',
        ...CHARTS.map((k) =>
          svgLineChart({
            title: `${k.title} a day by line item`,
            metric: k.metric,
            labels: r.days,
            series: c.line_items.map((l) => ({ name: `${l.name} (${l.id})`, values: l.daily[k.metric] })),
            format: fmt(k.metric),
          }),
        ),
        '</div>',
      );
      for (const l of c.line_items)
        body.push(`<h3>Line item ${esc(l.name)} <small>(${esc(l.id)})</small></h3>`, entityTable(r, l));
    }
  }
  body.push(
    `<details><summary>How this report was made</summary><p>Command:</p><pre>${esc(commandLine)}</pre>` +
      `<p>Requests (totals from granularity TOTAL, days from DAY):</p><pre>${esc(r.requests.join('\n'))}</pre></details>`,
  );
  return htmlPage(`Ads report ${r.account.id} ${r.start} to ${last}`, body.join('\n'));
}

/** The command line (its values are checked ids and dates: nothing to quote). */
function commandLine(o: ReportOptions): string {
  return `xctl ads report --campaign-ids ${o.campaignIds} --start ${o.start} --end ${o.end}`;
}

export async function reportRun(ctx: Context, o: ReportOptions): Promise<void> {
  const settings = await ctx.output();
  // HTML is the report; -o json (or --jq) gives its data. A table or tsv has no meaning here.
  const r = await collectReport(ctx, o);
  if (settings.format === 'json' || settings.jq !== undefined) return printJson(ctx.io, settings, r);
  const html = reportHtml(r, commandLine(o));
  const out =
    o.out ?? (ctx.io.isStdoutTTY || o.open ? `ads-report-${r.account.id}-${r.start}-${r.end}.html` : undefined);
  if (out === undefined) return void ctx.io.raw(html);
  const file = path.resolve(ctx.cwd, out);
  fs.writeFileSync(file, html);
  ctx.io.info(`wrote ${file} (${Buffer.byteLength(html)} bytes)`);
  if (o.open) await (await import('open')).default(file, { wait: false });
}
