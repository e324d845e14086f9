// Audiences (ads-api.md 4.4, 4.3 audience_estimate, 7, 8): custom audiences, their sharing
// permissions (/12 custom and /5 tailored), flexible audiences (the closed-beta batch endpoint),
// do-not-reach lists and audience size estimates. Served under `xctl audiences`; the user
// uploads live in src/sandbox/modules/audience-users.ts, which writes `audience_size`.
import * as z from 'zod';
import type { OperationDef, ResourceDef, SandboxOps } from '../resource-types.js';
import { commonList, p, withDeleted } from '../params.js';
import { batchOp, createOp, customOp, deleteOp, getOp, listOp, updateOp } from '../ops.js';
import { accountFeatures } from './accounts.js';
import {
  AUDIENCE_BATCH_MAX, AUDIENCE_TYPES, OPERATOR_TYPES, PRIMARY_TARGETING_TYPES, segmentLeaves, segmentsRule, targetingRule, withSegmentDefaults, type Criterion,
} from './audience-rules.js';

type Rec = Record<string, unknown> & { id: string };

const CAS = '/accounts/:account_id/custom_audiences';
const CA = `${CAS}/:custom_audience_id`;
export const PERMISSION_LEVELS = ['READ_ONLY', 'READ_WRITE'] as const;
/** Spec 4.4: sharing outside the owner's business needs this feature on the owning account. */
export const SHARE_OUTSIDE_FEATURE = 'SHARE_AUDIENCE_OUTSIDE_BUSINESS';
const PERMISSIONS = 'custom_audience_permissions';

// ---- sandbox: who may see, target and change an audience ----

/** The live grant of an audience to an account, if any. */
function grantOf(ops: SandboxOps, audienceId: string, accountId: string | undefined): Rec | undefined {
  for (const g of ops.collection(PERMISSIONS).values()) {
    if (g.custom_audience_id === audienceId && g.granted_account_id === accountId && !g.deleted) return g;
  }
  return undefined;
}

interface Access {
  aud: Rec;
  owner: boolean;
  level?: string;
}

/**
 * The audience as the path's account sees it: its own (is_owner true), or shared with it by a
 * live permission (is_owner false). Anything else, a revoked share included, is 404.
 */
function access(ops: SandboxOps, id: string, o: { withDeleted?: boolean; parameter?: string } = {}): Access {
  const aud = ops.collection('custom_audiences').get(id);
  if (aud && (!aud.deleted || o.withDeleted)) {
    if (aud.account_id === ops.accountId) return { aud, owner: true };
    const g = grantOf(ops, id, ops.accountId);
    if (g) return { aud, owner: false, level: g.permission_level as string };
  }
  return ops.fail(404, 'NOT_FOUND', `custom audience ${id} was not found for account ${ops.accountId}`, o.parameter ?? 'custom_audience_id');
}

/** Spec 4.4: "only the owning account may create or change permissions" (and delete the audience). */
function ownerOnly(ops: SandboxOps, a: Access, what: string): void {
  if (!a.owner) {
    ops.fail(403, 'UNAUTHORIZED_ACCESS', `only the owning account (${String(a.aud.account_id)}) may ${what} custom audience ${a.aud.id}; it is shared with account ${ops.accountId} (is_owner false)`, 'account_id');
  }
}

/** The record as the path's account sees it. */
function view(a: Access): Rec {
  return { ...a.aud, is_owner: a.owner, ...(a.owner ? {} : { permission_level: a.level }) };
}

/** Spec 4.4 (and 7, "Duplicate audience name"): names are unique among the account's live audiences. */
function checkUniqueName(ops: SandboxOps, name: unknown, accountId: unknown, exceptId?: string): void {
  if (typeof name !== 'string') return;
  for (const a of ops.collection('custom_audiences').values()) {
    if (a.account_id === accountId && !a.deleted && a.id !== exceptId && String(a.name).toLowerCase() === name.toLowerCase()) {
      ops.fail(400, 'INVALID_PARAMETER', `a custom audience named "${name}" already exists (${a.id}); names must be unique`, 'name');
    }
  }
}

/** Every leaf of a flexible audience must be an audience this account may target. */
function checkLeaves(ops: SandboxOps, segments: unknown): void {
  for (const id of segmentLeaves(segments)) {
    const aud = ops.collection('custom_audiences').get(id);
    const usable = aud && !aud.deleted && (aud.account_id === ops.accountId || grantOf(ops, id, ops.accountId));
    if (!usable) ops.fail(400, 'INVALID_PARAMETER', `segments: custom audience ${id} does not exist or is not owned by or shared with account ${ops.accountId}`, 'segments');
  }
}

function isImmutable(e: Record<string, unknown>): boolean {
  return e.audience_type === 'FLEXIBLE';
}

const IMMUTABLE = 'flexible audiences are immutable once created (ads-api.md section 3): create a new one and delete this one';

/** PUT: owner, or a grantee holding READ_WRITE; names stay unique in the owning account. */
function updateAudience(ops: SandboxOps): Rec {
  const a = access(ops, ops.id!);
  if (!a.owner && a.level !== 'READ_WRITE') {
    ops.fail(403, 'UNAUTHORIZED_ACCESS', `custom audience ${a.aud.id} is shared with account ${ops.accountId} as ${a.level}: changing it needs READ_WRITE`, 'account_id');
  }
  if (isImmutable(a.aud)) ops.fail(400, 'INVALID_PARAMETER', `custom audience ${a.aud.id}: ${IMMUTABLE}`, 'custom_audience_id');
  checkUniqueName(ops, ops.values.name, a.aud.account_id, a.aud.id);
  for (const k of ['name', 'description']) if (ops.values[k] !== undefined) a.aud[k] = ops.values[k];
  a.aud.updated_at = ops.now();
  return view(a);
}

// A line item is servable when it and its campaign are ACTIVE and neither is deleted.
function servable(ops: SandboxOps, li: Rec): boolean {
  const c = ops.collection('campaigns').get(String(li.campaign_id));
  return !li.deleted && li.entity_status === 'ACTIVE' && !!c && !c.deleted && c.entity_status === 'ACTIVE';
}

/** Spec 4.4 targeted: campaigns (with their line items) of the account that target the audience. */
function targeted(ops: SandboxOps): Rec[] {
  const a = access(ops, ops.id!);
  const withActive = ops.values.with_active !== false; // default true: servable line items only
  const byCampaign = new Map<string, Rec>();
  for (const tc of ops.collection('targeting_criteria').values()) {
    if (tc.deleted || tc.account_id !== ops.accountId || tc.targeting_value !== a.aud.id) continue;
    if (tc.targeting_type !== 'CUSTOM_AUDIENCE' && tc.targeting_type !== 'CUSTOM_AUDIENCE_EXPANDED') continue;
    const li = ops.collection('line_items').get(String(tc.line_item_id));
    if (!li || li.deleted) continue;
    const ok = servable(ops, li);
    if (withActive && !ok) continue;
    const c = ops.collection('campaigns').get(String(li.campaign_id));
    const cid = String(li.campaign_id);
    if (!byCampaign.has(cid)) byCampaign.set(cid, { campaign_id: cid, campaign_name: c?.name ?? null, line_items: [] } as unknown as Rec);
    (byCampaign.get(cid)!.line_items as unknown[]).push({ id: li.id, name: li.name, servable: ok });
  }
  return [...byCampaign.values()];
}

function listAudiences(ops: SandboxOps): Rec[] {
  const v = ops.values;
  const shared = v.permission_scope === 'SHARED';
  const ids = v.custom_audience_ids as string[] | undefined;
  const q = typeof v.q === 'string' ? v.q.toLowerCase() : undefined;
  const out: Rec[] = [];
  for (const aud of ops.collection('custom_audiences').values()) {
    if (aud.deleted && v.with_deleted !== true) continue;
    if (ids && !ids.includes(aud.id)) continue;
    if (q !== undefined && !String(aud.name ?? '').toLowerCase().startsWith(q)) continue;
    if (!shared && aud.account_id === ops.accountId) out.push(view({ aud, owner: true }));
    if (shared && aud.account_id !== ops.accountId) {
      // permission_scope SHARED: what other accounts shared with this one (live grants only).
      const g = grantOf(ops, aud.id, ops.accountId);
      if (g) out.push(view({ aud, owner: false, level: g.permission_level as string }));
    }
  }
  return out;
}

const AUDIENCE_COLUMNS = ['id', 'name', 'audience_size', 'audience_type', 'is_owner', 'description', 'created_at', 'deleted'];

const segmentsParam = (required: boolean) =>
  p.json('segments', z.record(z.string(), z.unknown(), { error: 'must be an object with boolean_operator and child_segments' }), {
    required,
    help: 'the root segment: {"boolean_operator","child_segments":[...]}',
  });

const customAudiences: ResourceDef = {
  name: 'custom_audiences',
  dataType: 'custom_audience',
  noun: 'audiences',
  home: 'audiences',
  idParam: 'custom_audience_id',
  description: 'custom audiences: lists of users to target, their sharing and flexible combinations',
  columns: AUDIENCE_COLUMNS,
  operations: [
    listOp(
      CAS,
      [
        ...commonList(),
        p.enumOf('permission_scope', ['OWNER', 'SHARED'], { default: 'OWNER', help: 'OWNER: this account\'s audiences; SHARED: those shared with it' }),
        p.str('q', { min: 1, max: 255, help: 'name prefix, case-insensitive' }),
        p.list('custom_audience_ids'),
      ],
      { description: 'list custom audiences (own, or shared with the account)', sandbox: listAudiences },
    ),
    getOp(CA, [withDeleted()], {
      description: 'one custom audience, with audience_size (distinct users) and is_owner',
      sandbox: (ops) => view(access(ops, ops.id!, { withDeleted: ops.values.with_deleted === true })),
    }),
    createOp(CAS, [p.str('name', { required: true, min: 1, help: 'unique in the account' }), p.str('description')], { description: 'create a custom audience (names are unique)' }),
    updateOp(CA, [p.str('name', { min: 1, help: 'unique in the account' }), p.str('description')], {
      description: 'rename or describe a custom audience (not flexible ones: they are immutable)',
      sandbox: updateAudience,
    }),
    deleteOp(CA, [], {
      description: 'delete a custom audience (owner only)',
      sandbox: (ops) => {
        const a = access(ops, ops.id!);
        ownerOnly(ops, a, 'delete');
        a.aud.deleted = true;
        a.aud.updated_at = ops.now();
        return view(a);
      },
    }),
    customOp('targeted', 'GET', 'list', `${CA}/targeted`, [p.bool('with_active', { default: true, help: 'false also lists line items that are not servable' }), p.str('cursor', { min: 1 })], {
      description: 'campaigns and line items of the account that target the audience',
      columns: ['campaign_id', 'campaign_name', 'line_items'],
      sandbox: targeted,
    }),
    batchOp(
      '/batch/accounts/:account_id/custom_audiences',
      AUDIENCE_BATCH_MAX,
      {
        Create: {
          params: [p.enumOf('audience_type', AUDIENCE_TYPES, { required: true }), p.str('name', { required: true, min: 1 }), p.str('description'), segmentsParam(true)],
          rules: [segmentsRule],
        },
        Update: {
          params: [p.id('custom_audience_id', { required: true }), p.enumOf('audience_type', AUDIENCE_TYPES), p.str('name', { min: 1 }), p.str('description'), segmentsParam(false)],
          rules: [segmentsRule],
        },
        Delete: { params: [p.id('custom_audience_id', { required: true })] },
      },
      { description: `flexible audiences (closed beta): up to ${AUDIENCE_BATCH_MAX} items, all or nothing`, columns: ['id', 'name', 'audience_type', 'deleted', 'created_at'] },
    ),
  ],
  sandbox: {
    create(entity, ops) {
      checkUniqueName(ops, entity.name, ops.accountId);
      entity.description ??= null;
      entity.is_owner = true; // the creating account owns it (reads recompute it per account)
      if (ops.values.audience_type !== undefined) {
        // A batch Create: a flexible (or mobile) combination of existing audiences.
        checkLeaves(ops, ops.values.segments);
        entity.audience_type = ops.values.audience_type;
        entity.segments = withSegmentDefaults(ops.values.segments);
        entity.audience_size = null; // not a list of users: the service sizes it later (not shown)
      } else {
        entity.audience_size = 0;
      }
    },
    // Batch Update (PUT has its own function above): flexible audiences refuse any change.
    update(entity, before, ops) {
      if (isImmutable(before)) ops.fail(400, 'INVALID_PARAMETER', `custom audience ${before.id}: ${IMMUTABLE}`, 'custom_audience_id');
      if (entity.audience_type !== before.audience_type) ops.fail(400, 'INVALID_PARAMETER', 'audience_type cannot change', 'audience_type');
      checkUniqueName(ops, ops.values.name, before.account_id, String(before.id));
      if (ops.values.segments !== undefined) {
        checkLeaves(ops, ops.values.segments);
        entity.segments = withSegmentDefaults(ops.values.segments);
      }
    },
  },
};

// ---- permissions: /12 custom audiences and /5 tailored audiences (the same audiences) ----

function permissionOps(version: '12' | '5', kind: 'custom' | 'tailored'): OperationDef[] {
  const base = `/accounts/:account_id/${kind}_audiences/:${kind}_audience_id/permissions`;
  const o = { version, description: '' };
  const audienceIdOf = (ops: SandboxOps) => ops.path[`${kind}_audience_id`]!;
  const idsParam = `${kind}_audience_permission_ids`;
  return [
    listOp(base, [...commonList({ deleted: false }), p.list('granted_account_ids'), p.list(idsParam)], {
      ...o,
      description: `list who an audience is shared with (the owner sees every grant, a grantee its own)`,
      sandbox: (ops) => {
        const a = access(ops, audienceIdOf(ops), { parameter: `${kind}_audience_id` });
        const granted = ops.values.granted_account_ids as string[] | undefined;
        const ids = ops.values[idsParam] as string[] | undefined;
        return [...ops.collection(PERMISSIONS).values()].filter(
          (g) =>
            g.custom_audience_id === a.aud.id &&
            !g.deleted &&
            (a.owner || g.granted_account_id === ops.accountId) &&
            (!granted || granted.includes(String(g.granted_account_id))) &&
            (!ids || ids.includes(g.id)),
        );
      },
    }),
    createOp(base, [p.id('granted_account_id', { required: true }), p.enumOf('permission_level', PERMISSION_LEVELS, { required: true })], {
      ...o,
      verb: 'grant',
      description: 'share an audience with another account (owner only; same business, or SHARE_AUDIENCE_OUTSIDE_BUSINESS)',
      sandbox: (ops) => grant(ops, audienceIdOf(ops), `${kind}_audience_id`),
    }),
    deleteOp(`${base}/:${kind}_audience_permission_id`, [], {
      ...o,
      verb: 'revoke',
      description: 'revoke a share: the grantee can no longer target the audience in new campaigns (running ones keep it)',
      sandbox: (ops) => {
        const a = access(ops, audienceIdOf(ops), { parameter: `${kind}_audience_id` });
        ownerOnly(ops, a, 'change permissions of');
        const pid = ops.path[`${kind}_audience_permission_id`]!;
        const g = ops.collection(PERMISSIONS).get(pid);
        if (!g || g.deleted || g.custom_audience_id !== a.aud.id) return ops.fail(404, 'NOT_FOUND', `permission ${pid} was not found`, `${kind}_audience_permission_id`);
        g.deleted = true;
        g.updated_at = ops.now();
        return g;
      },
    }),
  ];
}

function grant(ops: SandboxOps, audienceId: string, parameter: string): Rec {
  const a = access(ops, audienceId, { parameter });
  ownerOnly(ops, a, 'change permissions of');
  const to = String(ops.values.granted_account_id);
  const target = ops.collection('accounts').get(to);
  if (!target || target.deleted) ops.fail(400, 'INVALID_PARAMETER', `granted_account_id ${to} is not an ads account`, 'granted_account_id');
  if (to === ops.accountId) ops.fail(400, 'INVALID_PARAMETER', 'an account cannot share an audience with itself', 'granted_account_id');
  // Spec 4.4: same business, or the owner has SHARE_AUDIENCE_OUTSIDE_BUSINESS.
  const sameBusiness = target.business_id !== undefined && target.business_id === ops.account?.business_id;
  if (!sameBusiness && !accountFeatures(ops.account).includes(SHARE_OUTSIDE_FEATURE)) {
    ops.fail(
      400,
      'INVALID_PARAMETER',
      `account ${to} belongs to another business (${String(target.business_id)}); sharing outside business ${String(ops.account?.business_id)} needs the owner's feature ${SHARE_OUTSIDE_FEATURE}`,
      'granted_account_id',
    );
  }
  const existing = grantOf(ops, a.aud.id, to);
  if (existing) ops.fail(400, 'INVALID_PARAMETER', `account ${to} already holds permission ${existing.id} (${String(existing.permission_level)}) on this audience: revoke it first`, 'granted_account_id');
  const now = ops.now();
  const g: Rec = {
    id: ops.newId(),
    account_id: ops.accountId,
    custom_audience_id: a.aud.id,
    granted_account_id: to,
    permission_level: ops.values.permission_level,
    created_at: now,
    updated_at: now,
    deleted: false,
  };
  ops.collection(PERMISSIONS).set(g.id, g);
  return g;
}

const PERMISSION_COLUMNS = ['id', 'granted_account_id', 'permission_level', 'created_at', 'deleted'];

const customAudiencePermissions: ResourceDef = {
  name: PERMISSIONS,
  dataType: 'custom_audience_permission',
  noun: 'permissions',
  home: 'audiences',
  idParam: 'custom_audience_permission_id',
  description: 'who a custom audience is shared with',
  columns: PERMISSION_COLUMNS,
  operations: permissionOps('12', 'custom'),
};

// Tailored audiences are the /5 name of custom audiences: the same ids and the same grants.
const tailoredAudiencePermissions: ResourceDef = {
  name: 'tailored_audience_permissions',
  dataType: 'tailored_audience_permission',
  noun: 'permissions',
  home: 'audiences',
  idParam: 'tailored_audience_permission_id',
  description: 'who a tailored audience is shared with (/5)',
  columns: PERMISSION_COLUMNS,
  operations: permissionOps('5', 'tailored'),
  sandbox: {
    present: ({ custom_audience_id, ...rest }) => ({ ...rest, tailored_audience_id: custom_audience_id }),
  },
};

// ---- do-not-reach lists ----

const doNotReachLists: ResourceDef = {
  name: 'do_not_reach_lists',
  dataType: 'do_not_reach_list',
  noun: 'do-not-reach',
  home: 'audiences',
  idParam: 'do_not_reach_list_id',
  description: "the account's do-not-reach list: excluded from every campaign of the account",
  columns: ['id', 'description', 'audience_size', 'created_at', 'deleted'],
  operations: [
    listOp('/accounts/:account_id/do_not_reach_lists', [withDeleted()], { description: 'the do-not-reach list of the account (at most one)' }),
    createOp('/accounts/:account_id/do_not_reach_lists', [p.str('description')], { description: 'create the do-not-reach list (one per account)' }),
    deleteOp('/accounts/:account_id/do_not_reach_lists/:do_not_reach_list_id', [], { description: 'delete the do-not-reach list' }),
  ],
  sandbox: {
    create(entity, ops) {
      // Spec 4.4: "An account has at most one do-not-reach list".
      for (const l of ops.collection('do_not_reach_lists').values()) {
        if (l.account_id === ops.accountId && !l.deleted) ops.fail(400, 'INVALID_PARAMETER', `account ${ops.accountId} already has do-not-reach list ${l.id}; an account has at most one`);
      }
      entity.description ??= null;
      entity.audience_size = 0;
    },
  },
};

// ---- audience estimate (spec 4.3) ----

/** A stable pseudo-random reach in [lo, hi) for one targeting value: estimates repeat. */
function pseudo(key: string, lo: number, hi: number): number {
  let h = 2166136261;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619) >>> 0;
  return lo + (h % (hi - lo));
}

/** The addressable population the sandbox pretends to have. */
const POPULATION = 250_000_000;

function estimate(ops: SandboxOps): Record<string, unknown> {
  const criteria = ops.values.targeting_criteria as Criterion[];
  let reach = 0;
  let share = 1;
  for (const c of criteria) {
    const ne = c.operator_type === 'NE';
    if (c.targeting_type === 'CUSTOM_AUDIENCE' || c.targeting_type === 'CUSTOM_AUDIENCE_EXPANDED') {
      // Spec 4.4: once a share is revoked the grantee cannot target the audience in future.
      const aud = ops.collection('custom_audiences').get(c.targeting_value);
      const usable = aud && !aud.deleted && (aud.account_id === ops.accountId || grantOf(ops, aud.id, ops.accountId));
      if (!usable) ops.fail(400, 'INVALID_PARAMETER', `targeting_criteria: custom audience ${c.targeting_value} cannot be targeted by account ${ops.accountId} (not its own, not shared with it, or the share was revoked)`, 'targeting_criteria');
      if (!ne) reach += Number(aud!.audience_size ?? 0) * (c.targeting_type === 'CUSTOM_AUDIENCE_EXPANDED' ? 3 : 1);
      else share *= 0.95;
    } else if ((PRIMARY_TARGETING_TYPES as readonly string[]).includes(c.targeting_type)) {
      if (!ne) reach += pseudo(`${c.targeting_type}:${c.targeting_value}`, 50_000, 5_000_000);
      else share *= 0.9;
    } else {
      share *= ne ? 0.9 : pseudo(`${c.targeting_type}:${c.targeting_value}`, 20, 90) / 100;
    }
  }
  let size = Math.min(POPULATION, Math.round(reach * share));
  // operator_type NE negates the whole targeting.
  if (ops.values.operator_type === 'NE') size = POPULATION - size;
  return { audience_size: { min: Math.floor((size * 9) / 10), max: Math.ceil((size * 11) / 10) } };
}

const estimateOp = customOp(
  'estimate',
  'POST',
  'one',
  '/accounts/:account_id/audience_estimate',
  [
    p.json('targeting_criteria', z.array(z.unknown(), { error: 'must be an array of targeting criteria' }), { required: true, help: 'as for POST targeting_criteria; at least one primary criterion' }),
    p.enumOf('operator_type', OPERATOR_TYPES, { default: 'EQ', help: 'NE negates the targeting' }),
  ],
  { description: 'estimate the audience size of a targeting', rules: [targetingRule], sandbox: estimate, columns: ['audience_size.min', 'audience_size.max'] },
);
estimateOp.body = 'json';

const audienceEstimates: ResourceDef = {
  name: 'audience_estimates',
  dataType: 'audience_estimate',
  noun: 'estimate',
  home: 'audiences',
  description: 'audience size estimates',
  columns: ['audience_size.min', 'audience_size.max'],
  operations: [estimateOp],
};

export const RESOURCES: ResourceDef[] = [customAudiences, customAudiencePermissions, tailoredAudiencePermissions, doNotReachLists, audienceEstimates];
