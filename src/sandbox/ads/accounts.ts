// Accounts (src/ads/resources/accounts.ts) in the sandbox: what a new account holds (and the
// funding instrument it comes with), the features granted to it, the caller's access, its apps
// and its change history.
import type { SandboxOps } from '../../ads/resource-types.js';
import { parseIsoTime } from '../../contract/time.js';
import type { Behaviour } from './behaviour.js';
import { sandboxFundingInstrument } from './campaigns.js';
import { listOf, listOrUndefined } from '../../contract/guards.js';

/** The fields of a sandbox account (the seeded one and those of `accounts create`). */
export function sandboxAccountFields(name: string, now: string, userId: string): Record<string, unknown> {
  return {
    name,
    business_name: 'Sandbox Business',
    business_id: 'sandbox-business-1',
    timezone: 'America/New_York',
    timezone_switch_at: now,
    approval_status: 'ACCEPTED',
    industry_type: 'OTHER',
    user_ids: [userId],
  };
}

/** The account's granted features (kept on the account record as `_features`). */
export function accountFeatures(account: Record<string, unknown> | undefined): string[] {
  return [...(listOrUndefined(account?._features) ?? [])];
}

export const ACCOUNTS: Behaviour = {
  hooks: {
    create(entity, ops) {
      Object.assign(
        entity,
        sandboxAccountFields(
          `Sandbox account ${ops.collection('accounts').size + 1}`,
          String(entity.created_at),
          ops.userId,
        ),
      );
      // A new sandbox account gets a funding instrument so that campaigns can be created at once.
      const fiId = ops.newId();
      ops
        .collection('funding_instruments')
        .set(fiId, sandboxFundingInstrument(fiId, String(entity.id), String(entity.created_at)));
    },
    present: (e) => {
      const { user_ids: _u, ...rest } = e;
      return rest;
    },
  },
  ops: {
    features: (ops) => {
      const asked = listOrUndefined(ops.values.feature_keys);
      return accountFeatures(ops.account).filter((f) => !asked || asked.includes(f));
    },
    'add-features': (ops) => {
      const set = new Set(accountFeatures(ops.account));
      for (const f of listOf(ops.values.feature_keys)) set.add(f);
      ops.account!._features = [...set];
      return [...set];
    },
    'remove-features': (ops) => {
      const drop = new Set(listOf(ops.values.feature_keys));
      ops.account!._features = accountFeatures(ops.account).filter((f) => !drop.has(f));
      return ops.account!._features;
    },
    access: (ops) => {
      const access = (ops.account?._access as Record<string, string[]> | undefined)?.[ops.userId] ?? [
        'ACCOUNT_ADMIN',
        'TWEET_COMPOSER',
      ];
      return { user_id: ops.userId, permissions: access };
    },
    apps: (ops) =>
      [...ops.collection('account_apps').values()].filter(
        (a) => a.account_id === ops.accountId && (ops.values.with_deleted === true || !a.deleted),
      ),
    history: (ops: SandboxOps) => {
      const v = ops.values;
      const from = parseIsoTime(String(v.start_time))!;
      const to = parseIsoTime(String(v.end_time))!;
      return [...ops.collection('account_history').values()].filter(
        (h) =>
          h.account_id === ops.accountId &&
          h.entity_type === v.entity_type &&
          h.entity_id === v.entity_id &&
          (v.user_id === undefined || h.user_id === v.user_id) &&
          typeof h._ms === 'number' &&
          h._ms >= from &&
          h._ms < to,
      );
    },
  },
};
