// Audiences (src/ads/resources/audiences.ts) in the sandbox: who may see, target and change an
// audience (owner, or a live grant), sharing within a business, flexible audiences' immutability,
// the one do-not-reach list per account, and estimates that repeat for the same targeting.
import type { SandboxOps } from '../../ads/resource-types.js';
import { accountFeatures } from './accounts.js';
import { SHARE_OUTSIDE_FEATURE } from '../../ads/resources/audiences.js';
import {
  PRIMARY_TARGETING_TYPES,
  segmentLeaves,
  withSegmentDefaults,
  type Criterion,
} from '../../ads/resources/audience-rules.js';
import type { Behaviour } from './behaviour.js';
import { isOneOf, listOrUndefined } from '../../contract/guards.js';

type Rec = Record<string, unknown> & { id: string };

const PERMISSIONS = 'custom_audience_permissions';

// ---- who may see, target and change an audience ----

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
  return ops.fail(
    404,
    'NOT_FOUND',
    `custom audience ${id} was not found for account ${ops.accountId}`,
    o.parameter ?? 'custom_audience_id',
  );
}

/** Spec 4.4: "only the owning account may create or change permissions" (and delete the audience). */
function ownerOnly(ops: SandboxOps, a: Access, what: string): void {
  if (!a.owner) {
    ops.fail(
      403,
      'UNAUTHORIZED_ACCESS',
      `only the owning account (${String(a.aud.account_id)}) may ${what} custom audience ${a.aud.id}; it is shared with account ${ops.accountId} (is_owner false)`,
      'account_id',
    );
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
    if (
      a.account_id === accountId &&
      !a.deleted &&
      a.id !== exceptId &&
      String(a.name).toLowerCase() === name.toLowerCase()
    ) {
      ops.fail(
        400,
        'INVALID_PARAMETER',
        `a custom audience named "${name}" already exists (${a.id}); names must be unique`,
        'name',
      );
    }
  }
}

/** child_segments as stored: each segment with the spec's defaults written in. */
function segmentList(v: unknown): unknown[] {
  return Array.isArray(v) ? v.map(withSegmentDefaults) : [];
}

/** Every leaf of a flexible audience (child_segments and segments) must be an audience this account may target. */
function checkLeaves(ops: SandboxOps, v: { child_segments?: unknown; segments?: unknown }): void {
  const places: Array<[string, unknown]> = [
    ['child_segments', { child_segments: v.child_segments }],
    ['segments', v.segments],
  ];
  for (const [param, root] of places)
    for (const id of segmentLeaves(root)) {
      const aud = ops.collection('custom_audiences').get(id);
      const usable = aud && !aud.deleted && (aud.account_id === ops.accountId || grantOf(ops, id, ops.accountId));
      if (!usable)
        ops.fail(
          400,
          'INVALID_PARAMETER',
          `${param}: custom audience ${id} does not exist or is not owned by or shared with account ${ops.accountId}`,
          param,
        );
    }
}

function isImmutable(e: Record<string, unknown>): boolean {
  return e.audience_type === 'FLEXIBLE';
}

const IMMUTABLE = 'flexible audiences are immutable once created: create a new one and delete this one';

/** PUT: owner, or a grantee holding READ_WRITE; names stay unique in the owning account. */
function updateAudience(ops: SandboxOps): Rec {
  const a = access(ops, ops.id!);
  if (!a.owner && a.level !== 'READ_WRITE') {
    ops.fail(
      403,
      'UNAUTHORIZED_ACCESS',
      `custom audience ${a.aud.id} is shared with account ${ops.accountId} as ${a.level}: changing it needs READ_WRITE`,
      'account_id',
    );
  }
  if (isImmutable(a.aud))
    ops.fail(400, 'INVALID_PARAMETER', `custom audience ${a.aud.id}: ${IMMUTABLE}`, 'custom_audience_id');
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
function targeted(ops: SandboxOps): Array<Record<string, unknown>> {
  const a = access(ops, ops.id!);
  const withActive = ops.values.with_active !== false; // default true: servable line items only
  const byCampaign = new Map<string, { campaign_id: string; campaign_name: unknown; line_items: Rec[] }>();
  for (const tc of ops.collection('targeting_criteria').values()) {
    if (tc.deleted || tc.account_id !== ops.accountId || tc.targeting_value !== a.aud.id) continue;
    if (tc.targeting_type !== 'CUSTOM_AUDIENCE' && tc.targeting_type !== 'CUSTOM_AUDIENCE_EXPANDED') continue;
    const li = ops.collection('line_items').get(String(tc.line_item_id));
    if (!li || li.deleted) continue;
    const ok = servable(ops, li);
    if (withActive && !ok) continue;
    const c = ops.collection('campaigns').get(String(li.campaign_id));
    const cid = String(li.campaign_id);
    if (!byCampaign.has(cid)) byCampaign.set(cid, { campaign_id: cid, campaign_name: c?.name ?? null, line_items: [] });
    byCampaign.get(cid)!.line_items.push({ id: li.id, name: li.name, servable: ok });
  }
  return [...byCampaign.values()];
}

function listAudiences(ops: SandboxOps): Rec[] {
  const v = ops.values;
  const shared = v.permission_scope === 'SHARED';
  const ids = listOrUndefined(v.custom_audience_ids);
  const q = typeof v.q === 'string' ? v.q.toLowerCase() : undefined;
  const out: Rec[] = [];
  for (const aud of ops.collection('custom_audiences').values()) {
    if (aud.deleted && v.with_deleted !== true) continue;
    if (ids && !ids.includes(aud.id)) continue;
    if (
      q !== undefined &&
      !String(aud.name ?? '')
        .toLowerCase()
        .startsWith(q)
    )
      continue;
    if (!shared && aud.account_id === ops.accountId) out.push(view({ aud, owner: true }));
    if (shared && aud.account_id !== ops.accountId) {
      // permission_scope SHARED: what other accounts shared with this one (live grants only).
      const g = grantOf(ops, aud.id, ops.accountId);
      if (g) out.push(view({ aud, owner: false, level: g.permission_level as string }));
    }
  }
  return out;
}

/**
 * What the Ads SDK reads of an audience (custom_audiences_load.json, docs/contract.md, notes-2 5):
 * audience_type (CRM for a list of users), targetable_types, and targetable with its reasons.
 * The sandbox lets any live audience be targeted, whatever its size; a deleted one cannot be.
 */
function targetability(e: Record<string, unknown>): Record<string, unknown> {
  const type = typeof e.audience_type === 'string' ? e.audience_type : 'CRM';
  return {
    ...e,
    audience_type: type,
    targetable: e.deleted !== true,
    targetable_types: [type, `EXCLUDED_${type}`],
    reasons_not_targetable: e.deleted === true ? ['DELETED'] : [],
  };
}

export const CUSTOM_AUDIENCES: Behaviour = {
  ops: {
    list: listAudiences,
    get: (ops) => view(access(ops, ops.id!, { withDeleted: ops.values.with_deleted === true })),
    update: updateAudience,
    delete: (ops) => {
      const a = access(ops, ops.id!);
      ownerOnly(ops, a, 'delete');
      a.aud.deleted = true;
      a.aud.updated_at = ops.now();
      return view(a);
    },
    targeted,
  },
  hooks: {
    present: targetability,
    create(entity, ops) {
      checkUniqueName(ops, entity.name, ops.accountId);
      entity.description ??= null;
      entity.is_owner = true; // the creating account owns it (reads recompute it per account)
      if (ops.values.audience_type !== undefined) {
        // A batch Create: a flexible (or mobile) combination of existing audiences.
        checkLeaves(ops, ops.values);
        entity.audience_type = ops.values.audience_type;
        entity.child_segments = segmentList(ops.values.child_segments);
        entity.segments = ops.values.segments === undefined ? null : withSegmentDefaults(ops.values.segments);
        entity.audience_size = null; // not a list of users: the service sizes it later (not shown)
      } else {
        entity.audience_size = 0;
      }
    },
    // Batch Update (PUT is the update operation above): flexible audiences refuse any change.
    update(entity, before, ops) {
      if (isImmutable(before))
        ops.fail(400, 'INVALID_PARAMETER', `custom audience ${before.id}: ${IMMUTABLE}`, 'custom_audience_id');
      if (entity.audience_type !== before.audience_type)
        ops.fail(400, 'INVALID_PARAMETER', 'audience_type cannot change', 'audience_type');
      checkUniqueName(ops, ops.values.name, before.account_id, String(before.id));
      if (ops.values.child_segments !== undefined || ops.values.segments !== undefined) checkLeaves(ops, ops.values);
      if (ops.values.child_segments !== undefined) entity.child_segments = segmentList(ops.values.child_segments);
      if (ops.values.segments !== undefined) entity.segments = withSegmentDefaults(ops.values.segments);
    },
  },
};

// ---- permissions: /12 custom audiences and /5 tailored audiences (the same audiences) ----

function permissionBehaviour(kind: 'custom' | 'tailored'): Behaviour {
  const audienceIdOf = (ops: SandboxOps) => ops.path[`${kind}_audience_id`]!;
  const idsParam = `${kind}_audience_permission_ids`;
  return {
    ops: {
      list: (ops) => {
        const a = access(ops, audienceIdOf(ops), { parameter: `${kind}_audience_id` });
        const granted = listOrUndefined(ops.values.granted_account_ids);
        const ids = listOrUndefined(ops.values[idsParam]);
        return [...ops.collection(PERMISSIONS).values()].filter(
          (g) =>
            g.custom_audience_id === a.aud.id &&
            !g.deleted &&
            (a.owner || g.granted_account_id === ops.accountId) &&
            (!granted || granted.includes(String(g.granted_account_id))) &&
            (!ids || ids.includes(g.id)),
        );
      },
      grant: (ops) => grant(ops, audienceIdOf(ops), `${kind}_audience_id`),
      revoke: (ops) => {
        const a = access(ops, audienceIdOf(ops), { parameter: `${kind}_audience_id` });
        ownerOnly(ops, a, 'change permissions of');
        const pid = ops.path[`${kind}_audience_permission_id`]!;
        const g = ops.collection(PERMISSIONS).get(pid);
        if (!g || g.deleted || g.custom_audience_id !== a.aud.id)
          return ops.fail(404, 'NOT_FOUND', `permission ${pid} was not found`, `${kind}_audience_permission_id`);
        g.deleted = true;
        g.updated_at = ops.now();
        return g;
      },
    },
  };
}

function grant(ops: SandboxOps, audienceId: string, parameter: string): Rec {
  const a = access(ops, audienceId, { parameter });
  ownerOnly(ops, a, 'change permissions of');
  const to = String(ops.values.granted_account_id);
  const target = ops.collection('accounts').get(to);
  if (!target || target.deleted)
    ops.fail(400, 'INVALID_PARAMETER', `granted_account_id ${to} is not an ads account`, 'granted_account_id');
  if (to === ops.accountId)
    ops.fail(400, 'INVALID_PARAMETER', 'an account cannot share an audience with itself', 'granted_account_id');
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
  if (existing)
    ops.fail(
      400,
      'INVALID_PARAMETER',
      `account ${to} already holds permission ${existing.id} (${String(existing.permission_level)}) on this audience: revoke it first`,
      'granted_account_id',
    );
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

export const CUSTOM_AUDIENCE_PERMISSIONS: Behaviour = permissionBehaviour('custom');

// Tailored audiences are the /5 name of custom audiences: the same ids and the same grants.
export const TAILORED_AUDIENCE_PERMISSIONS: Behaviour = {
  ...permissionBehaviour('tailored'),
  hooks: {
    present: ({ custom_audience_id, ...rest }) => ({ ...rest, tailored_audience_id: custom_audience_id }),
  },
};

export const DO_NOT_REACH_LISTS: Behaviour = {
  hooks: {
    create(entity, ops) {
      // Spec 4.4: "An account has at most one do-not-reach list".
      for (const l of ops.collection('do_not_reach_lists').values()) {
        if (l.account_id === ops.accountId && !l.deleted)
          ops.fail(
            400,
            'INVALID_PARAMETER',
            `account ${ops.accountId} already has do-not-reach list ${l.id}; an account has at most one`,
          );
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
      if (!usable)
        ops.fail(
          400,
          'INVALID_PARAMETER',
          `targeting_criteria: custom audience ${c.targeting_value} cannot be targeted by account ${ops.accountId} (not its own, not shared with it, or the share was revoked)`,
          'targeting_criteria',
        );
      if (!ne) reach += Number(aud!.audience_size ?? 0) * (c.targeting_type === 'CUSTOM_AUDIENCE_EXPANDED' ? 3 : 1);
      else share *= 0.95;
    } else if (isOneOf(PRIMARY_TARGETING_TYPES, c.targeting_type)) {
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

export const AUDIENCE_ESTIMATES: Behaviour = { ops: { estimate } };
