// Account settings (spec 4.2): `xctl ads settings tax|user`. One record per account (tax) or
// per account and user (user settings), created with defaults on first read.
import type { ResourceDef, SandboxOps } from '../resource-types.js';
import { p } from '../params.js';
import { customOp } from '../ops.js';
import { NUMERIC_ID } from '../../contract/ids.js';

const TAX = '/accounts/:account_id/tax_settings';
const USER = '/accounts/:account_id/user_settings/:user_id';

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

const tax: ResourceDef = {
  name: 'tax_settings',
  dataType: 'tax_settings',
  noun: 'tax',
  group: 'settings',
  defaultVerb: 'get',
  description: 'tax settings of the account',
  columns: ['account_id', 'tax_category', 'invoice_jurisdiction', 'tax_id', 'address_name'],
  operations: [
    customOp('get', 'GET', 'one', TAX, [], { description: 'the tax settings', sandbox: (ops) => taxRecord(ops) }),
    customOp(
      'update',
      'PUT',
      'one',
      TAX,
      [
        p.str('address_name', { max: 255 }),
        p.str('client_address_region', { max: 255, help: 'client address: set when an agency owns the account' }),
        p.str('client_address_street1', { max: 255 }),
        p.str('client_address_street2', { max: 255 }),
        p.enumOf('invoice_jurisdiction', ['LOI_SAPIN', 'NONE', 'NOT_SET']),
        p.enumOf('tax_category', ['BUSINESS_NO_VAT', 'BUSINESS_WITH_VAT', 'INDIVIDUAL']),
        p.str('tax_exemption_id', { max: 255 }),
        p.str('tax_id', { max: 255 }),
      ],
      {
        description: 'change the tax settings',
        sandbox: (ops) => Object.assign(taxRecord(ops), ops.values, { updated_at: ops.now() }),
      },
    ),
  ],
};

function userRecord(ops: SandboxOps): Record<string, unknown> & { id: string } {
  const uid = ops.path.user_id!;
  if (!NUMERIC_ID.test(uid)) ops.fail(400, 'INVALID_PARAMETER', 'user_id must be a whole number', 'user_id');
  const c = ops.collection('user_settings');
  const key = `${ops.accountId}:${uid}`;
  let rec = c.get(key);
  if (!rec) {
    if (!ops.user(uid) || !(ops.account?.user_ids as string[] | undefined)?.includes(uid)) ops.fail(404, 'NOT_FOUND', `user ${uid} has no settings on this account`, 'user_id');
    const now = ops.now();
    rec = { id: key, user_id: uid, account_id: ops.accountId, notification_email: null, contact_phone: null, contact_phone_extension: null, subscribe_email_types: [], created_at: now, updated_at: now };
    c.set(key, rec);
  }
  return rec;
}

const user: ResourceDef = {
  name: 'user_settings',
  dataType: 'user_settings',
  noun: 'user',
  group: 'settings',
  defaultVerb: 'get',
  idParam: 'user_id',
  description: "a user's settings on the account",
  columns: ['user_id', 'notification_email', 'contact_phone', 'contact_phone_extension', 'subscribe_email_types'],
  operations: [
    customOp('get', 'GET', 'one', USER, [], { description: "a user's settings", sandbox: (ops) => userRecord(ops) }),
    customOp(
      'update',
      'PUT',
      'one',
      USER,
      [
        p.str('notification_email', { max: 255, pattern: /^[^\s@]+@[^\s@]+\.[^\s@]+$/, patternRule: 'an email address' }),
        p.str('contact_phone', { max: 32, pattern: /^\+?[0-9 ()-]{4,}$/, patternRule: 'a phone number' }),
        p.str('contact_phone_extension', { max: 10, pattern: /^\d+$/, patternRule: 'digits' }),
        // Sent by the spec's example without a definition: a comma list of upper-case names.
        p.list('subscribe_email_types', { pattern: /^[A-Z_]{1,64}$/, patternRule: 'an email type such as ACCOUNT_PERFORMANCE' }),
      ],
      {
        description: 'change your own settings (user context)',
        sandbox: (ops) => {
          // Spec 5: the update needs the user's own context.
          if (ops.path.user_id !== ops.userId) ops.fail(403, 'UNAUTHORIZED_ACCESS', 'user settings can only be changed by that user', 'user_id');
          return Object.assign(userRecord(ops), ops.values, { updated_at: ops.now() });
        },
      },
    ),
  ],
  sandbox: { present: ({ id: _id, ...rest }) => rest },
};

export const RESOURCES: ResourceDef[] = [tax, user];
