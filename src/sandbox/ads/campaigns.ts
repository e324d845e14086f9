// Campaign structure (src/ads/resources/campaigns.ts) in the sandbox: a campaign's funding
// instrument and currency, its servability, the active-campaign limit, the budget rules again on
// the stored result, and its line items' delivery following its status; funding instruments
// created ready to use.
import type { SandboxOps } from '../../ads/resource-types.js';
import { CAMPAIGN_BUDGET_RULES, DEFAULT_MAX_ACTIVE_CAMPAIGNS } from '../../ads/resources/campaigns.js';
import type { Behaviour } from './behaviour.js';
import { trackDelivery } from './delivery.js';

type Rec = Record<string, unknown>;

function servability(entity: Rec): void {
  entity.servable = entity.entity_status === 'ACTIVE';
  entity.reasons_not_servable = entity.entity_status === 'ACTIVE' ? [] : ['PAUSED_BY_ADVERTISER'];
}

function activeCount(ops: SandboxOps, exceptId?: string): number {
  let n = 0;
  for (const c of ops.collection('campaigns').values())
    if (c.account_id === ops.accountId && !c.deleted && c.entity_status === 'ACTIVE' && c.id !== exceptId) n++;
  return n;
}

function checkActiveLimit(ops: SandboxOps, entity: Rec): void {
  if (entity.entity_status !== 'ACTIVE') return;
  const max = Number(ops.account?.max_active_campaigns ?? DEFAULT_MAX_ACTIVE_CAMPAIGNS);
  if (activeCount(ops, String(entity.id)) >= max) {
    ops.fail(
      400,
      'INVALID_PARAMETER',
      `the account already has ${max} active campaigns (the limit; pause or delete one, or ask the account manager to raise it)`,
      'entity_status',
    );
  }
}

/** A campaign's line items deliver only while it is ACTIVE and not deleted. */
function followLineItems(c: Rec, ops: SandboxOps): void {
  for (const li of ops.collection('line_items').values())
    if (li.campaign_id === c.id) trackDelivery(li, ops.nowMs(), c);
}

export const CAMPAIGNS: Behaviour = {
  hooks: {
    // The Ads SDK's campaigns_load.json: `"total_budget_amount_local_micro": null`.
    keys: ['daily_budget_amount_local_micro', 'total_budget_amount_local_micro', 'standard_delivery'],
    create(entity, ops) {
      const fi = ops.find('funding_instruments', String(entity.funding_instrument_id), {
        parameter: 'funding_instrument_id',
      });
      // "required for most funding instrument types": the sandbox requires it for credit cards.
      if (entity.daily_budget_amount_local_micro === undefined && fi.type === 'CREDIT_CARD') {
        ops.fail(
          400,
          'MISSING_PARAMETER',
          'daily_budget_amount_local_micro is required for CREDIT_CARD funding instruments',
          'daily_budget_amount_local_micro',
        );
      }
      entity.currency = fi.currency;
      servability(entity);
      checkActiveLimit(ops, entity);
    },
    update(entity, before, ops) {
      // The rules again on the stored result: the flags alone cannot see the stored budget_optimization or totals.
      const broken = CAMPAIGN_BUDGET_RULES.map((rule) => rule(entity)).find(Boolean);
      if (broken) ops.fail(400, broken.code, `${broken.param} ${broken.message}`, broken.param);
      if (entity.entity_status !== before.entity_status) checkActiveLimit(ops, entity);
      servability(entity);
      followLineItems(entity, ops);
    },
    delete(entity, ops) {
      followLineItems({ ...entity, deleted: true }, ops);
    },
    listFilter: (e, ops) => ops.values.with_draft === true || e.entity_status !== 'DRAFT',
    history: 'CAMPAIGN',
  },
};

/** A ready-to-use sandbox funding instrument (seeded accounts and `accounts create` get one). */
export function sandboxFundingInstrument(id: string, accountId: string, now: string): Rec & { id: string } {
  return {
    id,
    account_id: accountId,
    // As both Ads SDKs' fixtures and the docs' overview show it: a description, no name.
    description: 'Sandbox credit card',
    type: 'CREDIT_CARD',
    currency: 'USD',
    entity_status: 'ACTIVE',
    able_to_fund: true,
    start_time: now,
    end_time: null,
    credit_limit_local_micro: 1_000_000_000_000,
    credit_remaining_local_micro: 1_000_000_000_000,
    funded_amount_local_micro: 0,
    reasons_not_able_to_fund: [],
    io_header: null,
    created_at: now,
    updated_at: now,
    deleted: false,
  };
}

export const FUNDING_INSTRUMENTS: Behaviour = {
  hooks: {
    create(entity, ops) {
      const given = { ...entity };
      Object.assign(
        entity,
        sandboxFundingInstrument(String(entity.id), ops.accountId!, String(entity.created_at)),
        given,
      );
      if (given.description === undefined)
        entity.description = `Sandbox ${String(entity.type).toLowerCase().replace(/_/g, ' ')}`;
    },
  },
};
