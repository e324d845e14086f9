// --dry-run on the hand-written writes (issue 33), through the real CLI against the sandbox:
// each prints the request it would send (the sandbox's URL, the body) and exits 0, and the
// sandbox receives no request at all (its request log does not grow).
import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/cli.js';

const t = useTestSandbox();

describe('--dry-run sends nothing', () => {
  it('activity subscriptions create/delete, webhooks validate, permissions revoke, stream webhooks unlink', async () => {
    const before = t.sb.app.logs.length;
    const base = t.env.XCTL_BASE_URL!;
    const account = t.sb.seed.account_id;
    const runs = [
      [
        ['activity', 'subscriptions', 'create', '--event', 'profile.update.bio', '--tag', 'ci', '--dry-run'],
        {
          method: 'POST',
          url: `${base}/2/activity/subscriptions`,
          json: { event_type: 'profile.update.bio', filter: {}, tag: 'ci' },
        },
      ],
      [
        ['activity', 'subscriptions', 'delete', '1900000000000000001', '--dry-run'],
        { method: 'DELETE', url: `${base}/2/activity/subscriptions/1900000000000000001` },
      ],
      [
        ['webhooks', 'validate', '1500000000000000001', '--dry-run'],
        { method: 'PUT', url: `${base}/2/webhooks/1500000000000000001` },
      ],
      [
        ['audiences', 'permissions', 'revoke', 'ca1', 'p1', '--dry-run'],
        { method: 'DELETE', url: `${base}/12/accounts/${account}/custom_audiences/ca1/permissions/p1`, params: {} },
      ],
      [
        ['stream', 'webhooks', 'unlink', '1500000000000000001', '--dry-run'],
        { method: 'DELETE', url: `${base}/2/tweets/search/webhooks/1500000000000000001` },
      ],
    ] as const;
    for (const [args, request] of runs) {
      const r = await t.run([...args]);
      expect([r.code, r.stderr], args.join(' ')).toEqual([0, 'dry run: nothing was sent\n']);
      expect(JSON.parse(r.stdout), args.join(' ')).toEqual({ dry_run: true, ...request });
    }
    expect(t.sb.app.logs.length).toBe(before);
  }, 60_000);
});
