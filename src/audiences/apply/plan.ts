// The plan of `audiences apply`: per audience of the file, what the service holds (matched by
// account and name), what apply remembers (state.ts), and what sync would send (its own --plan
// over the source, against the audience's snapshot). Drift is what changed by hand since the
// last apply: an audience deleted or renamed, a grant revoked or added, a snapshot missing or
// past the members' 13-month expiry.
import { parseRejectGate } from '../gate.js';
import type { Context } from '../../context.js';
import { EXPIRY_MONTHS, type IdType } from '../../contract/audience-users.js';
import { readSnapshotHeader, snapshotPaths } from '../snapshot.js';
import {
  excessRemoves,
  maxRemovesFor,
  parseMaxRemoves,
  UNATTENDED_MAX_REMOVES,
  type MaxRemoves,
} from '../sync-guards.js';
import type { SyncOptions, SyncSummary } from '../sync.js';
import { listAudiences, listDoNotReach, listGrants, type RemoteAudience, type RemoteGrant } from './remote.js';
import type { AudienceSpec } from './schema.js';
import { labelledContext } from './labelled.js';
import { sourceFile } from './source.js';
import { managedByName, readState, statePath, type AccountState, type ManagedAudience } from './state.js';

export type Action = 'create' | 'update' | 'none' | 'delete';

/** One row of the plan: the keys CI reads (-o json) first, then what apply needs. */
export interface AudiencePlan {
  name: string;
  account: string;
  id: string | null;
  kind: 'custom_audience' | 'do_not_reach';
  action: Action;
  adds: number;
  removes: number;
  grants: string[];
  revokes: string[];
  drift: string[];
  /** Batches of an interrupted sync still to send. */
  resumed_batches: number;
  /** Why apply will not touch it (a gate of the file), or the error that stopped its plan. */
  refused?: string;
  /** At a terminal without a limit given: the question apply asks before removing this many. */
  ask?: string;
  error?: Error;
  spec?: AudienceSpec;
  rename: boolean;
  refresh: boolean;
  /** Handed to sync as --adopt (see adoptFor). */
  adopt: boolean;
  /** The removal limit in force (removesLimit), handed to sync when applying: "100%" for none. */
  maxRemoves: string;
  input?: string;
  grantOps: Array<{ account: string; level: string }>;
  revokeOps: RemoteGrant[];
}

export const PLAN_FIELDS = ['name', 'account', 'id', 'action', 'adds', 'removes', 'grants', 'revokes', 'drift'];

/** What plan and apply share: who, where the state lives, the sync settings. */
export interface ApplyEnv {
  profile: string;
  stateRoot: string;
  tmpDir: string;
  batchSize: number;
  concurrency: number;
  adopt: boolean;
  /** --max-removes N|P%: the limit for every audience, over the file's max_removes. */
  maxRemoves?: string;
  /** Nobody at a terminal (no TTY, CI=true, XCTL_NO_PROMPT=1): sync's 10% default applies. */
  unattended: boolean;
  workers?: number;
  /** --allow-empty: a source without data rows may remove every member. */
  allowEmpty?: boolean;
}

/** Options handed to sync; keys sync does not know yet pass through for the branches that add them. */
export type PassThroughSyncOptions = SyncOptions;

/** How an audience's messages are told apart on stderr. */
export function label(spec: { name: string; account: string }): string {
  return `${spec.name} (${spec.account})`;
}

export function idType(spec: AudienceSpec): IdType {
  return spec.type ?? spec.columns[0]!.type;
}

export function syncOptions(
  env: ApplyEnv,
  spec: AudienceSpec,
  p: { id: string; input: string; plan: boolean; refresh: boolean; adopt: boolean; maxRemoves: string },
): PassThroughSyncOptions {
  return {
    audienceId: p.id,
    accountId: spec.account,
    profile: env.profile,
    configDir: env.stateRoot,
    stateDir: env.stateRoot,
    input: p.input,
    format: spec.format,
    columns: { type: spec.type, columns: spec.columns },
    hashed: spec.hashed,
    defaultCountry: spec.defaultCountry,
    batchSize: env.batchSize,
    concurrency: env.concurrency,
    plan: p.plan,
    rebuild: false,
    refresh: p.refresh,
    workers: env.workers,
    target: spec.kind === 'do_not_reach' ? 'do_not_reach_list' : 'custom_audience',
    adopt: p.adopt,
    // The plan passes 100%: apply judges the removals itself (removesRefusal) and reports a
    // refused audience in its row, where sync's guard would stop the whole plan. Applying passes
    // the limit in force, never nothing: sync would take its labelled stderr for no terminal.
    maxRemoves: p.maxRemoves,
    gate: spec.maxRejectRate === undefined ? undefined : parseRejectGate(String(spec.maxRejectRate)),
    allowEmpty: env.allowEmpty,
  };
}

/**
 * The removal limit of an audience, as sync's: --max-removes (every audience), else the file's
 * max_removes, else 10% of the audience when nobody is at a terminal, else none.
 */
export function removesLimit(env: ApplyEnv, spec: AudienceSpec): { limit?: MaxRemoves; given?: string } {
  if (env.maxRemoves !== undefined) return { limit: parseMaxRemoves(env.maxRemoves), given: '--max-removes' };
  if (spec.maxRemoves !== undefined) return { limit: parseMaxRemoves(spec.maxRemoves), given: 'max_removes' };
  return { limit: maxRemovesFor(undefined, env.unattended) };
}

/** Why apply refuses the removals of a plan (the numbers and the way out), or undefined. */
export function removesRefusal(env: ApplyEnv, spec: AudienceSpec, s: SyncSummary): string | undefined {
  const { limit, given } = removesLimit(env, spec);
  const x = excessRemoves(limit, s.removes, s.members_before);
  if (!x) return undefined;
  const allows = given ? `${given} ${x.limit} allows` : `${x.limit} allows by default when no terminal is attached`;
  return (
    `${s.removes} of its ${s.members_before} members would be removed${x.pct}, more than ${allows}; ` +
    'nothing is sent for it: check its source (a truncated export looks like this), or if the ' +
    `removals are meant pass --max-removes ${s.removes} (100% turns the guard off) or raise its max_removes`
  );
}

/**
 * At a terminal, with no limit given, removals past sync's 10% are asked about (as sync asks);
 * the question names the audience and the count.
 */
export function removesQuestion(env: ApplyEnv, spec: AudienceSpec, s: SyncSummary): string | undefined {
  if (env.unattended || removesLimit(env, spec).given) return undefined;
  const x = excessRemoves(parseMaxRemoves(UNATTENDED_MAX_REMOVES), s.removes, s.members_before);
  return x
    ? `remove ${s.removes} of the ${s.members_before} members of "${spec.name}" (${spec.account})${x.pct}?`
    : undefined;
}

/** The live audience for a spec, and the drift of its identity. */
function matchAudience(
  spec: AudienceSpec,
  remote: RemoteAudience[],
  state: AccountState,
): { id: string | null; rename: boolean; drift: string[] } {
  const live = remote.filter((r) => !r.deleted);
  const byName = spec.kind === 'do_not_reach' ? live[0] : live.find((r) => r.name === spec.name);
  const known = managedByName(state, spec.kind, spec.name);
  if (byName) return { id: byName.id, rename: false, drift: [] };
  // Names are unique in an account whatever their case: "newsletter" is the file's Newsletter.
  const folded =
    spec.kind === 'custom_audience' ? live.find((r) => r.name.toLowerCase() === spec.name.toLowerCase()) : undefined;
  if (folded)
    return {
      id: folded.id,
      rename: true,
      drift: folded.id === known?.id ? [`renamed by hand to "${folded.name}"`] : [],
    };
  if (!known) return { id: null, rename: false, drift: [] };
  const now = remote.find((r) => r.id === known.id);
  if (!now || now.deleted) return { id: null, rename: false, drift: [`${known.id} deleted by hand`] };
  return { id: known.id, rename: true, drift: [`renamed by hand to "${now.name}"`] };
}

/** Grants to make and revoke: the file's share_with is the whole truth for the audience. */
function planGrants(
  spec: AudienceSpec,
  remote: RemoteGrant[],
  known: ManagedAudience | undefined,
  row: AudiencePlan,
): void {
  for (const g of spec.shareWith) {
    const r = remote.find((x) => x.granted_account_id === g.account);
    if (r && r.permission_level === g.level) continue;
    if (r) row.revokeOps.push(r);
    else if (known?.grants[g.account]) row.drift.push(`grant to ${g.account} revoked by hand`);
    row.grantOps.push(g);
  }
  for (const r of remote) {
    if (spec.shareWith.some((g) => g.account === r.granted_account_id)) continue;
    if (!known?.grants[r.granted_account_id]) row.drift.push(`grant to ${r.granted_account_id} made by hand`);
    row.revokeOps.push(r);
  }
  row.grants = row.grantOps.map((g) => g.account);
  row.revokes = row.revokeOps.map((g) => g.granted_account_id);
}

/** Whether the snapshot's oldest member was sent more than `months` ago. */
function olderThan(iso: string, months: number, nowMs: number): boolean {
  const d = new Date(iso);
  d.setUTCMonth(d.getUTCMonth() + months);
  return nowMs > d.getTime();
}

/** The members part: the snapshot's age, then sync's own plan over the source. */
async function planMembers(
  ctx: Context,
  env: ApplyEnv,
  spec: AudienceSpec,
  row: AudiencePlan,
  known?: ManagedAudience,
): Promise<void> {
  const { runSync } = await import('../sync.js');
  let head: ReturnType<typeof readSnapshotHeader>;
  if (row.id) {
    head = readSnapshotHeader(snapshotPaths(env.stateRoot, env.profile, spec.account, row.id, idType(spec)).snapshot);
    if (!head) row.drift.push('snapshot missing: every member is sent');
    else if (olderThan(head.oldest_sent_at, EXPIRY_MONTHS, ctx.clock.now()))
      row.drift.push(`snapshot older than ${EXPIRY_MONTHS} months: every member is sent again`);
    // Sync's own advice: send members again a month before the service's expiry.
    row.refresh = !!head && olderThan(head.oldest_sent_at, EXPIRY_MONTHS - 1, ctx.clock.now());
  }
  row.input = await sourceFile(ctx, spec, env.tmpDir);
  row.adopt = adoptFor(env, spec, row, head ? undefined : known);
  row.maxRemoves = removesLimit(env, spec).limit?.text ?? '100%';
  const s: SyncSummary = await runSync(
    labelledContext(ctx, label(spec), { quiet: !row.id }),
    syncOptions(env, spec, {
      id: row.id ?? 'new',
      input: row.input,
      plan: true,
      refresh: row.refresh,
      adopt: row.adopt,
      maxRemoves: '100%',
    }),
  );
  row.adds = s.adds;
  row.removes = s.removes;
  row.resumed_batches = s.resumed_batches;
  row.refused = removesRefusal(env, spec, s);
  row.ask = removesQuestion(env, spec, s);
  if (spec.maxRejectRate !== undefined && s.read > 0 && s.rejected / s.read > spec.maxRejectRate) {
    row.refused = `${s.rejected} of ${s.read} rows rejected, more than its max_reject_rate (${spec.maxRejectRate})`;
  }
}

/**
 * Members no snapshot knows are accepted (sync's --adopt) when asked for in the file or on the
 * command line; implied for the first sync of audiences apply created (empty when created).
 * The caller passes `known` only when there is no snapshot yet: with one, adopting would accept
 * members added by hand since.
 */
export function adoptFor(env: ApplyEnv, spec: AudienceSpec, row: AudiencePlan, known?: ManagedAudience): boolean {
  return env.adopt || spec.adopt || !row.id || !!known?.created;
}

function newRow(spec: AudienceSpec): AudiencePlan {
  return {
    name: spec.name,
    account: spec.account,
    id: null,
    kind: spec.kind,
    action: 'none',
    adds: 0,
    removes: 0,
    grants: [],
    revokes: [],
    drift: [],
    resumed_batches: 0,
    spec,
    rename: false,
    refresh: false,
    adopt: false,
    maxRemoves: '100%',
    grantOps: [],
    revokeOps: [],
  };
}

/** One account's rows: its audiences read once, then each spec planned in the file's order. */
export async function planAccount(
  ctx: Context,
  env: ApplyEnv,
  account: string,
  specs: AudienceSpec[],
): Promise<AudiencePlan[]> {
  const state = readState(statePath(env.stateRoot, env.profile, account));
  let custom: RemoteAudience[] = [];
  let dnr: RemoteAudience[] = [];
  try {
    if (specs.some((s) => s.kind === 'custom_audience')) custom = await listAudiences(ctx, account);
    if (specs.some((s) => s.kind === 'do_not_reach')) dnr = await listDoNotReach(ctx, account);
  } catch (e) {
    // The account cannot be read (no access, a typo): each of its audiences says so; the
    // other accounts go on.
    return specs.map((spec) => ({ ...newRow(spec), error: e as Error }));
  }
  const rows: AudiencePlan[] = [];
  for (const spec of specs) {
    if (ctx.signal.aborted) break;
    const row = newRow(spec);
    rows.push(row);
    try {
      const m = matchAudience(spec, spec.kind === 'do_not_reach' ? dnr : custom, state);
      Object.assign(row, { id: m.id, rename: m.rename });
      row.drift.push(...m.drift);
      const known = m.id ? state.audiences.find((a) => a.id === m.id) : undefined;
      if (spec.kind === 'custom_audience')
        planGrants(spec, m.id ? await listGrants(ctx, account, m.id) : [], known, row);
      await planMembers(ctx, env, spec, row, known);
      const changes = row.adds + row.removes + row.resumed_batches + row.grants.length + row.revokes.length;
      row.action = !row.id ? 'create' : row.rename || changes > 0 ? 'update' : 'none';
    } catch (e) {
      row.error = e as Error;
    }
  }
  return rows;
}

/** --prune: audiences apply created on this account that the file no longer lists. */
export async function planPrune(
  ctx: Context,
  env: ApplyEnv,
  account: string,
  kept: AudiencePlan[],
): Promise<AudiencePlan[]> {
  const state = readState(statePath(env.stateRoot, env.profile, account));
  const mine = state.audiences.filter(
    (a) =>
      a.created &&
      !kept.some((k) => k.id === a.id || (k.kind === a.kind && k.kind === 'custom_audience' && k.name === a.name)),
  );
  if (!mine.length) return [];
  const remote = [...(await listAudiences(ctx, account)), ...(await listDoNotReach(ctx, account))];
  const rows: AudiencePlan[] = [];
  for (const a of mine) {
    const r = remote.find((x) => x.id === a.id);
    if (!r || r.deleted) continue; // gone already: apply forgets it
    rows.push({
      name: r.name,
      account,
      id: a.id,
      kind: a.kind,
      action: 'delete',
      adds: 0,
      removes: 0,
      grants: [],
      revokes: [],
      drift: r.name !== a.name ? [`renamed by hand to "${r.name}"`] : [],
      resumed_batches: 0,
      rename: false,
      refresh: false,
      adopt: false,
      maxRemoves: '100%',
      grantOps: [],
      revokeOps: [],
    });
  }
  return rows;
}

/** The row as CI reads it (-o json) and the table shows it. */
export function publicRow(r: AudiencePlan): Record<string, unknown> {
  const out: Record<string, unknown> = {
    name: r.name,
    account: r.account,
    id: r.id,
    // Refused: apply will not touch it (not even create it); `refused` says why.
    action: r.error ? 'error' : r.refused ? 'refused' : r.action,
    adds: r.adds,
    removes: r.removes,
    grants: r.grants,
    revokes: r.revokes,
    drift: r.drift,
  };
  if (r.kind === 'do_not_reach') out.kind = r.kind;
  if (r.resumed_batches) out.resumed_batches = r.resumed_batches;
  if (r.refused) out.refused = r.refused;
  if (r.error) out.error = r.error.message;
  return out;
}
