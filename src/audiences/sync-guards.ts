// The guards of `audiences sync` for unattended runs: a first sync against an audience that
// already holds members (without a snapshot nobody can say who left, so nothing could ever be
// removed: refused unless --adopt), and a removal larger than --max-removes (a truncated export
// piped in would otherwise empty the audience). Both refuse before anything is sent.
import type { Context } from '../context.js';
import { UsageError } from '../core/errors.js';

/** Share of the audience a sync may remove when no terminal is there to notice (issue 33). */
export const UNATTENDED_MAX_REMOVES = '10%';

export interface MaxRemoves {
  /** As given: "500" or "10%". */
  text: string;
  count?: number;
  percent?: number;
}

/** --max-removes N|P%: a count, or a percentage of the audience (100% turns the guard off). */
export function parseMaxRemoves(v: string): MaxRemoves {
  const m = /^(\d+)(%?)$/.exec(v.trim());
  const n = m ? Number(m[1]) : NaN;
  if (!m || !Number.isSafeInteger(n) || (m[2] === '%' && n > 100)) {
    throw new UsageError(`--max-removes must be a number of members or a percentage up to 100% (got "${v}")`, {
      flag: '--max-removes',
    });
  }
  return m[2] ? { text: `${n}%`, percent: n } : { text: String(n), count: n };
}

/**
 * The limit in force: --max-removes when given, else 10% of the audience when nobody is at a
 * terminal (no TTY, CI=true, XCTL_NO_PROMPT=1), else none.
 */
export function maxRemovesFor(given: string | undefined, unattended: boolean): MaxRemoves | undefined {
  if (given !== undefined) return parseMaxRemoves(given);
  return unattended ? parseMaxRemoves(UNATTENDED_MAX_REMOVES) : undefined;
}

/** Members the limit allows out of `before` (the snapshot's members). */
export function allowedRemoves(limit: MaxRemoves, before: number): number {
  return limit.count ?? Math.floor((before * limit.percent!) / 100);
}

/** What a removal beyond the limit is worded with; undefined when the limit allows it. */
export interface ExcessRemoves {
  /** Members the limit allows. */
  allowed: number;
  /** " (79.2%)": the share of the audience, when it has members. */
  pct: string;
  /** "10% (48)" or "500": the limit as given, with what a percentage comes to. */
  limit: string;
}

/** Whether `removes` of `before` members exceed the limit (none, 100% and no removal never do). */
export function excessRemoves(
  limit: MaxRemoves | undefined,
  removes: number,
  before: number,
): ExcessRemoves | undefined {
  if (!limit || limit.percent === 100 || removes === 0) return undefined;
  const allowed = allowedRemoves(limit, before);
  if (removes <= allowed) return undefined;
  const pct = before > 0 ? ` (${Math.round((removes / before) * 1000) / 10}%)` : '';
  return { allowed, pct, limit: `${limit.text}${limit.percent !== undefined ? ` (${allowed})` : ''}` };
}

/** Refuses a plan removing more members than the limit allows (exit 2, nothing sent). */
export function checkRemoves(limit: MaxRemoves | undefined, removes: number, before: number, given: boolean): void {
  const x = excessRemoves(limit, removes, before);
  if (!x) return;
  throw new UsageError(
    `this sync would remove ${removes} of the audience's ${before} members${x.pct}, more than --max-removes ${x.limit} allows${given ? '' : ' by default when no terminal is attached'}; nothing was sent`,
    {
      flag: '--max-removes',
      hint: `check the input (a truncated export looks like this); if the removals are meant, pass --max-removes ${removes} (or 100% to turn the guard off)`,
    },
  );
}

/** What the service says of an audience: its size and the time it last changed. */
export interface RemoteState {
  size: number;
  /** The audience's updated_at (members or name changed); null when the service gives none. */
  updated_at: string | null;
}

/**
 * GET /12/accounts/:account_id/custom_audiences/:id (or the do_not_reach_lists collection): the
 * members the service says it holds, and when the audience last changed.
 */
export async function readRemote(
  ctx: Context,
  accountId: string,
  audienceId: string,
  target = 'custom_audience',
): Promise<RemoteState> {
  const http = await ctx.http();
  const account = `/12/accounts/${encodeURIComponent(accountId)}`;
  type Entity = { id?: string; audience_size?: unknown; updated_at?: unknown };
  let e: Entity | undefined;
  if (target === 'do_not_reach_list') {
    // The platform serves do-not-reach lists as a collection only (one list per account).
    const res = await http.request<{ data?: Entity[] }>({
      method: 'GET',
      host: 'ads',
      path: `${account}/do_not_reach_lists`,
      auth: 'user',
    });
    e = res.data?.data?.find((l) => l.id === audienceId);
  } else {
    const res = await http.request<{ data?: Entity }>({
      method: 'GET',
      host: 'ads',
      path: `${account}/custom_audiences/${encodeURIComponent(audienceId)}`,
      auth: 'user',
    });
    e = res.data?.data;
  }
  const n = Number(e?.audience_size ?? 0);
  return {
    size: Number.isSafeInteger(n) && n > 0 ? n : 0,
    updated_at: typeof e?.updated_at === 'string' ? e.updated_at : null,
  };
}

/** The members the service says the audience holds (audience_size). */
export async function audienceSize(
  ctx: Context,
  accountId: string,
  audienceId: string,
  target = 'custom_audience',
): Promise<number> {
  return (await readRemote(ctx, accountId, audienceId, target)).size;
}

/**
 * A first sync (no snapshot here) against an audience that already holds members: without a
 * record of what was sent, the members not in the file can never be found, let alone removed.
 * Refused unless `adopt` (add only); returns the audience's size when it was read.
 */
export async function checkFirstSync(
  ctx: Context,
  o: { accountId: string; audienceId: string; adopt: boolean; canRead: boolean; snapshot: string; target?: string },
): Promise<number | undefined> {
  // Adopting: the size is only reported, so a list that cannot be read (not created yet, in a
  // plan of `audiences apply`) does not stop the sync.
  if (o.adopt)
    return o.canRead ? audienceSize(ctx, o.accountId, o.audienceId, o.target).catch(() => undefined) : undefined;
  if (!o.canRead) {
    ctx.io.warn(
      `no snapshot for this audience yet and no credentials to read its size: the real sync is refused if the audience already holds members (unless --adopt)`,
    );
    return undefined;
  }
  const size = await audienceSize(ctx, o.accountId, o.audienceId, o.target);
  if (size > 0) {
    throw new UsageError(
      `audience ${o.audienceId} already holds ${size} members and this is its first sync from here (no snapshot at ${o.snapshot}): a sync could add the file's members but never remove the others, and would still exit 0; nothing was sent`,
      {
        flag: '--adopt',
        hint: 'restore the state folder of earlier syncs (--state-dir / XCTL_STATE_DIR, e.g. from a CI cache), seed it with --from-upload JOURNAL, or pass --adopt to add only (the members not in the file stay)',
      },
    );
  }
  return size;
}
