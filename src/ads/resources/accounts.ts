// Accounts (spec 4.2): the account itself, its features, the caller's access, its apps, its
// change history (beta), and the /5 recommendations. The sandbox's behaviour is in
// src/sandbox/ads/accounts.ts.
import type { ResourceDef, Rule } from '../resource-types.js';
import { commonList, p } from '../params.js';
import { parseIsoTime } from '../../contract/time.js';
import { createOp, customOp, deleteOp, getOp, listOp, resource, updateOp } from '../ops.js';

export const INDUSTRY_TYPES = [
  'AGENCY',
  'BUSINESS_TO_BUSINESS',
  'ONLINE_SERVICES',
  'EDUCATION',
  'FINANCIAL',
  'HEALTH',
  'GOVERNMENT',
  'MEDIA',
  'MOBILE',
  'RESTAURANT',
  'RETAIL',
  'TECHNOLOGY',
  'TRAVEL',
  'OTHER',
] as const;

/** Feature keys GET .../features may be asked about. */
export const READ_FEATURE_KEYS = [
  'REACH_AND_FREQUENCY_ANALYTICS',
  'REACH_FREQUENCY_CAP',
  'WEBSITE_CLICKS_CPM_BILLING',
] as const;

/** Feature keys the sandbox can add to or remove from an account (SANDBOX POST/DELETE features). */
export const SANDBOX_FEATURE_KEYS = [
  'AGE_TARGETING',
  'ALLOW_SKIPPABLE_VIDEOS_FOR_PREROLL_VIEWS_OBJECTIVE',
  'AWARENESS_OBJECTIVE',
  'BRAND_TPN',
  'CHARGE_FOR_GOOD_CLICK',
  'CONVERSATION_CARD',
  'CONVERSATION_CARD_FOUR_OPTIONS',
  'CONVERSATION_CARD_UNLOCK',
  'CPI_CHARGING',
  'DIRECT_MESSAGE_CARD',
  'DR_TAP',
  'ENGAGER_RETARGETING',
  'EVENT_TARGETING',
  'INSTALLED_APP_CATEGORY_TARGETING',
  'MOBILE_CONVERSION_TRANSACTION_VALUE',
  'OPTIMIZED_ACTION_BIDDING',
  'REACH_AND_FREQUENCY_ANALYTICS',
  'REACH_FREQUENCY_CAP',
  'VALIDATED_AGE_TARGETING',
  'VIDEO_VIEWS_MIDROLL_OBJECTIVE',
  'PREROLL_VIEWS_OBJECTIVE',
  'VIDEO_APP_DOWNLOAD_CARD',
  // docs/contract.md, ads 4.1: media polls (an image or a video on a poll card) are a beta of this feature.
  'PROMOTED_MEDIA_POLLS',
] as const;

export const ACCESS_VALUES = [
  'ACCOUNT_ADMIN',
  'AD_MANAGER',
  'CREATIVE_MANAGER',
  'CAMPAIGN_ANALYST',
  'ANALYST',
  'PARTNER_AUDIENCE_MANAGER',
  'TWEET_COMPOSER',
] as const;

export const HISTORY_ENTITY_TYPES = [
  'CAMPAIGN',
  'LINE_ITEM',
  'PROMOTED_TWEET',
  'TARGETING_CRITERIA',
  'PROMOTED_ACCOUNT',
] as const;

const ACCOUNT = '/accounts/:account_id';

const endAfterStart: Rule = (v) => {
  if (typeof v.start_time !== 'string' || typeof v.end_time !== 'string') return undefined;
  return parseIsoTime(v.end_time)! <= parseIsoTime(v.start_time)!
    ? { param: 'end_time', code: 'INVALID_PARAMETER', message: 'must be after start_time' }
    : undefined;
};

const accounts = resource({
  name: 'accounts',
  dataType: 'account',
  noun: 'accounts',
  idParam: 'account_id',
  description: 'ads accounts the user can use, their features, access, apps and history',
  columns: ['id', 'name', 'business_name', 'industry_type', 'timezone', 'approval_status', 'deleted'],
  operations: () => [
    listOp(
      '/accounts',
      [p.list('account_ids'), ...commonList(), p.str('q', { min: 1, max: 255, help: 'name prefix, case-insensitive' })],
      { description: 'list the accounts of the user' },
    ),
    getOp(ACCOUNT, [p.bool('with_deleted', { default: false })], { description: 'one account (default: --account)' }),
    createOp('/accounts', [], { description: 'create an account (sandbox only)', sandboxOnly: true }),
    updateOp(ACCOUNT, [p.str('name', { min: 1, max: 255 }), p.enumOf('industry_type', INDUSTRY_TYPES)], {
      description: 'change the name or industry type',
    }),
    deleteOp(ACCOUNT, [], { description: 'delete an account (sandbox only)', sandboxOnly: true }),
    customOp('features', 'GET', 'list', `${ACCOUNT}/features`, [p.list('feature_keys', { of: READ_FEATURE_KEYS })], {
      description: 'features granted to the account (only granted ones are listed)',
      columns: ['value'],
    }),
    customOp(
      'add-features',
      'POST',
      'list',
      `${ACCOUNT}/features`,
      [p.list('feature_keys', { of: SANDBOX_FEATURE_KEYS, required: true })],
      {
        description: 'grant features to the account (sandbox only)',
        sandboxOnly: true,
        columns: ['value'],
      },
    ),
    customOp(
      'remove-features',
      'DELETE',
      'list',
      `${ACCOUNT}/features`,
      [p.list('feature_keys', { of: SANDBOX_FEATURE_KEYS, required: true })],
      {
        description: 'withdraw features from the account (sandbox only)',
        sandboxOnly: true,
        columns: ['value'],
      },
    ),
    customOp('access', 'GET', 'one', `${ACCOUNT}/authenticated_user_access`, [], {
      description: "the caller's permissions on the account",
    }),
    customOp('apps', 'GET', 'list', `${ACCOUNT}/account_apps`, commonList({ count: 1000 }), {
      description: 'mobile apps of the account',
      columns: ['id', 'app_store_identifier', 'os_type', 'name', 'deleted'],
    }),
    customOp(
      'history',
      'GET',
      'list',
      `${ACCOUNT}/account_history`,
      [
        p.int('count', { min: 1, max: 1000, default: 200 }),
        p.str('cursor', { min: 1 }),
        p.enumOf('entity_type', HISTORY_ENTITY_TYPES, { required: true }),
        p.id('entity_id', { required: true }),
        // Spec 4.2: start_time and end_time required, whole hours only.
        p.time('start_time', { required: true, wholeHours: true }),
        p.time('end_time', { required: true, wholeHours: true }),
        p.long('user_id'),
      ],
      {
        description: 'changes made to an entity of the account (beta)',
        rules: [endAfterStart],
        columns: ['timestamp', 'entity_type', 'entity_id', 'change_type', 'user_id', 'changes'],
      },
    ),
  ],
});

// Closed beta, /5: at most one recommendation per funding instrument (seeded in the sandbox).
const recommendations = resource({
  name: 'recommendations',
  dataType: 'recommendation',
  noun: 'recommendations',
  idParam: 'recommendation_id',
  description: 'campaign recommendations (closed beta, /5)',
  columns: ['id', 'funding_instrument_id', 'message', 'created_at'],
  operations: () => [
    listOp('/accounts/:account_id/recommendations', [], { description: 'list recommendations', version: '5' }),
    getOp('/accounts/:account_id/recommendations/:recommendation_id', [], {
      description: 'one recommendation: a tree of suggested changes for the batch endpoints',
      version: '5',
    }),
  ],
});

export const RESOURCES: ResourceDef[] = [accounts, recommendations];
