// `xctl ads stats job get|wait|download`: the verbs a script needs around the generated
// create/list/cancel. There is no endpoint for one job: get reads the list with job_ids. The
// result file is public (a signed URL on the service's file host): it is fetched without
// credentials, gunzipped and printed as rows (or saved with --out).
import fs from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { ApiError, NetworkError, RateLimitError, UsageError, errorMessage } from '../../core/errors.js';
import { printOne } from '../../core/output.js';
import { declare } from '../define.js';
import { printStats, type StatsEnvelope } from './stats-output.js';
import { parseJson } from '../../core/json.js';
import { NUMERIC_ID } from '../../contract/ids.js';
import { bufferOf } from '../../contract/guards.js';

interface Job {
  id_str: string;
  status: string;
  url: string | null;
  expires_at: string | null;
  [k: string]: unknown;
}

const FINAL = ['SUCCESS', 'FAILED', 'CANCELLED'];
const JOB_ID = NUMERIC_ID;
/** Polling: first wait, growth, cap (the service's jobs take seconds to minutes). */
const POLL_FIRST_MS = 1000;
const POLL_MAX_MS = 30_000;

function checkId(id: string | undefined): string {
  if (!id || !JOB_ID.test(id))
    throw new UsageError(`<job-id> must be the job's id_str (digits; got "${id ?? ''}")`, { flag: '<job-id>' });
  return id;
}

export async function fetchJob(ctx: Context, id: string): Promise<Job> {
  const http = await ctx.http();
  const res = await http.request<{ data?: Job[] }>({
    method: 'GET',
    host: 'ads',
    path: `/12/stats/jobs/accounts/${encodeURIComponent(await ctx.accountId())}`,
    query: { job_ids: id },
    auth: 'user',
  });
  const job = (res.data?.data ?? []).find((j) => j.id_str === id);
  if (!job)
    throw new ApiError(`stats job ${id} was not found in the account`, {
      status: 404,
      hint: 'list them with `xctl ads stats job list`',
    });
  return job;
}

const JOB_COLUMNS = ['id_str', 'status', 'entity', 'granularity', 'start_time', 'end_time', 'url', 'expires_at'];

function transientPollError(e: unknown): boolean {
  if (e instanceof NetworkError || e instanceof RateLimitError) return true;
  return e instanceof ApiError && e.status !== undefined && e.status >= 500;
}

/** Polls until the job is final, waiting 1 s, then x1.5 each time up to 30 s, at most `timeoutS`. */
export async function waitJob(
  ctx: Context,
  id: string,
  timeoutS: number,
  sleep: (ms: number) => Promise<void> = (ms) => ctx.clock.sleep(ms),
): Promise<Job> {
  const deadline = ctx.clock.now() + timeoutS * 1000;
  let wait = POLL_FIRST_MS;
  for (;;) {
    let job: Job;
    try {
      job = await fetchJob(ctx, id);
    } catch (e) {
      // A poll that failed its own retries (5xx, dropped connections, a rate limit) is only one
      // poll: the job goes on, so poll again while --timeout lasts.
      if (!transientPollError(e) || ctx.clock.now() + wait > deadline) throw e;
      ctx.io.warn(`job ${id}: checking failed (${errorMessage(e)}); checking again in ${(wait / 1000).toFixed(1)} s`);
      await sleep(wait);
      wait = Math.min(POLL_MAX_MS, Math.round(wait * 1.5));
      continue;
    }
    if (FINAL.includes(job.status)) return job;
    if (ctx.clock.now() + wait > deadline)
      throw new ApiError(`stats job ${id} is still ${job.status} after ${timeoutS} s`, {
        hint: `wait again with \`xctl ads stats job wait ${id}\``,
      });
    ctx.io.info(`job ${id}: ${job.status}; checking again in ${(wait / 1000).toFixed(1)} s`);
    await sleep(wait);
    wait = Math.min(POLL_MAX_MS, Math.round(wait * 1.5));
  }
}

async function download(ctx: Context, job: Job): Promise<Buffer> {
  if (job.status !== 'SUCCESS' || !job.url)
    throw new ApiError(`stats job ${job.id_str} has no file (status ${job.status})`, {
      hint:
        job.status === 'FAILED' || job.status === 'CANCELLED'
          ? 'create a new job'
          : `wait for it: \`xctl ads stats job wait ${job.id_str}\``,
    });
  if (job.expires_at && Date.parse(job.expires_at) <= ctx.clock.now())
    throw new ApiError(`the file of stats job ${job.id_str} expired at ${job.expires_at}`, {
      hint: 'create a new job',
    });
  const http = await ctx.http();
  // The file host is not an API host: no credentials go there.
  const res = await http.request<unknown>({ method: 'GET', path: job.url, auth: 'none', stream: true });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of res.stream!) {
    const b = bufferOf(c);
    size += b.length;
    if (size > 512 * 1024 * 1024) throw new ApiError('the stats file is larger than 512 MB');
    chunks.push(b);
  }
  try {
    return gunzipSync(Buffer.concat(chunks), { maxOutputLength: 2 * 1024 * 1024 * 1024 });
  } catch (e) {
    throw new ApiError(`the stats file of job ${job.id_str} is not gzip data: ${errorMessage(e)}`);
  }
}

async function printFile(ctx: Context, json: Buffer, out: string | undefined, columns: string[]): Promise<void> {
  if (out) {
    fs.writeFileSync(out, json);
    ctx.io.info(`wrote ${json.length} bytes of JSON to ${out}`);
    return;
  }
  let env: StatsEnvelope;
  try {
    env = parseJson(json.toString('utf8')) as StatsEnvelope;
  } catch {
    throw new ApiError('the stats file does not hold JSON');
  }
  await printStats(ctx, env, columns);
}

const JOB_ID_ARG = ['<job-id>', "the job's id (`xctl ads stats job list`)"] as const;

export function registerJobVerbs(job: Command, statsColumns: string[]): void {
  declare(job, {
    name: 'get',
    description: 'one stats job (its status, url and expiry) — GET /12/stats/jobs/accounts/:account_id?job_ids=ID',
    arguments: [JOB_ID_ARG],
    run: async (ctx, _o, [id]) =>
      printOne(ctx.io, await ctx.output(), await fetchJob(ctx, checkId(id)), { columns: JOB_COLUMNS }),
  });
  declare(job, {
    name: 'wait',
    description: 'poll until the job succeeds, fails or is cancelled (1 s, then x1.5 up to 30 s)',
    arguments: [JOB_ID_ARG],
    options: [
      ['--timeout <seconds>', 'give up after this long', '900'],
      ['--download', 'then print its result rows'],
      ['--out <file>', 'with --download: write the decompressed JSON here instead'],
    ],
    run: async (ctx, o, [jobId]) => {
      const id = checkId(jobId);
      const timeout = Number(o.timeout);
      if (!Number.isFinite(timeout) || timeout <= 0)
        throw new UsageError('--timeout must be a positive number of seconds', { flag: '--timeout' });
      if (o.out && !o.download) throw new UsageError('--out needs --download', { flag: '--out' });
      const done = await waitJob(ctx, id, timeout);
      if (done.status !== 'SUCCESS') throw new ApiError(`stats job ${id} ended ${done.status}`);
      if (o.download) return printFile(ctx, await download(ctx, done), o.out, statsColumns);
      await printOne(ctx.io, await ctx.output(), done, { columns: JOB_COLUMNS });
    },
  });
  declare(job, {
    name: 'download',
    description: "fetch a finished job's gzipped file, decompress it, print one row per entity and time bucket",
    arguments: [JOB_ID_ARG],
    options: [['--out <file>', 'write the decompressed JSON here instead']],
    run: async (ctx, o, [id]) =>
      printFile(ctx, await download(ctx, await fetchJob(ctx, checkId(id))), o.out, statsColumns),
  });
}
