// Settings (src/ads/resources/settings.ts) in the sandbox: one record per account (tax) or per
// account and user (user settings), created with defaults on first read.
import type { SandboxOps } from '../../ads/resource-types.js';
import { NUMERIC_ID } from '../../contract/ids.js';
import type { Behaviour } from './behaviour.js';
import { listOrUndefined } from '../../contract/guards.js';

function taxRecord(ops: SandboxOps): Record<string, unknown> & { id: string } {
  const c = ops.collection('tax_settings');
  let rec = c.get(ops.accountId!);
  if (!rec) {
    const now = ops.now();
    rec = {
      id: ops.accountId!,
      account_id: ops.accountId,
      address_name: null,
      client_address_region: null,
      client_address_street1: null,
      client_address_street2: null,
      invoice_jurisdiction: 'NOT_SET',
      tax_category: null,
      tax_exemption_id: null,
      tax_id: null,
      created_at: now,
      updated_at: now,
    };
    c.set(rec.id, rec);
  }
  return rec;
}

function userRecord(ops: SandboxOps): Record<string, unknown> & { id: string } {
  const uid = ops.path.user_id!;
  if (!NUMERIC_ID.test(uid)) ops.fail(400, 'INVALID_PARAMETER', 'user_id must be a whole number', 'user_id');
  const c = ops.collection('user_settings');
  const key = `${ops.accountId}:${uid}`;
  let rec = c.get(key);
  if (!rec) {
    if (!ops.user(uid) || !listOrUndefined(ops.account?.user_ids)?.includes(uid))
      ops.fail(404, 'NOT_FOUND', `user ${uid} has no settings on this account`, 'user_id');
    const now = ops.now();
    rec = {
      id: key,
      user_id: uid,
      account_id: ops.accountId,
      notification_email: null,
      contact_phone: null,
      contact_phone_extension: null,
      subscribe_email_types: [],
      created_at: now,
      updated_at: now,
    };
    c.set(key, rec);
  }
  return rec;
}

export const TAX_SETTINGS: Behaviour = {
  ops: {
    get: (ops) => taxRecord(ops),
    update: (ops) => Object.assign(taxRecord(ops), ops.values, { updated_at: ops.now() }),
  },
};

export const USER_SETTINGS: Behaviour = {
  hooks: { present: ({ id: _id, ...rest }) => rest },
  ops: {
    get: (ops) => userRecord(ops),
    update: (ops) => {
      // Spec 5: the update needs the user's own context.
      if (ops.path.user_id !== ops.userId)
        ops.fail(403, 'UNAUTHORIZED_ACCESS', 'user settings can only be changed by that user', 'user_id');
      return Object.assign(userRecord(ops), ops.values, { updated_at: ops.now() });
    },
  },
};
