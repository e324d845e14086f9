// `audiences upload|sync --report FILE.html`: the run as one self-contained HTML page: rows
// read, rejected by reason (with line numbers), blanks and duplicates, batches sent and re-sent,
// throughput over time, the plan's adds and removes (sync), and the service's audience size
// before and after. Written whatever the exit, so a run that stopped part-way has its report too.
import fs from 'node:fs';
import path from 'node:path';
import type { Context } from '../../context.js';
import { UsageError, XctlError } from '../../core/errors.js';
import { esc, htmlPage, htmlTable, svgLineChart } from '../../core/html-report.js';
import { statusOf } from './partial.js';

export const REPORT_OPTION = [
  '--report <file.html>',
  "write an HTML report of the run: rows, rejects by reason with line numbers, batches, throughput, the audience's size before and after",
] as const;

export interface RunReportInfo {
  /** The --report file; nothing is done without it. */
  file?: string;
  kind: 'upload' | 'sync';
  accountId: string;
  /** A custom audience (its size is read before and after); absent for a do-not-reach list. */
  audienceId?: string;
  listId: string;
  input: string;
  /** --rejects, when given (else they are written beside the report: NAME.rejects.csv). */
  rejects?: string;
  /** Nothing is sent (dry run, plan): the size is read once. */
  sendsNothing?: boolean;
  /** Other files of the run the report must not overwrite. */
  others?: Array<string | undefined>;
}

interface Sample {
  ms: number;
  read: number;
  acknowledged: number;
}

/** At most this many throughput samples: past it, every other one is dropped (the curve keeps its shape). */
const MAX_SAMPLES = 400;
/** Reject rows listed one by one (all are counted by reason). */
const MAX_LISTED = 200;

/** A file the report would overwrite that the run reads or writes: refused before anything runs. */
function checkReportPath(info: RunReportInfo, file: string, flag = '--report'): void {
  const real = (p: string) => {
    try {
      return fs.realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  const mine = real(file);
  for (const other of [info.input, info.rejects, ...(info.others ?? [])]) {
    if (other && other !== '-' && real(other) === mine)
      throw new UsageError(`${flag} ${file} is also a file of this run (${other}): choose another`, { flag });
  }
}

/** GET /12/accounts/:account_id/custom_audiences/:id: its audience_size, or null when it cannot be read. */
async function audienceSize(ctx: Context, info: RunReportInfo): Promise<number | null> {
  if (!info.audienceId) return null;
  try {
    const http = await ctx.http();
    const res = await http.request<{ data?: { audience_size?: unknown } }>({
      method: 'GET',
      host: 'ads',
      path: `/12/accounts/${encodeURIComponent(info.accountId)}/custom_audiences/${encodeURIComponent(info.audienceId)}`,
      auth: 'user',
      retry: false,
    });
    const n = res.data?.data?.audience_size;
    return typeof n === 'number' ? n : null;
  } catch {
    return null;
  }
}

/** The rows of a rejects file (line,column,reason as csv), counted by reason; the first ones listed. */
export function readRejects(file: string): { byReason: Map<string, number>; listed: string[][]; total: number } {
  const byReason = new Map<string, number>();
  const listed: string[][] = [];
  let total = 0;
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return { byReason, listed, total };
  }
  const rows = parseCsv(text).slice(1);
  for (const row of rows) {
    if (row.length < 3) continue;
    total++;
    const reason = row.slice(2).join(',');
    byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
    if (listed.length < MAX_LISTED) listed.push([row[0]!, row[1]!, reason]);
  }
  return { byReason, listed, total };
}

/** RFC 4180 csv: quoted fields may hold commas, quotes ("") and newlines. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const endField = () => {
    row.push(field);
    field = '';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') endField();
    else if (c === '\n') {
      endField();
      rows.push(row);
      row = [];
    } else if (c !== '\r') field += c;
  }
  if (field || row.length) {
    endField();
    rows.push(row);
  }
  return rows;
}

/** Runs the upload or sync; with --report, writes the report afterwards (also when it failed). */
export async function withRunReport<T extends object>(
  ctx: Context,
  info: RunReportInfo,
  run: (rejects: string | undefined) => Promise<T>,
): Promise<T> {
  if (!info.file) return run(info.rejects);
  if (info.file === '-')
    throw new UsageError('--report needs a file name (an HTML page is not for a pipe)', { flag: '--report' });
  const file = path.resolve(ctx.cwd, info.file);
  checkReportPath(info, file);
  // Without --rejects the rejected rows go beside the report, where its warning says they are.
  const rejects = info.rejects ?? file.replace(/(\.html?)?$/i, '.rejects.csv');
  checkReportPath({ ...info, rejects: undefined, others: [...(info.others ?? []), file] }, rejects, '--report');
  const before = await audienceSize(ctx, info);
  // The run starts from nothing: a fast run (one full request) still draws a line to its end.
  const samples: Sample[] = [{ ms: 0, read: 0, acknowledged: 0 }];
  ctx.io.progressSink = (s) => {
    samples.push({ ms: s.elapsedMs, read: s.read, acknowledged: s.acknowledged });
    if (samples.length > MAX_SAMPLES) for (let i = samples.length - 1; i > 0; i -= 2) samples.splice(i, 1);
  };
  const started = ctx.clock.now();
  let result: T | undefined;
  let error: unknown;
  try {
    result = await run(rejects);
  } catch (e) {
    error = e;
  } finally {
    ctx.io.progressSink = undefined;
  }
  const after = info.sendsNothing ? before : await audienceSize(ctx, info);
  const kept = result ?? (error instanceof XctlError ? error.summary : undefined) ?? {};
  const summary: Record<string, unknown> = Object.fromEntries(Object.entries(kept));
  const status = error === undefined ? 'ok' : error instanceof XctlError ? statusOf(error.exitCode) : 'failed';
  const html = runReportHtml({
    info,
    status,
    message: error instanceof Error ? error.message : undefined,
    summary,
    rejects: readRejects(rejects),
    samples,
    before,
    after,
    startedAt: new Date(started).toISOString(),
  });
  fs.writeFileSync(file, html);
  ctx.io.info(`report written to ${file}`);
  if (error !== undefined) throw error;
  return result!;
}

interface ReportData {
  info: RunReportInfo;
  status: string;
  message?: string;
  summary: Record<string, unknown>;
  rejects: ReturnType<typeof readRejects>;
  samples: Sample[];
  before: number | null;
  after: number | null;
  startedAt: string;
}

const SUMMARY_ORDER = [
  'status',
  'read',
  'lines',
  'blank',
  'valid',
  'duplicates',
  'rejected',
  'reject_rate',
  'adds',
  'removes',
  'sent',
  'acknowledged',
  'batches',
  'retries',
  'resumed_batches',
  'changed_batches',
  'seconds',
  'records_per_s',
];

/** The report page of one run. */
export function runReportHtml(d: ReportData): string {
  const keys = [
    ...SUMMARY_ORDER.filter((k) => k in d.summary),
    ...Object.keys(d.summary).filter((k) => !SUMMARY_ORDER.includes(k)),
  ];
  const summaryRows = keys.map((k) => [k, d.summary[k] ?? '']);
  const size = (n: number | null) => (n === null ? 'unknown' : n.toLocaleString('en-US'));
  const body = [
    `<h1>audiences ${esc(d.info.kind)}: ${esc(d.info.listId)}</h1>`,
    `<p class="meta">account ${esc(d.info.accountId)} · input ${esc(d.info.input)} · started ${esc(d.startedAt)} · ` +
      `<span id="status" data-status="${esc(d.status)}">${esc(d.status)}</span>${d.message ? ` · ${esc(d.message)}` : ''}</p>`,
    `<h2>The audience</h2>`,
    `<table class="sizes"><tbody><tr><td>audience_size before</td><td id="size-before" data-value="${d.before ?? ''}">${esc(size(d.before))}</td></tr>` +
      `<tr><td>audience_size after</td><td id="size-after" data-value="${d.after ?? ''}">${esc(size(d.after))}</td></tr></tbody></table>`,
    '<h2>The run</h2>',
    htmlTable(['', 'value'], summaryRows, 'summary').replace(
      /<tr><td>([a-z_]+)<\/td>/g,
      '<tr data-key="$1"><td>$1</td>',
    ),
  ];
  if (d.samples.length > 1) {
    const labels = d.samples.map((s) => `${(s.ms / 1000).toFixed(1)} s`);
    body.push(
      '<h2>Throughput</h2>',
      svgLineChart({
        title: 'records over time',
        metric: 'records',
        labels,
        series: [
          { name: 'read', values: d.samples.map((s) => s.read) },
          { name: 'acknowledged', values: d.samples.map((s) => s.acknowledged) },
        ],
        format: (v) => v.toLocaleString('en-US'),
      }),
    );
  }
  body.push(`<h2>Rejected rows: ${d.rejects.total.toLocaleString('en-US')}</h2>`);
  if (d.rejects.total) {
    body.push(
      htmlTable(
        ['reason', 'rows'],
        [...d.rejects.byReason].sort((a, b) => b[1] - a[1]),
        'reasons',
      ),
      `<p>${d.rejects.listed.length < d.rejects.total ? `The first ${d.rejects.listed.length}:` : 'Each one:'}</p>`,
      htmlTable(['line', 'column', 'reason'], d.rejects.listed, 'rejects'),
    );
  }
  return htmlPage(`audiences ${d.info.kind} ${d.info.listId}`, body.join('\n'));
}
