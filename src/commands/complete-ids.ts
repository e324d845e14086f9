// `xctl __complete <kind> [prefix]` (hidden): what the completion scripts call at Tab for an id
// (issue 29 item 9). One line per id, `ID<TAB>DESCRIPTION`, from a cache kept a minute
// (core/id-cache.ts); when the cache is stale the service is asked once, within a hard bound
// (1.5 s), with no retry, no prompt, no spinner and nothing on stderr: a slow or failing service
// gives the stale list, else nothing, never a blocked shell. Descriptions are service data: only
// letters, digits, spaces and a few harmless signs reach the shell.
import { Readable, Writable } from 'node:stream';
import type { Command } from 'commander';
import { Context } from '../context.js';
import { UsageError } from '../core/errors.js';
import type { AuthMode } from '../core/http.js';
import {
  cacheDir,
  ID_CACHE_MAX,
  ID_CACHE_TTL_MS,
  idCacheFile,
  type IdEntry,
  readIdCache,
  writeIdCache,
} from '../core/id-cache.js';
import { isRecord } from '../contract/guards.js';
import { declareOn } from './define.js';
import { ID_KINDS, type IdKind, isIdKind } from './id-kinds.js';

export interface CompleteIdsOptions {
  kind: string;
  prefix?: string;
  /** The bound on asking the service (tests shorten it). */
  timeoutMs?: number;
}

/** How long a Tab may wait for the service. */
export const COMPLETE_TIMEOUT_MS = 1500;

export function register(cmd: Command, _operands?: string[], runF = completeIds): void {
  declareOn(cmd, {
    arguments: [
      ['<kind>', `what to list: ${ID_KINDS.join(', ')}`],
      ['[prefix]', 'only the ids that start with this'],
    ],
    selectsProfile: false,
    run: (ctx, _o, [kind, prefix]) => runF(ctx, { kind, prefix }),
  });
}

interface KindDef {
  host: 'api' | 'ads';
  /** The list's path; ads kinds get the account. */
  path: (account: string) => string;
  query: Record<string, string | number>;
  auth: (ctx: Context) => Promise<AuthMode>;
  id: string;
  describe: (row: Record<string, unknown>) => string;
}

const str = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');
const named = (row: Record<string, unknown>) => str(row.name);
const user = async () => 'user' as const;

/** The list each kind comes from: one page of the largest size the endpoint allows. */
const KINDS: Record<IdKind, KindDef> = {
  /** GET /12/accounts/:account_id/campaigns */
  campaign: {
    host: 'ads',
    path: (a) => `/12/accounts/${a}/campaigns`,
    query: { count: 1000 },
    auth: user,
    id: 'id',
    describe: named,
  },
  /** GET /12/accounts/:account_id/line_items */
  'line-item': {
    host: 'ads',
    path: (a) => `/12/accounts/${a}/line_items`,
    query: { count: 1000 },
    auth: user,
    id: 'id',
    describe: named,
  },
  /** GET /12/accounts/:account_id/custom_audiences */
  audience: {
    host: 'ads',
    path: (a) => `/12/accounts/${a}/custom_audiences`,
    query: { count: 1000 },
    auth: user,
    id: 'id',
    describe: named,
  },
  /** GET /2/webhooks */
  webhook: {
    host: 'api',
    path: () => '/2/webhooks',
    query: {},
    auth: async () => 'app',
    id: 'id',
    describe: (r) => str(r.url),
  },
  /** GET /2/activity/subscriptions */
  subscription: {
    host: 'api',
    path: () => '/2/activity/subscriptions',
    query: { max_results: 1000 },
    auth: async (ctx) => {
      const { chooseAuth } = await import('./v2-auth.js');
      const { SUBSCRIPTION_ENDPOINTS } = await import('./activity/subscriptions/shape.js');
      return chooseAuth(ctx, undefined, SUBSCRIPTION_ENDPOINTS.list);
    },
    id: 'subscription_id',
    describe: (r) => {
      const f = isRecord(r.filter) ? r.filter : {};
      return [str(r.event_type), f.user_id ? `user ${str(f.user_id)}` : '', r.tag ? `tag ${str(r.tag)}` : '']
        .filter(Boolean)
        .join(' ');
    },
  },
};

/**
 * Ids as the service makes them; anything else is not offered to a shell. Not one starting with
 * `-`: completed onto a command line it would read as an option.
 */
const ID = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$/;

/**
 * A description safe to hand to any shell's completion: no control, format (bidi, zero-width) or
 * separator characters, none of the shell's metacharacters or quotes; one line, at most 60.
 */
export function safeDescription(s: string): string {
  const kept = s
    .replace(/[^\p{L}\p{N}\p{M} .,:/@+=%_-]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return kept.length > 60 ? `${kept.slice(0, 59)}…` : kept;
}

/** The ids of `kind` (cache, else the service within the bound), filtered by prefix, one a line. */
export async function completeIds(ctx: Context, o: CompleteIdsOptions): Promise<void> {
  if (!isIdKind(o.kind))
    throw new UsageError(`kind must be one of ${ID_KINDS.join(', ')} (got "${o.kind}")`, { flag: '<kind>' });
  let entries: IdEntry[];
  try {
    entries = await entriesOf(ctx, o.kind, o.timeoutMs ?? COMPLETE_TIMEOUT_MS);
  } catch {
    return; // no account, no credentials, an unreadable store: nothing to offer
  }
  const lines = entries
    .filter((e) => ID.test(e.id) && e.id.startsWith(o.prefix ?? ''))
    .map((e) => `${e.id}\t${safeDescription(e.name)}\n`);
  if (lines.length) ctx.io.raw(lines.join(''));
}

async function entriesOf(ctx: Context, kind: IdKind, timeoutMs: number): Promise<IdEntry[]> {
  const def = KINDS[kind];
  const account = def.host === 'ads' ? await ctx.accountId() : '';
  const base = def.host === 'ads' ? await ctx.adsBase() : await ctx.apiBase();
  const profile = await ctx.profileName().catch(() => '');
  const file = idCacheFile(cacheDir(ctx.env), { profile, account, base, kind });
  const now = ctx.clock.now();
  const cached = readIdCache(file, now);
  if (cached && cached.ageMs >= 0 && cached.ageMs < ID_CACHE_TTL_MS) return cached.entries;
  const fresh = await withinBound(ctx, timeoutMs, (quiet) => fetchEntries(quiet, def, account));
  if (!fresh) {
    // Stale beats nothing when the service is slow or down, and the failure is remembered for a
    // while: the next Tabs answer at once instead of each waiting out the bound again.
    const keep = cached?.entries ?? [];
    writeIdCache(file, keep, now - ID_CACHE_TTL_MS + FAILURE_MEMORY_MS);
    return keep;
  }
  writeIdCache(file, fresh, now);
  return fresh;
}

/** After a failed or slow fetch, how long Tabs answer from what is cached without asking again. */
export const FAILURE_MEMORY_MS = 30_000;

/**
 * Runs `fn` on a context that writes nothing to stderr and whose requests end when the bound
 * passes; undefined when it fails or the bound passes first (whatever the transport does).
 */
async function withinBound<T>(ctx: Context, ms: number, fn: (quiet: Context) => Promise<T>): Promise<T | undefined> {
  const bound = new AbortController();
  const timer = setTimeout(() => bound.abort(new Error('completion time bound')), ms);
  const quiet = new Context({
    streams: {
      stdin: Readable.from([]),
      stdout: ctx.io.stdout,
      stderr: new Writable({ write: (_c, _e, cb) => cb() }),
    },
    env: ctx.env,
    globals: { ...ctx.globals, quiet: true, progress: false, verbose: false },
    clock: ctx.clock,
    signal: AbortSignal.any([ctx.signal, bound.signal]),
    cwd: ctx.cwd,
    version: ctx.version,
    transport: ctx.transport,
  });
  const timedOut = new Promise<undefined>((resolve) =>
    bound.signal.addEventListener('abort', () => resolve(undefined), { once: true }),
  );
  try {
    return await Promise.race([fn(quiet).catch(() => undefined), timedOut]);
  } finally {
    clearTimeout(timer);
    bound.abort(new Error('done'));
  }
}

async function fetchEntries(ctx: Context, def: KindDef, account: string): Promise<IdEntry[]> {
  const http = await ctx.http();
  const res = await http.request<{ data?: unknown }>({
    method: 'GET',
    host: def.host,
    path: def.path(account),
    query: def.query,
    auth: await def.auth(ctx),
    retry: false,
    signal: ctx.signal,
  });
  const rows = Array.isArray(res.data.data) ? res.data.data : [];
  const out: IdEntry[] = [];
  for (const row of rows.slice(0, ID_CACHE_MAX)) {
    if (!isRecord(row)) continue;
    const r = row;
    const id = str(r[def.id]);
    if (ID.test(id)) out.push({ id, name: safeDescription(def.describe(r)) });
  }
  return out;
}
