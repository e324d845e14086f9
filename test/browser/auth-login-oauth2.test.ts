// The OAuth 2.0 consent page in a real browser: `xctl auth login --oauth2 --no-browser` prints
// the URL, headless Chromium (Debian's, never downloaded) opens it and clicks Allow or Deny, and
// the CLI finishes logged in, or refuses with nothing stored.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestSandbox, ROOT, runCli, tempDir } from '../helpers/cli.js';
import { OAUTH2_AUTHORIZE_URL, spawnCli } from '../helpers/live-cli.js';
import { haveChromium, launchChromium, warnIfMissing } from '../helpers/chromium.js';

warnIfMissing('the OAuth 2.0 consent page');
const OUT = path.join(ROOT, 'test-output');

const t = useTestSandbox();

/** Starts the login, opens the consent page in Chromium, lets `act` click, returns the CLI's result. */
async function loginInChromium(act: (page: import('playwright-core').Page) => Promise<void>) {
  const configDir = tempDir();
  const profileDir = tempDir('xctl-chromium-');
  t.dirs.push(configDir, profileDir);
  const s = t.sb.seed;
  const env = {
    ...t.env,
    XCTL_CONFIG_DIR: configDir,
    XCTL_ACCESS_TOKEN: undefined,
    XCTL_ACCESS_TOKEN_SECRET: undefined,
    XCTL_CLIENT_ID: s.client_id,
    XCTL_CLIENT_SECRET: s.client_secret,
  };
  const cli = spawnCli(
    [
      'auth',
      'login',
      '--oauth2',
      '--no-browser',
      '--callback-port',
      '0',
      '--json',
      '--scopes',
      'tweet.read users.read like.read offline.access',
    ],
    env,
    60_000,
  );
  const [, url] = await cli.waitStderr(OAUTH2_AUTHORIZE_URL);
  const context = await launchChromium(profileDir);
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(url!);
    expect(await page.locator('#app-name').textContent()).toBe('xctl sandbox app');
    expect(await page.locator('#scopes li').evaluateAll((els) => els.map((e) => e.getAttribute('data-scope')))).toEqual(
      ['tweet.read', 'users.read', 'like.read', 'offline.access'],
    );
    await act(page);
  } finally {
    await context.close();
  }
  return { r: await cli.done, env };
}

describe('auth login --oauth2 in a real browser', () => {
  // Skips ONLY when Chromium is absent, and says so in the test name and on the console.
  (haveChromium ? it : it.skip)(
    haveChromium
      ? 'Chromium shows the scopes, clicks Allow, and the CLI finishes logged in'
      : 'SKIPPED: /usr/bin/chromium is not installed',
    async () => {
      const { r, env } = await loginInChromium(async (page) => {
        await page.locator('input[value="sandbox_alice"]').check();
        fs.mkdirSync(OUT, { recursive: true });
        await page.screenshot({ path: path.join(OUT, 'oauth2-consent-page.png'), fullPage: true });
        await page.locator('#allow').click();
        await page.waitForURL(/127\.0\.0\.1:\d+\/callback\?/);
        expect(await page.locator('#result').textContent()).toMatch(/signed in to xctl/);
      });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({
        user_id: '783214',
        screen_name: 'sandbox_alice',
        scopes: 'tweet.read users.read like.read offline.access',
      });
      const me = await runCli(['request', '/2/users/me', '--auth', 'oauth2'], { env });
      expect(me.code, me.stderr).toBe(0);
      expect(JSON.parse(me.stdout).data.username).toBe('sandbox_alice');
      expect(fs.statSync(path.join(OUT, 'oauth2-consent-page.png')).size).toBeGreaterThan(1000);
    },
    60_000,
  );

  (haveChromium ? it : it.skip)(
    haveChromium
      ? 'Chromium clicks Deny: the callback page says cancelled, the CLI exits 3 and stores nothing'
      : 'SKIPPED: /usr/bin/chromium is not installed',
    async () => {
      const { r, env } = await loginInChromium(async (page) => {
        await page.locator('#deny').click();
        await page.waitForURL(/127\.0\.0\.1:\d+\/callback\?error=access_denied/);
        expect(await page.locator('#result').textContent()).toMatch(/Authorization cancelled/);
      });
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/denied on the consent page: nothing was stored/);
      expect(fs.existsSync(path.join(env.XCTL_CONFIG_DIR!, 'config.json'))).toBe(false);
    },
    60_000,
  );
});
