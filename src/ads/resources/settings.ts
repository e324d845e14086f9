// Account settings (spec 4.2): `xctl ads settings tax|user`: one record per account (tax) or per
// account and user (user settings). The sandbox's behaviour is in src/sandbox/ads/settings.ts.
import type { ResourceDef } from '../resource-types.js';
import { p } from '../params.js';
import { customOp, resource } from '../ops.js';

const TAX = '/accounts/:account_id/tax_settings';
const USER = '/accounts/:account_id/user_settings/:user_id';

const tax = resource({
  name: 'tax_settings',
  dataType: 'tax_settings',
  noun: 'tax',
  group: 'settings',
  defaultVerb: 'get',
  description: 'tax settings of the account',
  columns: ['account_id', 'tax_category', 'invoice_jurisdiction', 'tax_id', 'address_name'],
  operations: () => [
    customOp('get', 'GET', 'one', TAX, [], { description: 'the tax settings' }),
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
      { description: 'change the tax settings' },
    ),
  ],
});

const user = resource({
  name: 'user_settings',
  dataType: 'user_settings',
  noun: 'user',
  group: 'settings',
  defaultVerb: 'get',
  idParam: 'user_id',
  description: "a user's settings on the account",
  columns: ['user_id', 'notification_email', 'contact_phone', 'contact_phone_extension', 'subscribe_email_types'],
  operations: () => [
    customOp('get', 'GET', 'one', USER, [], { description: "a user's settings" }),
    customOp(
      'update',
      'PUT',
      'one',
      USER,
      [
        p.str('notification_email', {
          max: 255,
          pattern: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
          patternRule: 'an email address',
        }),
        p.str('contact_phone', { max: 32, pattern: /^\+?[0-9 ()-]{4,}$/, patternRule: 'a phone number' }),
        p.str('contact_phone_extension', { max: 10, pattern: /^\d+$/, patternRule: 'digits' }),
        // Sent by the spec's example without a definition: a comma list of upper-case names.
        p.list('subscribe_email_types', {
          pattern: /^[A-Z_]{1,64}$/,
          patternRule: 'an email type such as ACCOUNT_PERFORMANCE',
        }),
      ],
      { description: 'change your own settings (user context)' },
    ),
  ],
});

export const RESOURCES: ResourceDef[] = [tax, user];
