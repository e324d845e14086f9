// Seed data for audiences (docs/contract.md, ads 4.4): accounts to share with, and an audience that a
// seeded line item targets. Called from seed.ts after the ads seed.
import type { SeedTarget } from './app.js';
import { randomToken } from './state.js';
import { isoSeconds } from '../contract/time.js';
import { SEEDED_IDS } from '../contract/sandbox-seed.js';

/**
 * Audience sharing needs accounts to share with (docs/contract.md, ads 4.4: same business, or the feature
 * SHARE_AUDIENCE_OUTSIDE_BUSINESS): a second account of the owner in the same business and a
 * third in another business. Plus one custom audience that the "Preroll views" line item
 * targets, so that `audiences targeted` has something to show.
 */
export function seedAudiences(app: SeedTarget, accountId: string, ownerId: string): void {
  const { state } = app;
  const now = isoSeconds(app.clock.now());
  const accounts = [
    { name: 'Sandbox Sister Account', business_name: 'Sandbox Business', business_id: 'sandbox-business-1' },
    { name: 'Sandbox Partner Account', business_name: 'Partner Business', business_id: 'sandbox-business-2' },
  ];
  accounts.forEach((a, i) => {
    const id = [SEEDED_IDS.sisterAccount, SEEDED_IDS.partnerAccount][i]!;
    state.collection('accounts').set(id, {
      id,
      ...a,
      timezone: 'America/New_York',
      timezone_switch_at: now,
      approval_status: 'ACCEPTED',
      industry_type: 'OTHER',
      salt: randomToken(32, '0123456789abcdef'),
      user_ids: [ownerId],
      created_at: now,
      updated_at: now,
      deleted: false,
    });
  });
  const base = { account_id: accountId, created_at: now, updated_at: now, deleted: false };
  const audienceId = SEEDED_IDS.audience;
  state.collection('custom_audiences').set(audienceId, {
    id: audienceId,
    ...base,
    name: 'Seeded customers',
    description: 'customers from the CRM',
    audience_size: 0,
  });
  const li = [...state.collection('line_items').values()].find(
    (l) => l.account_id === accountId && l.objective === 'PREROLL_VIEWS',
  );
  if (li) {
    const tcId = SEEDED_IDS.audienceCriterion;
    state.collection('targeting_criteria').set(tcId, {
      id: tcId,
      ...base,
      line_item_id: li.id,
      targeting_type: 'CUSTOM_AUDIENCE',
      targeting_value: audienceId,
      name: 'Seeded customers',
      operator_type: 'EQ',
    });
  }
}
