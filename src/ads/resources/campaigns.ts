// Campaign structure (spec 4.3): campaigns (with the batch endpoint) and funding instruments;
// the line items they hold are in line-items.ts.
import type { ParamDef, ResourceDef, Rule, SandboxOps } from '../resource-types.js';
import { atMost, commonList, p } from '../params.js';
import { batchOp, createOp, deleteOp, getOp, listOp, updateOp } from '../ops.js';

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
const budgetRules: Rule[] = [standardDeliveryNeedsCampaign, atMost('daily_budget_amount_local_micro', 'total_budget_amount_local_micro')];

function campaignWriteParams(create: boolean): ParamDef[] {
  return [
    ...(create ? [p.id('funding_instrument_id', { required: true })] : []),
    p.str('name', { required: create, min: 1, max: 255 }),
    p.enumOf('budget_optimization', BUDGET_OPTIMIZATION, create ? { default: 'CAMPAIGN' } : {}),
    p.micro('daily_budget_amount_local_micro', { help: create ? 'required for credit-card funding instruments' : 'when absent, spend is spread evenly over the flight' }),
    // Spec 4.3: create takes ACTIVE, DRAFT or PAUSED; update only ACTIVE or PAUSED.
    create ? p.enumOf('entity_status', ['ACTIVE', 'DRAFT', 'PAUSED'], { default: 'ACTIVE' }) : p.enumOf('entity_status', ['ACTIVE', 'PAUSED']),
    p.str('purchase_order_number', { max: 50 }),
    p.bool('standard_delivery', create ? { default: true } : {}),
    p.micro('total_budget_amount_local_micro'),
  ];
}

function servability(entity: Record<string, unknown>): void {
  entity.servable = entity.entity_status === 'ACTIVE';
  entity.reasons_not_servable = entity.entity_status === 'ACTIVE' ? [] : ['PAUSED_BY_ADVERTISER'];
}

function activeCount(ops: SandboxOps, exceptId?: string): number {
  let n = 0;
  for (const c of ops.collection('campaigns').values()) if (c.account_id === ops.accountId && !c.deleted && c.entity_status === 'ACTIVE' && c.id !== exceptId) n++;
  return n;
}

function checkActiveLimit(ops: SandboxOps, entity: Record<string, unknown>): void {
  if (entity.entity_status !== 'ACTIVE') return;
  const max = Number(ops.account?.max_active_campaigns ?? DEFAULT_MAX_ACTIVE_CAMPAIGNS);
  if (activeCount(ops, entity.id as string) >= max) {
    ops.fail(400, 'INVALID_PARAMETER', `the account already has ${max} active campaigns (the limit; pause or delete one, or ask the account manager to raise it)`, 'entity_status');
  }
}

const campaigns: ResourceDef = {
  name: 'campaigns',
  dataType: 'campaign',
  noun: 'campaigns',
  idParam: 'campaign_id',
  description: 'campaigns: budget and schedule container of line items',
  columns: ['id', 'name', 'entity_status', 'funding_instrument_id', 'daily_budget_amount_local_micro', 'total_budget_amount_local_micro', 'created_at'],
  operations: [
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
    createOp(CAMPAIGNS, campaignWriteParams(true), { description: 'create a campaign', rules: budgetRules }),
    updateOp(CAMPAIGN, campaignWriteParams(false), { description: 'change a campaign', rules: budgetRules }),
    deleteOp(CAMPAIGN, [], { description: 'delete a campaign (irreversible)' }),
    batchOp(
      '/batch/accounts/:account_id/campaigns',
      CAMPAIGN_BATCH_MAX,
      {
        Create: { params: campaignWriteParams(true), rules: budgetRules },
        Update: { params: [p.id('campaign_id', { required: true }), ...campaignWriteParams(false)], rules: budgetRules },
        Delete: { params: [p.id('campaign_id', { required: true })] },
      },
      { description: `create, update and delete up to ${CAMPAIGN_BATCH_MAX} campaigns at once, all or nothing (--file ops.json|-)` },
    ),
  ],
  sandbox: {
    create(entity, ops) {
      const fi = ops.find('funding_instruments', String(entity.funding_instrument_id), { parameter: 'funding_instrument_id' });
      // "required for most funding instrument types": the sandbox requires it for credit cards.
      if (entity.daily_budget_amount_local_micro === undefined && fi.type === 'CREDIT_CARD') {
        ops.fail(400, 'MISSING_PARAMETER', 'daily_budget_amount_local_micro is required for CREDIT_CARD funding instruments', 'daily_budget_amount_local_micro');
      }
      entity.currency = fi.currency;
      servability(entity);
      checkActiveLimit(ops, entity);
    },
    update(entity, before, ops) {
      // The rules again on the stored result: the flags alone cannot see the stored budget_optimization or totals.
      const broken = budgetRules.map((rule) => rule(entity)).find(Boolean);
      if (broken) ops.fail(400, broken.code, `${broken.param} ${broken.message}`, broken.param);
      if (entity.entity_status !== before.entity_status) checkActiveLimit(ops, entity);
      servability(entity);
    },
    listFilter: (e, ops) => ops.values.with_draft === true || e.entity_status !== 'DRAFT',
    history: 'CAMPAIGN',
  },
};

/** A ready-to-use sandbox funding instrument (seeded accounts and `accounts create` get one). */
export function sandboxFundingInstrument(id: string, accountId: string, now: string): Record<string, unknown> & { id: string } {
  return {
    id,
    account_id: accountId,
    name: 'Sandbox credit card',
    type: 'CREDIT_CARD',
    currency: 'USD',
    entity_status: 'ACTIVE',
    able_to_fund: true,
    start_time: now,
    end_time: null,
    credit_limit_local_micro: 1_000_000_000_000,
    funded_amount_local_micro: 0,
    created_at: now,
    updated_at: now,
    deleted: false,
  };
}

const fundingInstruments: ResourceDef = {
  name: 'funding_instruments',
  dataType: 'funding_instrument',
  noun: 'funding-instruments',
  idParam: 'funding_instrument_id',
  description: 'funding instruments: what pays for campaigns',
  columns: ['id', 'name', 'type', 'currency', 'entity_status', 'start_time', 'end_time'],
  operations: [
    listOp('/accounts/:account_id/funding_instruments', [...commonList(), p.list('funding_instrument_ids')], { description: 'list funding instruments' }),
    getOp('/accounts/:account_id/funding_instruments/:funding_instrument_id', [p.bool('with_deleted', { default: false })], { description: 'one funding instrument' }),
    createOp(
      '/accounts/:account_id/funding_instruments',
      [
        p.str('currency', { required: true, pattern: /^[A-Z]{3}$/, patternRule: 'an ISO 4217 code such as USD' }),
        p.time('start_time', { required: true }),
        p.time('end_time'),
        p.enumOf('type', ['CREDIT_CARD', 'INSERTION_ORDER', 'CREDIT_LINE', 'AGENCY_CREDIT_LINE'], { default: 'CREDIT_CARD' }),
        p.str('name', { max: 255 }),
      ],
      { description: 'create a funding instrument (sandbox only)', sandboxOnly: true },
    ),
  ],
  sandbox: {
    create(entity, ops) {
      const given = { ...entity };
      Object.assign(entity, sandboxFundingInstrument(entity.id as string, ops.accountId!, String(entity.created_at)), given);
      if (given.name === undefined) entity.name = `Sandbox ${String(entity.type).toLowerCase().replace(/_/g, ' ')}`;
    },
  },
};

export const RESOURCES: ResourceDef[] = [campaigns, fundingInstruments];
