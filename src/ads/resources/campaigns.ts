// Campaign structure (spec 4.3): campaigns (with the batch endpoint) and funding instruments;
// the line items they hold are in line-items.ts. The sandbox's behaviour is in
// src/sandbox/ads/campaigns.ts.
import type { ParamDef, ResourceDef, Rule } from '../resource-types.js';
import { atMost, commonList, p } from '../params.js';
import { batchOp, createOp, deleteOp, getOp, listOp, resource, updateOp } from '../ops.js';

const CAMPAIGNS = '/accounts/:account_id/campaigns';
const CAMPAIGN = `${CAMPAIGNS}/:campaign_id`;

/** Spec section 8: 200 active campaigns per account by default (8,000 when raised). */
export const DEFAULT_MAX_ACTIVE_CAMPAIGNS = 200;
/** Spec section 8: campaign batch, 40 items. */
export const CAMPAIGN_BATCH_MAX = 40;

const BUDGET_OPTIMIZATION = ['CAMPAIGN', 'LINE_ITEM'] as const;

// standard_delivery is only allowed when budget_optimization is CAMPAIGN (its default).
const standardDeliveryNeedsCampaign: Rule = (v) =>
  v.standard_delivery !== undefined && v.budget_optimization === 'LINE_ITEM'
    ? { param: 'standard_delivery', code: 'INVALID_PARAMETER', message: 'only when budget_optimization is CAMPAIGN' }
    : undefined;
/** The budget rules of a request; the sandbox runs them again on the stored result of an update. */
export const CAMPAIGN_BUDGET_RULES: Rule[] = [
  standardDeliveryNeedsCampaign,
  atMost('daily_budget_amount_local_micro', 'total_budget_amount_local_micro'),
];

function campaignWriteParams(create: boolean): ParamDef[] {
  return [
    ...(create ? [p.id('funding_instrument_id', { required: true })] : []),
    p.str('name', { required: create, min: 1, max: 255 }),
    p.enumOf('budget_optimization', BUDGET_OPTIMIZATION, create ? { default: 'CAMPAIGN' } : {}),
    p.micro('daily_budget_amount_local_micro', {
      help: create
        ? 'required for credit-card funding instruments'
        : 'when absent, spend is spread evenly over the flight',
    }),
    // Spec 4.3: create takes ACTIVE, DRAFT or PAUSED; update only ACTIVE or PAUSED.
    create
      ? p.enumOf('entity_status', ['ACTIVE', 'DRAFT', 'PAUSED'], { default: 'ACTIVE' })
      : p.enumOf('entity_status', ['ACTIVE', 'PAUSED']),
    p.str('purchase_order_number', { max: 50 }),
    p.bool('standard_delivery', create ? { default: true } : {}),
    p.micro('total_budget_amount_local_micro'),
  ];
}

const campaigns = resource({
  name: 'campaigns',
  dataType: 'campaign',
  noun: 'campaigns',
  idParam: 'campaign_id',
  description: 'campaigns: budget and schedule container of line items',
  columns: [
    'id',
    'name',
    'entity_status',
    'funding_instrument_id',
    'daily_budget_amount_local_micro',
    'total_budget_amount_local_micro',
    'created_at',
  ],
  operations: () => [
    listOp(
      CAMPAIGNS,
      [
        p.list('campaign_ids'),
        ...commonList(),
        p.list('funding_instrument_ids'),
        p.str('q', { min: 1, max: 255, help: 'name prefix, case-insensitive' }),
        p.bool('with_draft', { default: false, help: 'include DRAFT campaigns' }),
      ],
      { description: 'list campaigns' },
    ),
    getOp(CAMPAIGN, [p.bool('with_deleted', { default: false })], { description: 'one campaign' }),
    createOp(CAMPAIGNS, campaignWriteParams(true), { description: 'create a campaign', rules: CAMPAIGN_BUDGET_RULES }),
    updateOp(CAMPAIGN, campaignWriteParams(false), { description: 'change a campaign', rules: CAMPAIGN_BUDGET_RULES }),
    deleteOp(CAMPAIGN, [], { description: 'delete a campaign (irreversible)' }),
    batchOp(
      '/batch/accounts/:account_id/campaigns',
      CAMPAIGN_BATCH_MAX,
      {
        Create: { params: campaignWriteParams(true), rules: CAMPAIGN_BUDGET_RULES },
        Update: {
          params: [p.id('campaign_id', { required: true }), ...campaignWriteParams(false)],
          rules: CAMPAIGN_BUDGET_RULES,
        },
        Delete: { params: [p.id('campaign_id', { required: true })] },
      },
      {
        description: `create, update and delete up to ${CAMPAIGN_BATCH_MAX} campaigns at once, all or nothing (--file ops.json|-)`,
      },
    ),
  ],
});

const fundingInstruments = resource({
  name: 'funding_instruments',
  dataType: 'funding_instrument',
  noun: 'funding-instruments',
  idParam: 'funding_instrument_id',
  description: 'funding instruments: what pays for campaigns',
  columns: ['id', 'description', 'type', 'currency', 'entity_status', 'start_time', 'end_time'],
  operations: () => [
    listOp('/accounts/:account_id/funding_instruments', [...commonList(), p.list('funding_instrument_ids')], {
      description: 'list funding instruments',
    }),
    getOp(
      '/accounts/:account_id/funding_instruments/:funding_instrument_id',
      [p.bool('with_deleted', { default: false })],
      { description: 'one funding instrument' },
    ),
    createOp(
      '/accounts/:account_id/funding_instruments',
      [
        p.str('currency', { required: true, pattern: /^[A-Z]{3}$/, patternRule: 'an ISO 4217 code such as USD' }),
        p.time('start_time', { required: true }),
        p.time('end_time'),
        p.enumOf('type', ['CREDIT_CARD', 'INSERTION_ORDER', 'CREDIT_LINE', 'AGENCY_CREDIT_LINE'], {
          default: 'CREDIT_CARD',
        }),
        p.str('description', { max: 255 }),
      ],
      { description: 'create a funding instrument (sandbox only)', sandboxOnly: true },
    ),
  ],
});

export const RESOURCES: ResourceDef[] = [campaigns, fundingInstruments];
