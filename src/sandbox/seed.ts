// What a fresh sandbox holds: one app, its owner and two more users, an ads account with a
// funding instrument, so that every command has something to act on.
import type { SandboxApp, SandboxSeed } from './app.js';
import { adsId, randomToken } from './state.js';

export const SEED_USERS = [
  { id: '2244994945', screen_name: 'xctl_dev', name: 'xctl Developer', bio: 'I build things with the API.' },
  { id: '783214', screen_name: 'sandbox_alice', name: 'Alice Sandbox', bio: 'Marketing at a sandbox company.' },
  { id: '6253282', screen_name: 'sandbox_bob', name: 'Bob Sandbox', bio: 'Just here for the webhooks.' },
];

export function seedState(app: SandboxApp): SandboxSeed {
  const { state } = app;
  for (const u of SEED_USERS) state.users.set(u.id, { ...u });
  const owner = SEED_USERS[0]!;
  const key = randomToken(25);
  state.apps.set(key, {
    key,
    secret: randomToken(50),
    name: 'xctl sandbox app',
    ownerUserId: owner.id,
    callbacks: [],
    tokenRequests: [],
    approvedBy: new Set(),
  });
  const a = state.apps.get(key)!;
  const t = state.issueUserToken(key, owner.id, 'read-write-directmessages');

  const now = app.clock.iso();
  const accountId = adsId();
  state.collection('accounts').set(accountId, {
    id: accountId,
    name: 'Sandbox Ads Account',
    business_name: 'Sandbox Business',
    business_id: 'sandbox-business-1',
    timezone: 'America/New_York',
    timezone_switch_at: now,
    approval_status: 'ACCEPTED',
    industry_type: 'TECHNOLOGY',
    salt: randomToken(32, '0123456789abcdef'),
    user_ids: [owner.id],
    created_at: now,
    updated_at: now,
    deleted: false,
  });
  const fiId = adsId();
  state.collection('funding_instruments').set(fiId, {
    id: fiId,
    account_id: accountId,
    name: 'Sandbox credit line',
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
  });
  return {
    base_url: '',
    api_key: a.key,
    api_secret: a.secret,
    access_token: t.token,
    access_token_secret: t.secret,
    user_id: owner.id,
    screen_name: owner.screen_name,
    account_id: accountId,
  };
}
