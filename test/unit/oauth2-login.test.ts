// In-process checks of the OAuth 2.0 login and the --auth choice: the real command function with a
// fake browser opener that approves on the consent page, against an in-process sandbox; the
// token it stores then drives chooseAuth and Context.oauth2AccessToken.
import fs from 'node:fs';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Context } from '../../src/context.js';
import { AuthError, UsageError } from '../../src/core/errors.js';
import { authLogin } from '../../src/commands/auth/login.js';
import { authHelp, chooseAuth } from '../../src/commands/v2-auth.js';
import { SUBSCRIPTION_ENDPOINTS } from '../../src/commands/activity/subscriptions/shape.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { decideOnOAuth2Page } from '../helpers/oauth-client.js';
import { tempDir } from '../helpers/cli.js';

let sb: Sandbox;
const dirs: string[] = [];
beforeAll(async () => {
  sb = await startSandbox({ clock: 'manual' });
});
afterAll(async () => {
  await sb.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function context(env: Record<string, string> = {}): { ctx: Context; out: () => string; err: () => string } {
  const dir = tempDir();
  dirs.push(dir);
  let out = '';
  let err = '';
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (err += d));
  const ctx = new Context({
    streams: { stdin: new PassThrough(), stdout, stderr },
    env: {
      XCTL_CONFIG_DIR: dir,
      XCTL_BASE_URL: sb.baseUrl,
      XCTL_CLIENT_ID: sb.seed.client_id,
      XCTL_CLIENT_SECRET: sb.seed.client_secret,
      ...env,
    },
    globals: { json: true },
  });
  return { ctx, out: () => out, err: () => err };
}

async function login(ctx: Context, scopes: string): Promise<string[]> {
  const opened: string[] = [];
  await authLogin(
    ctx,
    { oauth2: true, scopes, callbackPort: '0', timeout: '20s' },
    {
      openUrl: async (url) => {
        opened.push(url);
        const page = await decideOnOAuth2Page(url, 'allow', 'sandbox_alice');
        await fetch(page.location!);
      },
    },
  );
  return opened;
}

describe('auth login --oauth2 in-process', () => {
  it('opens the consent page, stores the granted token, and the stored token is used and refreshed', async () => {
    const { ctx, out } = context();
    const opened = await login(ctx, 'tweet.read users.read offline.access');
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatch(/\/i\/oauth2\/authorize\?response_type=code&client_id=/);
    expect(JSON.parse(out())).toMatchObject({
      screen_name: 'sandbox_alice',
      scopes: 'tweet.read users.read offline.access',
      refresh: 'automatic',
    });
    const p = (await ctx.profile())!;
    expect(p).toMatchObject({ oauth2_screen_name: 'sandbox_alice', oauth2_client_id: sb.seed.client_id });

    // Fresh: handed out as stored. Refused by the service: refreshed, rotated, stored.
    expect(await ctx.oauth2AccessToken()).toBe(p.oauth2_access_token);
    const next = await ctx.oauth2AccessToken({ rejected: p.oauth2_access_token });
    expect(next).not.toBe(p.oauth2_access_token);
    const q = (await ctx.profile())!;
    expect(q.oauth2_access_token).toBe(next);
    expect(q.oauth2_refresh_token).not.toBe(p.oauth2_refresh_token);
    // A rejection of a token that is no longer the stored one reuses the stored one (another process refreshed).
    expect(await ctx.oauth2AccessToken({ rejected: p.oauth2_access_token })).toBe(next);
  });

  it('without offline.access an expired token cannot refresh: exit 3 with the way out', async () => {
    const { ctx } = context();
    await login(ctx, 'tweet.read users.read');
    await ctx.updateProfile({ oauth2_expires_at: new Date(Date.now() - 1000).toISOString() });
    const e = await ctx.oauth2AccessToken().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AuthError);
    expect((e as AuthError).message).toMatch(/has expired and there is no refresh token/);
    expect((e as AuthError).hint).toMatch(/offline\.access/);
  });
});

describe('--auth choice from the contract', () => {
  it('defaults to the OAuth 1.0a token, else the OAuth 2.0 token, else the bearer; refuses kinds the endpoint does not take', async () => {
    const bare = context();
    expect(await chooseAuth(bare.ctx, undefined, SUBSCRIPTION_ENDPOINTS.create)).toBe('app');
    const withUser = context({ XCTL_ACCESS_TOKEN: 't', XCTL_ACCESS_TOKEN_SECRET: 's' });
    expect(await chooseAuth(withUser.ctx, undefined, SUBSCRIPTION_ENDPOINTS.create)).toBe('user');
    const { ctx } = context();
    await login(ctx, 'tweet.read users.read');
    expect(await chooseAuth(ctx, undefined, SUBSCRIPTION_ENDPOINTS.create)).toBe('oauth2');
    const bearerOnly = { method: 'DELETE', path: '/2/activity/subscriptions/:id', kinds: ['app'] } as const;
    expect(await chooseAuth(ctx, undefined, bearerOnly)).toBe('app');
    expect(await chooseAuth(ctx, 'oauth2', SUBSCRIPTION_ENDPOINTS.list)).toBe('oauth2');
    await expect(chooseAuth(ctx, 'oauth2', bearerOnly)).rejects.toThrow(
      /does not accept OAuth 2\.0 user tokens on DELETE/,
    );
    await expect(chooseAuth(ctx, 'user', bearerOnly)).rejects.toThrow(UsageError);
    await expect(chooseAuth(ctx, 'bearer', SUBSCRIPTION_ENDPOINTS.create)).rejects.toThrow(
      /--auth must be user, app, oauth2/,
    );
    expect(authHelp(SUBSCRIPTION_ENDPOINTS.create)).toBe(
      'credential: user, app, oauth2 (default: user when an OAuth 1.0a user token is set, else oauth2 when an OAuth 2.0 user token is stored, else app (bearer))',
    );
    expect(authHelp(bearerOnly)).toBe('credential: app (default: app (bearer))');
  });
});
