// Carrying out a plan of `audiences apply`: per audience, in the file's order, create or rename
// it, sync its members (sync's own lock, snapshot and journal: a killed apply resumes there),
// then revoke and grant. Accounts run in parallel (each account's rate limits are its own);
// one account's audiences run one after another. A failure stops that audience only.
import type { Context } from '../../context.js';
import { ApiError, DivergedError, ExitCode, XctlError } from '../../core/errors.js';
import type { AudiencePlan, ApplyEnv } from './plan.js';
import { label, syncOptions } from './plan.js';
import { labelledContext } from './labelled.js';
import * as remote from './remote.js';
import { statePath, updateState, type AccountState, type ManagedAudience } from './state.js';

export interface AudienceResult {
  name: string;
  account: string;
  id: string | null;
  action: string;
  /**
   * refused: a guard of the plan (max_removes, max_reject_rate) stopped it; nothing was sent.
   * diverged: applied, but the service's audience does not equal the source (sync's exit 5).
   */
  status: 'ok' | 'failed' | 'refused' | 'skipped' | 'diverged';
  adds: number;
  removes: number;
  grants: number;
  revokes: number;
  acknowledged: number;
  /** What the service says the audience holds after the sync, and the snapshot's members. */
  audience_size?: number;
  snapshot_members?: number;
  error?: string;
  /** The error itself, for the exit code (not printed). */
  cause?: Error;
}

export const RESULT_FIELDS = [
  'name',
  'account',
  'id',
  'action',
  'status',
  'adds',
  'removes',
  'grants',
  'revokes',
  'acknowledged',
  'audience_size',
  'snapshot_members',
  'error',
];

function resultOf(p: AudiencePlan): AudienceResult {
  return {
    name: p.name,
    account: p.account,
    id: p.id,
    action: p.action,
    status: 'ok',
    adds: 0,
    removes: 0,
    grants: 0,
    revokes: 0,
    acknowledged: 0,
  };
}

function remember(
  s: AccountState,
  a: Omit<ManagedAudience, 'grants'> & { grants?: ManagedAudience['grants'] },
): ManagedAudience {
  let m = s.audiences.find((x) => x.id === a.id);
  if (!m) s.audiences.push((m = { ...a, grants: a.grants ?? {} }));
  else Object.assign(m, { name: a.name, created: m.created || a.created });
  return m;
}

/** The HTTP status of a service's answer (ApiError, AuthError), else undefined. */
function statusOf(e: unknown): number | undefined {
  if (e instanceof ApiError) return e.status;
  return e instanceof Error && 'status' in e && typeof e.status === 'number' ? e.status : undefined;
}

/** The service answered no (4xx): nothing happened, unlike a lost answer or a 5xx. */
function refused(e: unknown): boolean {
  const s = statusOf(e);
  return s !== undefined && s >= 400 && s < 500;
}

/** The audience exists under the file's name afterwards; returns its id. */
async function ensureAudience(ctx: Context, env: ApplyEnv, p: AudiencePlan): Promise<string> {
  const spec = p.spec!;
  const file = statePath(env.stateRoot, env.profile, p.account);
  const intent = { kind: p.kind, name: p.name };
  if (!p.id) {
    // The intent first: killed after the create, the next run finds the name and knows it is its own.
    updateState(file, (s) => {
      if (!s.creating.some((c) => c.kind === intent.kind && c.name === intent.name)) s.creating.push(intent);
    });
    let made: remote.RemoteAudience;
    try {
      made =
        p.kind === 'do_not_reach'
          ? await remote.createDoNotReach(ctx, p.account, p.name)
          : await remote.createAudience(ctx, p.account, p.name, spec.description);
    } catch (e) {
      // Refused for sure (4xx): nothing was created, so an audience of that name made later by
      // hand must not pass for apply's. A lost answer keeps the intent: it may exist.
      if (refused(e)) {
        updateState(file, (s) => {
          s.creating = s.creating.filter((c) => !(c.kind === intent.kind && c.name === intent.name));
        });
      }
      throw e;
    }
    p.id = made.id;
  } else if (p.rename) {
    await remote.renameAudience(ctx, p.account, p.id, p.name);
  }
  const id = p.id;
  updateState(file, (s) => {
    const wasIntent = s.creating.some((c) => c.kind === intent.kind && c.name === intent.name);
    s.creating = s.creating.filter((c) => !(c.kind === intent.kind && c.name === intent.name));
    remember(s, { id, kind: p.kind, name: p.name, created: wasIntent });
  });
  return id;
}

async function applyGrants(ctx: Context, env: ApplyEnv, p: AudiencePlan, id: string, r: AudienceResult): Promise<void> {
  const file = statePath(env.stateRoot, env.profile, p.account);
  for (const g of p.revokeOps) {
    if (ctx.signal.aborted) return;
    try {
      await remote.revoke(ctx, p.account, id, g.id);
    } catch (e) {
      if (statusOf(e) !== 404) throw e; // revoked meanwhile: the goal holds
    }
    updateState(
      file,
      (s) => void delete remember(s, { id, kind: p.kind, name: p.name, created: false }).grants[g.granted_account_id],
    );
    r.revokes++;
  }
  for (const g of p.grantOps) {
    if (ctx.signal.aborted) return;
    const made = await remote.grant(ctx, p.account, id, g.account, g.level);
    updateState(file, (s) => {
      remember(s, { id, kind: p.kind, name: p.name, created: false }).grants[g.account] = {
        permission_id: made.id,
        level: g.level,
      };
    });
    r.grants++;
  }
}

/** One audience of the plan, whole: its row of the summary says how far it got. */
async function applyOne(ctx: Context, env: ApplyEnv, p: AudiencePlan): Promise<AudienceResult> {
  const r = resultOf(p);
  if (p.action === 'delete') return prune(ctx, env, p, r);
  const spec = p.spec!;
  if (p.error) throw p.error;
  const id = await ensureAudience(ctx, env, p);
  r.id = id;
  if (p.action !== 'none') {
    const { runSync } = await import('../sync.js');
    const s = await runSync(
      labelledContext(ctx, label(spec)),
      syncOptions(env, spec, {
        id,
        input: p.input!,
        plan: false,
        refresh: p.refresh,
        adopt: p.adopt,
        maxRemoves: p.maxRemoves,
      }),
    );
    Object.assign(r, {
      adds: s.adds,
      removes: s.removes,
      acknowledged: s.acknowledged,
      audience_size: s.audience_size,
      snapshot_members: s.snapshot_members,
    });
  }
  if (spec.kind === 'custom_audience') {
    try {
      await applyGrants(ctx, env, p, id, r);
    } catch (e) {
      // The members went in: the failed row still says so (issue 46: "adds 0" after an upload).
      if (e && typeof e === 'object') done.set(e, r);
      throw e;
    }
  }
  return r;
}

/** What an audience had done when a later step of it failed, by the error. */
const done = new WeakMap<object, AudienceResult>();

async function prune(ctx: Context, env: ApplyEnv, p: AudiencePlan, r: AudienceResult): Promise<AudienceResult> {
  try {
    await remote.deleteAudience(ctx, p.account, p.kind, p.id!);
  } catch (e) {
    if (statusOf(e) !== 404) throw e;
  }
  updateState(statePath(env.stateRoot, env.profile, p.account), (s) => {
    s.audiences = s.audiences.filter((a) => a.id !== p.id);
  });
  return r;
}

/** Applies every row, accounts in parallel; never throws for one audience's failure. */
export async function applyPlan(ctx: Context, env: ApplyEnv, rows: AudiencePlan[]): Promise<AudienceResult[]> {
  const byAccount = new Map<string, AudiencePlan[]>();
  for (const p of rows) byAccount.set(p.account, [...(byAccount.get(p.account) ?? []), p]);
  const results = new Map<AudiencePlan, AudienceResult>();
  await Promise.all(
    [...byAccount.values()].map(async (list) => {
      for (const p of list) {
        if (ctx.signal.aborted) {
          results.set(p, { ...resultOf(p), status: 'skipped', error: 'interrupted' });
          continue;
        }
        if (p.refused) {
          ctx.io.warn(`${label(p)}: refused: ${p.refused}`);
          results.set(p, { ...resultOf(p), status: 'refused', error: `refused: ${p.refused}` });
          continue;
        }
        try {
          results.set(p, await applyOne(ctx, env, p));
        } catch (e) {
          const err = e as Error & { summary?: Record<string, unknown> };
          ctx.io.warn(`${label(p)}: ${err.message}`);
          // A later step failed after the members went in (grants): the row keeps what was done.
          const so = err && typeof err === 'object' ? done.get(err) : undefined;
          // A refusal (exit 2) sent nothing: its summary's counts are what it would have sent.
          const refusal = err instanceof XctlError && err.exitCode === ExitCode.USAGE;
          const s = refusal ? {} : (err.summary ?? {});
          const n = (k: string) => (typeof s[k] === 'number' ? s[k] : undefined);
          results.set(p, {
            ...(so ?? resultOf(p)),
            id: so?.id ?? p.id,
            status: err instanceof DivergedError ? 'diverged' : 'failed',
            // What a sync that stopped part-way or diverged did send.
            adds: n('adds') ?? so?.adds ?? 0,
            removes: n('removes') ?? so?.removes ?? 0,
            acknowledged: n('acknowledged') ?? so?.acknowledged ?? 0,
            audience_size: n('audience_size') ?? so?.audience_size,
            snapshot_members: n('snapshot_members') ?? so?.snapshot_members,
            error: err.message,
            cause: err,
          });
        }
      }
    }),
  );
  return rows.map((p) => results.get(p)!);
}
