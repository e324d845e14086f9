// Stats responses as rows: one per entity, segment and time bucket, every requested metric a
// column (conversion objects as metric.key). Micros stay integers (json, jsonl, tsv); the
// currency rides along so a table can show them as money.
import type { Context } from '../../context.js';
import { effectiveFormat, printList, type Rec } from '../../core/output.js';
import { parseInstant, isoSeconds } from '../../contract/time.js';
import { lineChart, utf8Locale } from '../../core/chart.js';
import { escapeForTerminal } from '../../core/sanitize.js';

export interface StatsEnvelope {
  data?: Array<{
    id: string;
    id_data?: Array<{
      segment?: { segment_name?: string; segment_value?: string } | null;
      metrics?: Record<string, unknown>;
    }>;
  }>;
  time_series_length?: number;
  request?: { params?: Record<string, unknown> };
}

const STEP: Record<string, number> = { HOUR: 3600_000, DAY: 86_400_000 };

/** The rows of a stats response (sync, or the file of a job). */
export function statsRows(env: StatsEnvelope, currency?: string): Rec[] {
  const params = env.request?.params ?? {};
  const n = env.time_series_length ?? 1;
  const start = typeof params.start_time === 'string' ? parseInstant(params.start_time) : undefined;
  const end = typeof params.end_time === 'string' ? parseInstant(params.end_time) : undefined;
  const step = STEP[String(params.granularity)] ?? (start !== undefined && end !== undefined ? end - start : 0);
  const rows: Rec[] = [];
  for (const item of env.data ?? []) {
    for (const d of item.id_data ?? []) {
      for (let i = 0; i < n; i++) {
        const row: Rec = { id: item.id };
        if (d.segment) row.segment = d.segment.segment_name ?? d.segment.segment_value ?? null;
        if (start !== undefined) {
          row.start = isoSeconds(start + i * step);
          row.end = isoSeconds(end !== undefined ? Math.min(end, start + (i + 1) * step) : start + (i + 1) * step);
        }
        for (const [name, v] of Object.entries(d.metrics ?? {})) {
          if (Array.isArray(v) || v === null) row[name] = Array.isArray(v) ? (v[i] ?? null) : null;
          else if (typeof v === 'object')
            for (const [k, arr] of Object.entries(v as Record<string, unknown>))
              row[`${name}.${k}`] = Array.isArray(arr) ? (arr[i] ?? null) : null;
        }
        if ('billed_charge_local_micro' in row && currency) row.currency = currency;
        rows.push(row);
      }
    }
  }
  return rows;
}

/** The currency of the account's funding instruments when they all share one (for money in tables). */
export async function accountCurrency(ctx: Context): Promise<string | undefined> {
  try {
    const http = await ctx.http();
    const res = await http.request<{ data?: Array<{ currency?: string }> }>({
      method: 'GET',
      host: 'ads',
      path: `/12/accounts/${encodeURIComponent(await ctx.accountId())}/funding_instruments`,
      auth: 'user',
      retry: false,
    });
    const all = new Set((res.data?.data ?? []).map((f) => f.currency).filter(Boolean));
    return all.size === 1 ? [...all][0] : undefined;
  } catch {
    return undefined; // money is then shown without a currency
  }
}

const LEAD = ['id', 'segment', 'start', 'end'];

export async function printStats(
  ctx: Context,
  env: StatsEnvelope,
  columns: string[],
  o: { chart?: boolean } = {},
): Promise<void> {
  const settings = await ctx.output();
  if (o.chart) {
    // A chart is for a person at a terminal; anything else gets the data, as without --chart.
    if (effectiveFormat(ctx.io, settings) === 'table') return printStatsCharts(ctx, env, settings.fields);
    ctx.io.info('--chart draws on a terminal only: the data follows as without it');
  }
  const wantsBilling = (env.data ?? []).some((x) =>
    x.id_data?.some((d) => d.metrics && 'billed_charge_local_micro' in d.metrics),
  );
  const rows = statsRows(env, wantsBilling ? await accountCurrency(ctx) : undefined);
  // Table columns: the resource's, when the response carries them, then the other metrics that have data.
  const present = new Set(rows.flatMap((r) => Object.keys(r)));
  const cols = [...LEAD.filter((c) => present.has(c)), ...columns.filter((c) => !LEAD.includes(c) && present.has(c))];
  for (const c of present)
    if (!cols.includes(c) && c !== 'currency' && rows.some((r) => r[c] !== null && r[c] !== 0)) cols.push(c);
  if (present.has('currency')) cols.push('currency');
  await printList(ctx.io, settings, rows, { columns: cols });
}

/** What a chart shows by default: counts people read, and the spend (in currency units). */
const CHART_METRICS = ['impressions', 'engagements', 'clicks', 'billed_engagements', 'billed_charge_local_micro'];

/** The account's timezone (GET /12/accounts/:account_id), for the buckets' labels; UTC when unknown. */
async function accountTimezone(ctx: Context): Promise<string> {
  try {
    const http = await ctx.http();
    const res = await http.request<{ data?: { timezone?: unknown } }>({
      method: 'GET',
      host: 'ads',
      path: `/12/accounts/${encodeURIComponent(await ctx.accountId())}`,
      auth: 'user',
      retry: false,
    });
    const tz = res.data?.data?.timezone;
    if (typeof tz === 'string') new Intl.DateTimeFormat('en-US', { timeZone: tz }); // throws on a bad name
    return typeof tz === 'string' ? tz : 'UTC';
  } catch {
    return 'UTC';
  }
}

/** A bucket's label: its start in the account's timezone (the hour too for HOUR buckets). */
export function bucketLabel(iso: string, tz: string, hourly: boolean): string {
  const f = new Intl.DateTimeFormat('en-US', {
    timeZone: tz,
    month: 'short',
    day: 'numeric',
    ...(hourly ? { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' } : {}),
  });
  return f.format(new Date(iso)).replace(',', '');
}

/** Micros as currency units: 12340000 -> "12.34 USD" (exact: integer arithmetic). */
export function moneyOfMicros(micros: number, currency?: string): string {
  const cents = Math.round(micros / 10_000);
  const sign = cents < 0 ? '-' : '';
  const a = Math.abs(cents);
  const units = `${sign}${Math.floor(a / 100).toLocaleString('en-US')}.${String(a % 100).padStart(2, '0')}`;
  return currency ? `${units} ${currency}` : units;
}

/** The stats as line charts: one a metric, for each entity (and segment), over the buckets. */
async function printStatsCharts(ctx: Context, env: StatsEnvelope, fields?: string[]): Promise<void> {
  const wantsBilling = (env.data ?? []).some((x) =>
    x.id_data?.some((d) => d.metrics && 'billed_charge_local_micro' in d.metrics),
  );
  const currency = wantsBilling ? await accountCurrency(ctx) : undefined;
  const rows = statsRows(env, currency);
  const tz = await accountTimezone(ctx);
  const hourly = env.request?.params?.granularity === 'HOUR';
  const metrics = fields ?? CHART_METRICS;
  const width = Math.min(ctx.io.stdout.columns || ctx.io.envColumns || 80, 160);
  const unicode = utf8Locale(ctx.env);
  const keys = [...new Set(rows.map((r) => `${String(r.id)}\u0000${String(r.segment ?? '')}`))];
  const out: string[] = [`times in ${tz}${currency ? `; money in ${currency}` : ''}`];
  for (const key of keys) {
    const [id = '', segment = ''] = key.split('\u0000');
    const mine = rows.filter((r) => String(r.id) === id && String(r.segment ?? '') === segment);
    for (const m of metrics) {
      if (!mine.some((r) => typeof r[m] === 'number')) continue;
      const money = m === 'billed_charge_local_micro';
      const values = mine.map((r) => {
        const v = r[m];
        return typeof v === 'number' ? v : null;
      });
      const name = money ? 'billed spend' : m.replace(/_/g, ' ');
      out.push(
        '',
        ...lineChart(
          {
            title: escapeForTerminal(`${name} · ${id}${segment ? ` · ${segment}` : ''}`),
            values,
            labels: mine.map((r) => (typeof r.start === 'string' ? bucketLabel(r.start, tz, hourly) : '')),
            format: money ? (v) => moneyOfMicros(v, currency) : (v) => v.toLocaleString('en-US'),
          },
          { width: width - 1, height: 8, unicode },
        ),
      );
    }
  }
  if (out.length === 1) out.push('', 'nothing to chart: the answer holds none of the metrics asked for');
  ctx.io.out(escapeForTerminal(out.join('\n'), { keepLayout: true }));
}
