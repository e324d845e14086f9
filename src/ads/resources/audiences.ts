// Audiences (docs/contract.md, ads 4.4, 4.3 audience_estimate, 7, 8): custom audiences, their sharing
// permissions (/12 custom and /5 tailored), flexible audiences (the closed-beta batch endpoint),
// do-not-reach lists and audience size estimates. Served under `xctl audiences`. The sandbox's
// behaviour is in src/sandbox/ads/audiences.ts; the user uploads in
// src/sandbox/modules/audience-users.ts, which writes `audience_size`.
import * as z from 'zod';
import type { OperationDef, ResourceDef } from '../resource-types.js';
import { commonList, p, withDeleted } from '../params.js';
import { batchOp, createOp, customOp, deleteOp, getOp, listOp, resource, updateOp } from '../ops.js';
import { AUDIENCE_BATCH_MAX, AUDIENCE_TYPES, OPERATOR_TYPES, flexibleRule, targetingRule } from './audience-rules.js';

const CAS = '/accounts/:account_id/custom_audiences';
const CA = `${CAS}/:custom_audience_id`;
export const PERMISSION_LEVELS = ['READ_ONLY', 'READ_WRITE'] as const;
/** Spec 4.4: sharing outside the owner's business needs this feature on the owning account. */
export const SHARE_OUTSIDE_FEATURE = 'SHARE_AUDIENCE_OUTSIDE_BUSINESS';
const PERMISSIONS = 'custom_audience_permissions';

const AUDIENCE_COLUMNS = [
  'id',
  'name',
  'audience_size',
  'audience_type',
  'is_owner',
  'description',
  'created_at',
  'deleted',
];

// docs/contract.md, ads 4.4: child_segments is the required field (an array of segments), segments the
// optional one (an object with boolean_operator and child_segments).
const childSegmentsParam = (required: boolean) =>
  p.json('child_segments', z.array(z.unknown(), { error: 'must be an array of segments' }), {
    required,
    help: 'the segments: [{"custom_audience_id","negate":false,...}, {"boolean_operator","child_segments":[...]}]',
  });
const segmentsParam = () =>
  p.json(
    'segments',
    z.record(z.string(), z.unknown(), { error: 'must be an object with boolean_operator and child_segments' }),
    { help: 'a root segment: {"boolean_operator","child_segments":[...]}' },
  );

const customAudiences = resource({
  name: 'custom_audiences',
  dataType: 'custom_audience',
  noun: 'audiences',
  home: 'audiences',
  idParam: 'custom_audience_id',
  description: 'custom audiences: lists of users to target, their sharing and flexible combinations',
  columns: AUDIENCE_COLUMNS,
  operations: () => [
    listOp(
      CAS,
      [
        ...commonList(),
        p.enumOf('permission_scope', ['OWNER', 'SHARED'], {
          default: 'OWNER',
          help: "OWNER: this account's audiences; SHARED: those shared with it",
        }),
        p.str('q', { min: 1, max: 255, help: 'name prefix, case-insensitive' }),
        p.list('custom_audience_ids'),
      ],
      { description: 'list custom audiences (own, or shared with the account)' },
    ),
    getOp(CA, [withDeleted()], {
      description: 'one custom audience, with audience_size (distinct users) and is_owner',
    }),
    createOp(CAS, [p.str('name', { required: true, min: 1, help: 'unique in the account' }), p.str('description')], {
      description: 'create a custom audience (names are unique)',
    }),
    updateOp(CA, [p.str('name', { min: 1, help: 'unique in the account' }), p.str('description')], {
      description: 'rename or describe a custom audience (not flexible ones: they are immutable)',
    }),
    deleteOp(CA, [], { description: 'delete a custom audience (owner only)' }),
    customOp(
      'targeted',
      'GET',
      'list',
      `${CA}/targeted`,
      [
        p.bool('with_active', { default: true, help: 'false also lists line items that are not servable' }),
        p.str('cursor', { min: 1 }),
      ],
      {
        description: 'campaigns and line items of the account that target the audience',
        columns: ['campaign_id', 'campaign_name', 'line_items'],
      },
    ),
    batchOp(
      '/batch/accounts/:account_id/custom_audiences',
      AUDIENCE_BATCH_MAX,
      {
        Create: {
          params: [
            p.enumOf('audience_type', AUDIENCE_TYPES, { required: true }),
            p.str('name', { required: true, min: 1 }),
            p.str('description'),
            childSegmentsParam(true),
            segmentsParam(),
          ],
          rules: [flexibleRule({ childRequired: true })],
        },
        Update: {
          params: [
            p.id('custom_audience_id', { required: true }),
            p.enumOf('audience_type', AUDIENCE_TYPES),
            p.str('name', { min: 1 }),
            p.str('description'),
            childSegmentsParam(false),
            segmentsParam(),
          ],
          rules: [flexibleRule({ childRequired: false })],
        },
        Delete: { params: [p.id('custom_audience_id', { required: true })] },
      },
      {
        description: `flexible audiences (closed beta): up to ${AUDIENCE_BATCH_MAX} items, all or nothing`,
        columns: ['id', 'name', 'audience_type', 'deleted', 'created_at'],
      },
    ),
  ],
});

// ---- permissions: /12 custom audiences and /5 tailored audiences (the same audiences) ----

function permissionOps(version: '12' | '5', kind: 'custom' | 'tailored'): OperationDef[] {
  const base = `/accounts/:account_id/${kind}_audiences/:${kind}_audience_id/permissions`;
  const o = { version, description: '' };
  const idsParam = `${kind}_audience_permission_ids`;
  return [
    listOp(base, [...commonList({ deleted: false }), p.list('granted_account_ids'), p.list(idsParam)], {
      ...o,
      description: `list who an audience is shared with (the owner sees every grant, a grantee its own)`,
    }),
    createOp(
      base,
      [
        p.id('granted_account_id', { required: true }),
        p.enumOf('permission_level', PERMISSION_LEVELS, { required: true }),
      ],
      {
        ...o,
        verb: 'grant',
        description:
          'share an audience with another account (owner only; same business, or SHARE_AUDIENCE_OUTSIDE_BUSINESS)',
      },
    ),
    deleteOp(`${base}/:${kind}_audience_permission_id`, [], {
      ...o,
      verb: 'revoke',
      description:
        'revoke a share: the grantee can no longer target the audience in new campaigns (running ones keep it)',
    }),
  ];
}

const PERMISSION_COLUMNS = ['id', 'granted_account_id', 'permission_level', 'created_at', 'deleted'];

const customAudiencePermissions = resource({
  name: PERMISSIONS,
  dataType: 'custom_audience_permission',
  noun: 'permissions',
  home: 'audiences',
  idParam: 'custom_audience_permission_id',
  description: 'who a custom audience is shared with',
  columns: PERMISSION_COLUMNS,
  operations: () => permissionOps('12', 'custom'),
});

// Tailored audiences are the /5 name of custom audiences: the same ids and the same grants.
const tailoredAudiencePermissions = resource({
  name: 'tailored_audience_permissions',
  dataType: 'tailored_audience_permission',
  noun: 'permissions',
  home: 'audiences',
  idParam: 'tailored_audience_permission_id',
  description: 'who a tailored audience is shared with (/5)',
  columns: PERMISSION_COLUMNS,
  operations: () => permissionOps('5', 'tailored'),
});

// ---- do-not-reach lists ----

const doNotReachLists = resource({
  name: 'do_not_reach_lists',
  dataType: 'do_not_reach_list',
  noun: 'do-not-reach',
  home: 'audiences',
  idParam: 'do_not_reach_list_id',
  description: "the account's do-not-reach list: excluded from every campaign of the account",
  columns: ['id', 'description', 'audience_size', 'created_at', 'deleted'],
  operations: () => [
    listOp('/accounts/:account_id/do_not_reach_lists', [withDeleted()], {
      description: 'the do-not-reach list of the account (at most one)',
    }),
    createOp('/accounts/:account_id/do_not_reach_lists', [p.str('description')], {
      description: 'create the do-not-reach list (one per account)',
    }),
    deleteOp('/accounts/:account_id/do_not_reach_lists/:do_not_reach_list_id', [], {
      description: 'delete the do-not-reach list',
    }),
  ],
});

// ---- audience estimate (spec 4.3) ----

function estimateOp(): OperationDef {
  const op = customOp(
    'estimate',
    'POST',
    'one',
    '/accounts/:account_id/audience_estimate',
    [
      p.json('targeting_criteria', z.array(z.unknown(), { error: 'must be an array of targeting criteria' }), {
        required: true,
        help: 'as for POST targeting_criteria; at least one primary criterion',
      }),
      p.enumOf('operator_type', OPERATOR_TYPES, { default: 'EQ', help: 'NE negates the targeting' }),
    ],
    {
      description: 'estimate the audience size of a targeting',
      rules: [targetingRule],
      columns: ['audience_size.min', 'audience_size.max'],
    },
  );
  op.body = 'json';
  return op;
}

const audienceEstimates = resource({
  name: 'audience_estimates',
  dataType: 'audience_estimate',
  noun: 'estimate',
  home: 'audiences',
  description: 'audience size estimates',
  columns: ['audience_size.min', 'audience_size.max'],
  operations: () => [estimateOp()],
});

export const RESOURCES: ResourceDef[] = [
  customAudiences,
  customAudiencePermissions,
  tailoredAudiencePermissions,
  doNotReachLists,
  audienceEstimates,
];
