// Audience sharing through the real CLI against the sandbox (ads-api.md 4.4): grants within a
// business, refused across businesses unless the owner has SHARE_AUDIENCE_OUTSIDE_BUSINESS,
// owner-only changes, what a grantee sees (is_owner, permission_scope SHARED), the /5 tailored
// endpoints, and what revocation takes away.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdsSandbox, type AdsSandbox } from '../helpers/ads.js';

let t: AdsSandbox;
let owner: string;
let sister: string; // same business as the owner
let partner: string; // another business
let aud: string;
beforeAll(async () => {
  t = await startAdsSandbox();
  owner = t.sb.seed.account_id;
  const accounts = [...t.collection('accounts').values()];
  sister = accounts.find((a) => a.name === 'Sandbox Sister Account')!.id;
  partner = accounts.find((a) => a.name === 'Sandbox Partner Account')!.id;
  aud = (await t.json(['audiences', 'create', '--name', 'Loyal customers'])).id;
});
afterAll(() => t.close());

const estimateArgs = (id: string, account: string) => [
  'audiences',
  'estimate',
  '--account',
  account,
  '--targeting',
  '-',
];
const criteria = (id: string) => JSON.stringify([{ targeting_type: 'CUSTOM_AUDIENCE', targeting_value: id }]);

describe('audience permissions', () => {
  it('the seeded accounts: a sister in the same business, a partner in another, all usable by the owner user', async () => {
    const list = await t.list(['ads', 'accounts', 'list']);
    const byId = Object.fromEntries(list.map((a) => [a.id, a.business_id]));
    expect(byId[owner]).toBe(byId[sister]);
    expect(byId[partner]).not.toBe(byId[owner]);
  });

  it('grant within the business; the grantee sees it as SHARED with is_owner false and may target it', async () => {
    const g = await t.json([
      'audiences',
      'permissions',
      'grant',
      aud,
      '--granted-account-id',
      sister,
      '--permission-level',
      'READ_ONLY',
    ]);
    expect(g).toMatchObject({
      custom_audience_id: aud,
      granted_account_id: sister,
      permission_level: 'READ_ONLY',
      account_id: owner,
      deleted: false,
    });
    expect((await t.list(['audiences', 'permissions', 'list', aud])).map((x) => x.id)).toEqual([g.id]);
    expect(await t.json(['audiences', 'permissions', 'list', aud, '--granted-account-ids', partner])).toEqual([]);

    const shared = await t.json(['audiences', 'list', '--account', sister, '--permission-scope', 'SHARED']);
    expect(shared).toEqual([
      expect.objectContaining({ id: aud, name: 'Loyal customers', is_owner: false, permission_level: 'READ_ONLY' }),
    ]);
    expect(await t.json(['audiences', 'list', '--account', sister])).toEqual([]); // OWNER (the default): its own only
    expect(await t.json(['audiences', 'list', '--permission-scope', 'SHARED'])).toEqual([]);
    expect((await t.list(['audiences', 'list'])).find((x) => x.id === aud)!.is_owner).toBe(true);
    expect(await t.json(['audiences', 'get', aud, '--account', sister])).toMatchObject({
      id: aud,
      is_owner: false,
      permission_level: 'READ_ONLY',
      audience_size: 0,
    });
    // The grantee sees its own grant only; the partner (no grant) does not see the audience at all.
    expect(
      (await t.list(['audiences', 'permissions', 'list', aud, '--account', sister])).map((x) => x.granted_account_id),
    ).toEqual([sister]);
    expect((await t.fails(1, ['audiences', 'get', aud, '--account', partner])).stderr).toMatch(/HTTP 404/);
    expect((await t.run(estimateArgs(aud, sister), { input: criteria(aud) })).code).toBe(0);
  });

  it('only the owner may change permissions or delete; READ_ONLY may not update, READ_WRITE may', async () => {
    // Ownership, not credentials: exit 1 (not 3) and a hint naming the owning account (issue 20 item 11).
    const ownerHint = (what: string) =>
      new RegExp(
        `hint: custom audience ${aud} is shared with account ${sister}, which does not own it \\(is_owner false\\): only the owning account \\(${owner}\\) may ${what} it; run this with \`--account ${owner}\``,
      );
    const grant = await t.fails(1, [
      'audiences',
      'permissions',
      'grant',
      aud,
      '--account',
      sister,
      '--granted-account-id',
      owner,
      '--permission-level',
      'READ_WRITE',
    ]);
    expect(grant.stderr).toMatch(
      /only the owning account \(.+\) may change permissions of custom audience .+ \(is_owner false\)/,
    );
    expect(grant.stderr).toMatch(ownerHint('share'));
    expect(grant.stderr).not.toMatch(/check --account/);
    const [g] = await t.list(['audiences', 'permissions', 'list', aud]);
    expect(
      (await t.fails(1, ['audiences', 'permissions', 'revoke', aud, g.id, '--account', sister, '--yes'])).stderr,
    ).toMatch(ownerHint('revoke shares of'));
    const del = await t.fails(1, ['audiences', 'delete', aud, '--account', sister, '--yes']);
    expect(del.stderr).toMatch(/only the owning account .* may delete/);
    expect(del.stderr).toMatch(ownerHint('delete'));
    const json = await t.fails(1, ['audiences', 'delete', aud, '--account', sister, '--yes', '--json']);
    expect(JSON.parse(json.stderr).error).toMatchObject({
      type: 'ApiError',
      status: 403,
      code: 'UNAUTHORIZED_ACCESS',
      exit_code: 1,
    });
    const upd = await t.fails(1, ['audiences', 'update', aud, '--account', sister, '--description', 'mine now']);
    expect(upd.stderr).toMatch(/shared with account .* as READ_ONLY: changing it needs READ_WRITE/);
    expect(upd.stderr).toMatch(
      new RegExp(`hint: .*changing it needs READ_WRITE from the owning account \\(${owner}\\)`),
    );
    // an account that cannot see the audience at all keeps the service's answer (404)
    expect((await t.fails(1, ['audiences', 'delete', aud, '--account', partner, '--yes'])).stderr).toMatch(/HTTP 404/);

    const rw = await t.json(['audiences', 'create', '--name', 'Editable']);
    await t.json([
      'audiences',
      'permissions',
      'grant',
      rw.id,
      '--granted-account-id',
      sister,
      '--permission-level',
      'READ_WRITE',
    ]);
    expect(
      await t.json(['audiences', 'update', rw.id, '--account', sister, '--description', 'edited by the sister']),
    ).toMatchObject({ description: 'edited by the sister', is_owner: false });
    // Grants are unique per account, and not to oneself or to an unknown account.
    expect(
      (
        await t.fails(1, [
          'audiences',
          'permissions',
          'grant',
          aud,
          '--granted-account-id',
          sister,
          '--permission-level',
          'READ_WRITE',
        ])
      ).stderr,
    ).toMatch(/already holds permission .* revoke it first/);
    expect(
      (
        await t.fails(1, [
          'audiences',
          'permissions',
          'grant',
          aud,
          '--granted-account-id',
          owner,
          '--permission-level',
          'READ_ONLY',
        ])
      ).stderr,
    ).toMatch(/cannot share an audience with itself/);
    expect(
      (
        await t.fails(1, [
          'audiences',
          'permissions',
          'grant',
          aud,
          '--granted-account-id',
          'nosuch1',
          '--permission-level',
          'READ_ONLY',
        ])
      ).stderr,
    ).toMatch(/is not an ads account/);
  });

  it('sharing across businesses is refused unless the owner has SHARE_AUDIENCE_OUTSIDE_BUSINESS', async () => {
    const refused = await t.fails(1, [
      'audiences',
      'permissions',
      'grant',
      aud,
      '--granted-account-id',
      partner,
      '--permission-level',
      'READ_ONLY',
    ]);
    expect(refused.stderr).toMatch(
      /belongs to another business .* needs the owner's feature SHARE_AUDIENCE_OUTSIDE_BUSINESS \(HTTP 400, code INVALID_PARAMETER, parameter granted_account_id\)/,
    );
    expect(await t.json(['audiences', 'list', '--account', partner, '--permission-scope', 'SHARED'])).toEqual([]);
    // The feature is not among the sandbox's grantable feature keys (spec 4.2): set it directly.
    t.collection('accounts').get(owner)!._features = ['SHARE_AUDIENCE_OUTSIDE_BUSINESS'];
    try {
      const g = await t.json([
        'audiences',
        'permissions',
        'grant',
        aud,
        '--granted-account-id',
        partner,
        '--permission-level',
        'READ_ONLY',
      ]);
      expect(g.granted_account_id).toBe(partner);
      expect(
        (await t.list(['audiences', 'list', '--account', partner, '--permission-scope', 'SHARED'])).map((x) => x.id),
      ).toEqual([aud]);
      await t.json(['audiences', 'permissions', 'revoke', aud, g.id, '--yes']);
    } finally {
      t.collection('accounts').get(owner)!._features = [];
    }
  });

  it('the /5 tailored audience endpoints (--tailored) show and change the same grants', async () => {
    const viaTailored = await t.list(['audiences', 'permissions', 'list', aud, '--tailored']);
    const viaCustom = await t.list(['audiences', 'permissions', 'list', aud]);
    expect(viaTailored.map((x) => x.id).sort()).toEqual(viaCustom.map((x) => x.id).sort());
    expect(viaTailored[0].tailored_audience_id).toBe(aud);
    expect(viaTailored[0].custom_audience_id).toBeUndefined();
    const other = await t.json(['audiences', 'create', '--name', 'Tailored share']);
    const before = t.requests.length;
    const g = await t.json([
      'audiences',
      'permissions',
      'grant',
      other.id,
      '--tailored',
      '--granted-account-id',
      sister,
      '--permission-level',
      'READ_WRITE',
    ]);
    expect(
      t.requests
        .slice(before)
        .some((l) => l.startsWith(`POST /5/accounts/${owner}/tailored_audiences/${other.id}/permissions`)),
    ).toBe(true);
    expect(g).toMatchObject({ tailored_audience_id: other.id, permission_level: 'READ_WRITE' });
    expect(
      (
        await t.json([
          'audiences',
          'permissions',
          'list',
          other.id,
          '--tailored-audience-permission-ids',
          g.id,
          '--tailored',
        ])
      ).length,
    ).toBe(1);
    expect((await t.json(['audiences', 'permissions', 'revoke', other.id, g.id, '--tailored', '--yes'])).deleted).toBe(
      true,
    );
    expect(await t.json(['audiences', 'permissions', 'list', other.id])).toEqual([]);
    // Each variant's own id filter belongs to it.
    expect(
      (await t.refused(['audiences', 'permissions', 'list', aud, '--tailored-audience-permission-ids', 'x1'])).stderr,
    ).toMatch(/--tailored-audience-permission-ids needs --tailored/);
    expect(
      (
        await t.refused([
          'audiences',
          'permissions',
          'list',
          aud,
          '--tailored',
          '--custom-audience-permission-ids',
          'x1',
        ])
      ).stderr,
    ).toMatch(/cannot be used with --tailored/);
    expect(
      (
        await t.refused([
          'audiences',
          'permissions',
          'grant',
          aud,
          '--granted-account-id',
          sister,
          '--permission-level',
          'WRITE',
        ])
      ).stderr,
    ).toMatch(/--permission-level must be one of READ_ONLY, READ_WRITE/);
    expect(
      (await t.refused(['audiences', 'permissions', 'grant', aud, '--permission-level', 'READ_ONLY'])).stderr,
    ).toMatch(/--granted-account-id is required/);
  });

  it('revoking: the grantee no longer sees or can target the audience; a second revoke is 404', async () => {
    const [g] = await t.list(['audiences', 'permissions', 'list', aud, '--granted-account-ids', sister]);
    const revoked = await t.json(['audiences', 'permissions', 'revoke', aud, g.id, '--yes']);
    expect(revoked).toMatchObject({ id: g.id, deleted: true });
    expect(await t.json(['audiences', 'list', '--account', sister, '--permission-scope', 'SHARED'])).not.toContainEqual(
      expect.objectContaining({ id: aud }),
    );
    expect((await t.fails(1, ['audiences', 'get', aud, '--account', sister])).stderr).toMatch(/HTTP 404/);
    const target = await t.run(estimateArgs(aud, sister), { input: criteria(aud) });
    expect(target.code).toBe(1);
    expect(target.stderr).toMatch(/cannot be targeted by account .* or the share was revoked/);
    expect((await t.fails(1, ['audiences', 'permissions', 'revoke', aud, g.id, '--yes'])).stderr).toMatch(/HTTP 404/);
    // The owner still targets it, and may share it again.
    expect((await t.run(estimateArgs(aud, owner), { input: criteria(aud) })).code).toBe(0);
    expect(
      (
        await t.json([
          'audiences',
          'permissions',
          'grant',
          aud,
          '--granted-account-id',
          sister,
          '--permission-level',
          'READ_ONLY',
        ])
      ).deleted,
    ).toBe(false);
  });

  it('a flexible audience may combine audiences shared with the account', async () => {
    const body = JSON.stringify({
      name: 'Sister combo',
      segments: { boolean_operator: 'OR', child_segments: [{ custom_audience_id: aud, negate: false }] },
    });
    const [f] = await t.list(['audiences', 'flexible', 'create', '--account', sister, '--file', '-'], body);
    expect(f).toMatchObject({ account_id: sister, audience_type: 'FLEXIBLE' });
    const r = await t.fails(
      1,
      ['audiences', 'flexible', 'create', '--account', partner, '--file', '-'],
      body.replace('Sister combo', 'Partner combo'),
    );
    expect(r.stderr).toMatch(/not owned by or shared with account/);
  });
});
