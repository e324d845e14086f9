// Stats responses as rows: one per entity, segment and time bucket, every requested metric a
// column (conversion objects as metric.key). Micros stay integers (json, jsonl, tsv); the
// currency rides along so a table can show them as money.
import type { Context } from '../../context.js';
import { printList, type Rec } from '../../core/output.js';
import { parseInstant, isoSeconds } from '../../contract/time.js';

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
async function accountCurrency(ctx: Context): Promise<string | undefined> {
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

export async function printStats(ctx: Context, env: StatsEnvelope, columns: string[]): Promise<void> {
  const settings = await ctx.output();
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
