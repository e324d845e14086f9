// Ads analytics in the emulator (docs/contract.md, notes-2 section 6). Metrics come from impressions
// simulated hour by hour for each line item while it was ACTIVE on the sandbox clock (see
// delivery.ts), derived deterministically from the line item's id and the hour. Every bucket
// (DAY, TOTAL, segments, child entities) is a sum of those hourly integers, so the same query
// gives the same numbers and a TOTAL equals the sum of its DAYs.
import { createHash, randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { AdsCollection, SandboxOps } from '../../ads/resource-types.js';
import type { SandboxApp } from '../app.js';
import { problem } from '../http.js';
import { isoSeconds, parseInstant } from '../../contract/time.js';
import { CONCURRENT_JOBS_MAX, CONVERSION_KEYS, CREATIVE_ONLY_METRICS, METRICS } from '../../ads/resources/stats.js';
import type { Behaviour } from './behaviour.js';
import { deliveringMs, deliverySpans } from './delivery.js';
import { LOCATIONS } from './targeting-data.js';
import { isNumericId } from '../../contract/ids.js';
import { SANDBOX_ADMIN_ENDPOINTS } from '../../contract/sandbox-admin.js';
import { validate } from '../../contract/params.js';
import { listOf, listOrUndefined, stringOrUndefined } from '../../contract/guards.js';

type Rec = Record<string, unknown> & { id: string };
const HOUR = 3600_000;
const DAY = 24 * HOUR;
/** Where a finished job's file is served (the emulator's stand-in for ton.twimg.com). */
export const FILES = 'sandbox_files';
const JOB_QUEUED_MS = 1000;
const JOB_DONE_MS = 3000;
const FILE_TTL_MS = 48 * HOUR;

function hash(s: string): number {
  return createHash('sha256').update(s).digest().readUInt32BE(0);
}

// ---- time ----

/** UTC offset (ms) of a timezone at an instant: 'America/New_York' in May -> -4 h. */
export function tzOffsetMs(tz: string, at: number): number {
  const name =
    new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'longOffset' })
      .formatToParts(new Date(at))
      .find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * HOUR + Number(m[3]) * 60_000) : 0;
}

/** A stats time: a date alone is midnight in the account timezone (at the current day's offset). */
function instant(v: unknown, offset: number): number {
  const s = String(v);
  return /^\d{4}-\d{2}-\d{2}$/.test(s) ? parseInstant(s)! - offset : parseInstant(s)!;
}

interface Window {
  from: number;
  to: number;
  buckets: Array<[number, number]>;
}

function windowOf(ops: SandboxOps): Window {
  const tz = String(ops.account?.timezone ?? 'UTC');
  const offset = tzOffsetMs(tz, ops.nowMs());
  const from = instant(ops.values.start_time, offset);
  const to = instant(ops.values.end_time, offset);
  const g = ops.values.granularity;
  if (g === 'DAY') {
    for (const [name, t] of [
      ['start_time', from],
      ['end_time', to],
    ] as const) {
      if ((t + offset) % DAY !== 0)
        ops.fail(
          400,
          'INVALID_PARAMETER',
          `${name} must be midnight in the account timezone (${tz}, UTC${offset < 0 ? '-' : '+'}${String(Math.abs(offset) / HOUR).padStart(2, '0')}:00) for granularity DAY`,
          name,
        );
    }
  }
  const step = g === 'HOUR' ? HOUR : g === 'DAY' ? DAY : to - from;
  const buckets: Array<[number, number]> = [];
  for (let t = from; t < to; t += step) buckets.push([t, Math.min(t + step, to)]);
  return { from, to, buckets };
}

// ---- metrics ----

type Hourly = Record<string, number>;

/** The line item's impressions in one hour: a base keyed by id and hour, times the part of the hour it delivered. */
function impressions(li: Rec, hour: number, nowMs: number): number {
  const part = deliveringMs(li, hour, hour + HOUR, nowMs) / HOUR;
  return part > 0 ? Math.round((200 + (hash(`${li.id}:${hour}`) % 800)) * part) : 0;
}

/** Every metric of one hour of an entity from its impressions; `li` says objective, bid and pay_by. */
function derive(key: string, li: Rec, imp: number, hour: number): Hourly {
  const h = hash(`${key}:${hour}:m`);
  const e = Math.floor((imp * (20 + (h % 30))) / 1000);
  const clicks = Math.floor(e * 0.4);
  const app = li.objective === 'APP_INSTALLS' || li.objective === 'APP_ENGAGEMENTS';
  const video = li.objective === 'VIDEO_VIEWS' || li.objective === 'PREROLL_VIEWS';
  const m: Hourly = {
    impressions: imp,
    engagements: e,
    retweets: Math.floor(e * 0.05),
    replies: Math.floor(e * 0.03),
    likes: Math.floor(e * 0.3),
    follows: Math.floor(e * (li.objective === 'FOLLOWERS' ? 0.2 : 0.02)),
    card_engagements: Math.floor(e * 0.1),
    clicks,
    app_clicks: app ? Math.floor(clicks * 0.5) : 0,
    url_clicks: app ? 0 : Math.floor(clicks * 0.8),
    qualified_impressions: Math.floor(imp * 0.9),
    carousel_swipes: 0,
    tweets_send: 0,
    poll_card_vote: 0,
    unfollows: 0,
  };
  const payBy = String(li.pay_by ?? 'IMPRESSION');
  const billed =
    payBy === 'ENGAGEMENT' ? e : payBy === 'LINK_CLICK' ? m.url_clicks! : payBy === 'APP_CLICK' ? m.app_clicks! : imp;
  const bid = typeof li.bid_amount_local_micro === 'number' ? li.bid_amount_local_micro : undefined;
  m.billed_engagements = billed;
  // Per thousand impressions when buying impressions; per billed event otherwise ($5 CPM, $1.50 per event on AUTO).
  m.billed_charge_local_micro =
    payBy === 'IMPRESSION' ? Math.floor((imp * (bid ?? 5_000_000)) / 1000) : billed * (bid ?? 1_500_000);
  const views = video ? Math.floor(imp * 0.3) : 0;
  Object.assign(m, {
    video_total_views: views,
    video_views_25: Math.floor(views * 0.8),
    video_views_50: Math.floor(views * 0.6),
    video_views_75: Math.floor(views * 0.45),
    video_views_100: Math.floor(views * 0.3),
    video_cta_clicks: Math.floor(views * 0.02),
    video_content_starts: video ? Math.floor(imp * 0.5) : 0,
    video_3s100pct_views: Math.floor(views * 0.5),
    video_6s_views: Math.floor(views * 0.4),
    video_15s_views: Math.floor(views * 0.25),
  });
  return m;
}

/** Part k of n of an integer, so that the parts add up to it exactly. */
const share = (x: number, k: number, n: number) => Math.floor((x * (k + 1)) / n) - Math.floor((x * k) / n);

const ENTITY_COLLECTIONS: Record<string, AdsCollection> = {
  CAMPAIGN: 'campaigns',
  FUNDING_INSTRUMENT: 'funding_instruments',
  LINE_ITEM: 'line_items',
  PROMOTED_ACCOUNT: 'promoted_accounts',
  PROMOTED_TWEET: 'promoted_tweets',
  MEDIA_CREATIVE: 'media_creatives',
};
const CHILD_ENTITIES = ['PROMOTED_ACCOUNT', 'PROMOTED_TWEET', 'MEDIA_CREATIVE'];

/** Checks that the entity belongs to the account (deleted and paused ones still have metrics). */
function checkEntity(ops: SandboxOps, entity: string, id: string): void {
  if (entity === 'ACCOUNT') {
    if (id !== ops.accountId)
      ops.fail(404, 'NOT_FOUND', `entity_ids: ${id} is not this account (ACCOUNT takes the account id)`, 'entity_ids');
    return;
  }
  if (entity === 'ORGANIC_TWEET') {
    if (!isNumericId(id)) ops.fail(400, 'INVALID_PARAMETER', `entity_ids: ${id} is not a post id`, 'entity_ids');
    return;
  }
  ops.find(ENTITY_COLLECTIONS[entity]!, id, { withDeleted: true, parameter: 'entity_ids' });
}

/**
 * Delivery paced by the daily budget: the line item's own, else its campaign's shared evenly by
 * the campaign's line items. Once an account day's spend reaches it, the rest of that day delivers
 * nothing; the hour that crosses it delivers only what the budget still pays for.
 */
class Pacer {
  private memo = new Map<string, number>();
  private budgets = new Map<string, number | undefined>();
  /** Days are the account's (its timezone at the current day's offset), as DAY buckets are. */
  private offset: number;
  constructor(
    private ops: SandboxOps,
    private lis: Rec[],
  ) {
    this.offset = tzOffsetMs(String(ops.account?.timezone ?? 'UTC'), ops.nowMs());
  }

  private budget(li: Rec): number | undefined {
    if (!this.budgets.has(li.id)) {
      let b = typeof li.daily_budget_amount_local_micro === 'number' ? li.daily_budget_amount_local_micro : undefined;
      if (b === undefined) {
        const c = this.ops.collection('campaigns').get(String(li.campaign_id));
        const n = this.lis.filter((l) => l.campaign_id === li.campaign_id && !l.deleted).length || 1;
        if (c && typeof c.daily_budget_amount_local_micro === 'number')
          b = Math.floor(c.daily_budget_amount_local_micro / n);
      }
      this.budgets.set(li.id, b);
    }
    return this.budgets.get(li.id);
  }

  /** Impressions the line item bought in the hour starting at `hour`. */
  impressions(li: Rec, hour: number): number {
    const key = `${li.id}:${hour}`;
    const hit = this.memo.get(key);
    if (hit !== undefined) return hit;
    const raw = impressions(li, hour, this.ops.nowMs());
    const budget = this.budget(li);
    let imp = raw;
    if (raw > 0 && budget !== undefined) {
      let spent = 0;
      for (let h = Math.floor((hour + this.offset) / DAY) * DAY - this.offset; h < hour; h += HOUR)
        spent += derive(li.id, li, this.impressions(li, h), h).billed_charge_local_micro!;
      const left = budget - spent;
      if (left <= 0) imp = 0;
      else {
        const charge = derive(li.id, li, raw, hour).billed_charge_local_micro!;
        // Fewer impressions until the hour's charge fits what is left of the day's budget.
        if (charge > left) {
          imp = Math.floor((raw * left) / charge);
          while (imp > 0 && derive(li.id, li, imp, hour).billed_charge_local_micro! > left) imp--;
        }
      }
    }
    this.memo.set(key, imp);
    return imp;
  }
}

/** The hourly metrics of one entity over [from, to), hour by hour. */
function hourlySeries(ops: SandboxOps, entity: string, id: string, from: number, to: number): Hourly[] {
  const lis = [...ops.collection('line_items').values()].filter((l) => l.account_id === ops.accountId);
  const pacer = new Pacer(ops, lis);
  const out: Hourly[] = [];
  const firstHour = Math.floor(from / HOUR) * HOUR;
  const sum = (parts: Hourly[]): Hourly => {
    const s: Hourly = {};
    for (const p of parts) for (const [k, v] of Object.entries(p)) s[k] = (s[k] ?? 0) + v;
    return s;
  };
  for (let hour = firstHour; hour < to; hour += HOUR) {
    let m: Hourly;
    if (entity === 'ORGANIC_TWEET') m = {};
    else if (CHILD_ENTITIES.includes(entity)) {
      const child = ops.collection(ENTITY_COLLECTIONS[entity]!).get(id)!;
      const li = lis.find((l) => l.id === child.line_item_id);
      const siblings = [...ops.collection(ENTITY_COLLECTIONS[entity]!).values()]
        .filter((c) => c.line_item_id === child.line_item_id && !c.deleted)
        .map((c) => c.id)
        .sort();
      const k = siblings.indexOf(id);
      m = li && k >= 0 ? derive(id, li, share(pacer.impressions(li, hour), k, siblings.length), hour) : {};
    } else {
      const field =
        entity === 'CAMPAIGN'
          ? 'campaign_id'
          : entity === 'FUNDING_INSTRUMENT'
            ? 'funding_instrument_id'
            : entity === 'LINE_ITEM'
              ? 'id'
              : undefined;
      const mine = field ? lis.filter((l) => l[field] === id) : lis;
      m = sum(mine.map((li) => derive(li.id, li, pacer.impressions(li, hour), hour)));
    }
    out.push(m);
  }
  return out;
}

interface Query {
  entity: string;
  ids: string[];
  groups: string[];
  window: Window;
  segmentation?: string;
  country?: string;
}

function metricNames(entity: string, groups: string[]): Array<{ name: string; conversion: boolean }> {
  const out: Array<{ name: string; conversion: boolean }> = [];
  for (const g of groups) {
    const conversion = g.includes('CONVERSION');
    for (const name of METRICS[g as keyof typeof METRICS]) {
      if ((entity === 'ACCOUNT' || entity === 'FUNDING_INSTRUMENT') && CREATIVE_ONLY_METRICS.includes(name)) continue;
      out.push({ name, conversion });
    }
  }
  return out;
}

/** Segments of a segmented job: name, value and the weight of each (weights split the counts exactly). */
function segmentsOf(q: Query): Array<{ segment_name: string; segment_value: string }> {
  switch (q.segmentation) {
    case 'GENDER':
      return [
        { segment_name: 'Female', segment_value: '2' },
        { segment_name: 'Male', segment_value: '1' },
      ];
    case 'AGE':
      return ['AGE_13_TO_24', 'AGE_25_TO_34', 'AGE_35_TO_54', 'AGE_OVER_55'].map((a) => ({
        segment_name: a,
        segment_value: a,
      }));
    case 'PLATFORMS':
      return [
        ['iOS', '0'],
        ['Android', '1'],
        ['Desktop and laptop computers', '4'],
      ].map(([n, v]) => ({ segment_name: n!, segment_value: v! }));
    case 'METROS': {
      const country = LOCATIONS.find((l) => l.targeting_value === q.country)?.country_code;
      return LOCATIONS.filter((l) => l.location_type === 'METROS' && l.country_code === country).map((l) => ({
        segment_name: l.name,
        segment_value: l.targeting_value,
      }));
    }
    default:
      return []; // CONVERSION_TAGS: the sandbox has no conversion tags
  }
}

/** The `data` of a stats response (one item per id, in request order) and its time_series_length. */
export function compute(ops: SandboxOps, q: Query): { data: unknown[]; time_series_length: number } {
  const names = metricNames(q.entity, q.groups);
  const data = q.ids.map((id) => {
    checkEntity(ops, q.entity, id);
    const hourly = hourlySeries(ops, q.entity, id, q.window.from, q.window.to);
    const firstHour = Math.floor(q.window.from / HOUR) * HOUR;
    const bucketSums = (pick: (m: Hourly) => number) =>
      q.window.buckets.map(([a, b]) => {
        let s = 0;
        for (let i = Math.max(0, (a - firstHour) / HOUR); i < (b - firstHour) / HOUR && i < hourly.length; i++)
          s += pick(hourly[i]!);
        return s;
      });
    const metricsOf = (part?: { k: number; n: number }) => {
      const metrics: Record<string, unknown> = {};
      for (const { name, conversion } of names) {
        if (conversion) {
          metrics[name] = null; // no conversion tags fire in the sandbox: no data in the range
          continue;
        }
        const series = bucketSums((m) => (part ? share(m[name] ?? 0, part.k, part.n) : (m[name] ?? 0)));
        metrics[name] = series.some((x) => x !== 0) ? series : null;
      }
      return metrics;
    };
    const segs = q.segmentation ? segmentsOf(q) : [];
    const id_data = q.segmentation
      ? segs.map((segment, k) => ({ segment, metrics: metricsOf({ k, n: segs.length }) }))
      : [{ segment: null, metrics: metricsOf() }];
    return { id, id_data };
  });
  void CONVERSION_KEYS;
  return { data, time_series_length: q.window.buckets.length };
}

function queryOf(ops: SandboxOps): Query {
  const v = ops.values;
  return {
    entity: String(v.entity),
    ids: listOf(v.entity_ids),
    groups: listOf(v.metric_groups),
    window: windowOf(ops),
    segmentation: stringOrUndefined(v.segmentation_type),
    country: stringOrUndefined(v.country),
  };
}

// ---- jobs ----

let jobSeq = 0n;
/** Job ids are longs above 2^53, as the service's (the client must read id_str). */
function jobId(): string {
  jobSeq += 1n;
  return String(1120829647711653888n + jobSeq * 4096n + BigInt(Date.now() % 4096) * 4096n * 1_000_000n);
}

function activeJobs(ops: SandboxOps): number {
  let n = 0;
  for (const j of ops.collection('stats_jobs').values())
    if (j.account_id === ops.accountId && (j.status === 'QUEUED' || j.status === 'PROCESSING')) n++;
  return n;
}

function createJob(ops: SandboxOps): Rec {
  if (activeJobs(ops) >= CONCURRENT_JOBS_MAX)
    ops.fail(
      429,
      'TOO_MANY_REQUESTS',
      `the account has ${CONCURRENT_JOBS_MAX} queued or processing jobs (the limit); wait for one to finish`,
    );
  const q = queryOf(ops);
  const v = ops.values;
  const idStr = jobId();
  const now = ops.now();
  const job: Rec = {
    id: idStr,
    id_str: idStr,
    account_id: ops.accountId,
    status: 'QUEUED',
    url: null,
    expires_at: null,
    entity: v.entity,
    entity_ids: v.entity_ids,
    start_time: isoSeconds(q.window.from),
    end_time: isoSeconds(q.window.to),
    granularity: v.granularity,
    metric_groups: v.metric_groups,
    placement: v.placement,
    segmentation_type: v.segmentation_type ?? null,
    country: v.country ?? null,
    platform: v.platform ?? null,
    created_at: now,
    updated_at: now,
  };
  ops.collection('stats_jobs').set(idStr, job);
  const t0 = ops.nowMs();
  ops.at(t0 + JOB_QUEUED_MS, () => {
    if (job.status !== 'QUEUED') return;
    Object.assign(job, { status: 'PROCESSING', updated_at: ops.now() });
  });
  ops.at(t0 + JOB_DONE_MS, () => {
    if (job.status === 'CANCELLED') return;
    // The result is the synchronous schema, frozen at the job's end.
    let result: ReturnType<typeof compute>;
    try {
      result = compute(ops, q);
    } catch {
      Object.assign(job, { status: 'FAILED', updated_at: ops.now() });
      return;
    }
    const request = { params: { ...ops.values, start_time: job.start_time, end_time: job.end_time } };
    const body = gzipSync(Buffer.from(JSON.stringify({ data_type: 'stats', ...result, request })));
    // Served without a key (the service's file host takes none): 128 random bits in the name, so
    // only who was told the URL (the job's owner, through the signed API) can fetch it.
    const name = `stats_job_${idStr}_${randomBytes(16).toString('hex')}.json.gz`;
    const done = ops.nowMs();
    ops
      .collection(FILES)
      .set(name, { id: name, body, content_type: 'application/gzip', expires_ms: done + FILE_TTL_MS });
    Object.assign(job, {
      status: 'SUCCESS',
      url: `${ops.baseUrl}/_sandbox/files/${name}`,
      expires_at: isoSeconds(done + FILE_TTL_MS),
      updated_at: isoSeconds(done),
    });
  });
  return job;
}

function listJobs(ops: SandboxOps): Rec[] {
  const ids = listOrUndefined(ops.values.job_ids);
  // The service echoes job_ids as JSON numbers (the Ads SDK's analytics_async_get.json).
  if (ids) ops.envelope({ request: { params: { ...ops.path, ...ops.values, job_ids: ids.map((x) => BigInt(x)) } } });
  const jobs = [...ops.collection('stats_jobs').values()].filter(
    (j) => j.account_id === ops.accountId && (!ids || ids.includes(String(j.id_str))),
  );
  const active = activeJobs(ops);
  ops.header('x-concurrent-job-limit', String(CONCURRENT_JOBS_MAX));
  ops.header('x-concurrent-job-limit-remaining', String(CONCURRENT_JOBS_MAX - active));
  return jobs.reverse(); // newest first
}

function cancelJob(ops: SandboxOps): Rec {
  const job = ops.collection('stats_jobs').get(String(ops.id));
  if (!job || job.account_id !== ops.accountId)
    ops.fail(404, 'NOT_FOUND', `job_id ${String(ops.id)} was not found`, 'job_id');
  if (job.status !== 'QUEUED' && job.status !== 'PROCESSING')
    ops.fail(
      400,
      'INVALID_PARAMETER',
      `job ${String(ops.id)} is ${String(job.status)}: only QUEUED or PROCESSING jobs can be cancelled`,
      'job_id',
    );
  Object.assign(job, { status: 'CANCELLED', updated_at: ops.now() });
  return job;
}

// ---- active entities ----

function activeEntities(ops: SandboxOps): Array<Record<string, unknown>> {
  const v = ops.values;
  // A date is midnight in the account's timezone, as for sync stats; the echo is normalized.
  const offset = tzOffsetMs(String(ops.account?.timezone ?? 'UTC'), ops.nowMs());
  const from = instant(v.start_time, offset);
  const to = instant(v.end_time, offset);
  ops.envelope({ request: { params: { ...ops.path, ...v, start_time: isoSeconds(from), end_time: isoSeconds(to) } } });
  const now = ops.nowMs();
  const lis = [...ops.collection('line_items').values()].filter((l) => {
    if (l.account_id !== ops.accountId) return false;
    if (v.campaign_ids && !listOf(v.campaign_ids).includes(String(l.campaign_id))) return false;
    if (v.funding_instrument_ids && !listOf(v.funding_instrument_ids).includes(String(l.funding_instrument_id)))
      return false;
    if (v.line_item_ids && !listOf(v.line_item_ids).includes(l.id)) return false;
    return true;
  });
  // One activity span per entity: the first and last moment one of its line items delivered in the window.
  const spans = new Map<string, [number, number, string[]]>();
  const note = (id: string, a: number, b: number, placements: string[]) => {
    const s = spans.get(id);
    spans.set(
      id,
      s ? [Math.min(s[0], a), Math.max(s[1], b), [...new Set([...s[2], ...placements])]] : [a, b, placements],
    );
  };
  for (const li of lis) {
    const placements = listOf(li.placements).includes('PUBLISHER_NETWORK')
      ? ['ALL_ON_TWITTER', 'PUBLISHER_NETWORK']
      : ['ALL_ON_TWITTER'];
    for (const [a0, b0] of deliverySpans(li, now)) {
      const a = Math.max(a0, from);
      const b = Math.min(b0, to);
      if (b <= a) continue;
      const entity = String(v.entity);
      if (entity === 'LINE_ITEM') note(li.id, a, b, placements);
      else if (entity === 'CAMPAIGN') note(String(li.campaign_id), a, b, placements);
      else if (entity === 'FUNDING_INSTRUMENT') note(String(li.funding_instrument_id), a, b, placements);
      else
        for (const c of ops.collection(ENTITY_COLLECTIONS[entity]!).values())
          if (c.line_item_id === li.id && !c.deleted) note(c.id, a, b, placements);
    }
  }
  return [...spans].map(([id, [a, b, placements]]) => ({
    id,
    entity_id: id,
    activity_start_time: isoSeconds(a),
    activity_end_time: isoSeconds(b),
    placements,
  }));
}

export const STATS: Behaviour = {
  ops: {
    query(ops) {
      const q = queryOf(ops);
      const r = compute(ops, q);
      // The echo carries the times as UTC instants (a date alone was the account's midnight).
      const params = {
        ...ops.path,
        ...ops.values,
        start_time: isoSeconds(q.window.from),
        end_time: isoSeconds(q.window.to),
        segmentation_type: null,
        country: null,
        platform: null,
      };
      ops.envelope({ time_series_length: r.time_series_length, request: { params } });
      return r.data;
    },
    'active-entities': activeEntities,
  },
};

export const STATS_JOBS: Behaviour = {
  hooks: {
    present(e) {
      // `id` is a JSON number above 2^53, sent digit for digit as the service does (a bigint
      // here, written exactly by the server); id_str is the same number as a string.
      const { account_id: _a, ...rest } = e;
      return { ...rest, id: BigInt(String(e.id)), account_id: e.account_id };
    },
  },
  ops: { create: createJob, list: listJobs, cancel: cancelJob },
};

/** `GET /_sandbox/files/:name`: finished jobs' files, 404 once expired (the service's file host). */
export function installFiles(app: SandboxApp): void {
  app.router.serve(SANDBOX_ADMIN_ENDPOINTS.files, (req) => {
    // A name that cannot be a file's is not found either (the file host has no other answer).
    const bad = validate(SANDBOX_ADMIN_ENDPOINTS.files, { path: req.params }) !== undefined;
    const f = bad ? undefined : app.state.collection(FILES).get(req.params.name ?? '');
    if (!f || (typeof f.expires_ms === 'number' && app.clock.now() >= f.expires_ms))
      throw problem(404, 'Not Found', 'no such file (or it expired)');
    const body = f.body as Buffer;
    return {
      status: 200,
      stream: (res) => {
        res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': body.length });
        res.end(body);
      },
    };
  });
}
