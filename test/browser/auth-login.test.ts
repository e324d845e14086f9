// The authorize page in a real browser: `xctl auth login --no-browser` prints the URL, headless
// Chromium (Debian's, never downloaded) opens it and clicks Allow, and the CLI finishes logged in.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestSandbox, ROOT, runCli, tempDir } from '../helpers/cli.js';
import { AUTHORIZE_URL, spawnCli } from '../helpers/live-cli.js';
import { haveChromium, launchChromium, warnIfMissing } from '../helpers/chromium.js';

warnIfMissing('the authorize page');
const OUT = path.join(ROOT, 'test-output');

const t = useTestSandbox();

describe('auth login in a real browser', () => {
  // Skips ONLY when Chromium is absent, and says so in the test name and on the console.
  (haveChromium ? it : it.skip)(
    haveChromium
      ? 'Chromium opens the printed URL, clicks Allow, and the CLI finishes logged in'
      : 'SKIPPED: /usr/bin/chromium is not installed',
    async () => {
      const configDir = tempDir();
      const profileDir = tempDir('xctl-chromium-');
      t.dirs.push(configDir, profileDir);
      const env = {
        ...t.env,
        XCTL_CONFIG_DIR: configDir,
        XCTL_ACCESS_TOKEN: undefined,
        XCTL_ACCESS_TOKEN_SECRET: undefined,
      };
      const s = t.sb.seed;
      expect(
        (await runCli(['auth', 'set', '--api-key', s.api_key, '--api-secret', '-'], { env, input: s.api_secret })).code,
      ).toBe(0);

      const cli = spawnCli(['auth', 'login', '--no-browser', '--json'], env, 60_000);
      const [, url] = await cli.waitStderr(AUTHORIZE_URL);
      const context = await launchChromium(profileDir);
      try {
        const page = context.pages()[0] ?? (await context.newPage());
        await page.goto(url!);
        expect(await page.locator('#app-name').textContent()).toBe('xctl sandbox app');
        await page.locator('input[value="sandbox_alice"]').check();
        fs.mkdirSync(OUT, { recursive: true });
        await page.screenshot({ path: path.join(OUT, 'authorize-page.png'), fullPage: true });
        await page.locator('#allow').click();
        await page.waitForURL(/127\.0\.0\.1:\d+\/callback\?/);
        expect(await page.locator('#result').textContent()).toMatch(/signed in to xctl/);
      } finally {
        await context.close();
      }
      const r = await cli.done;
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ user_id: '783214', screen_name: 'sandbox_alice' });
      const me = await runCli(['request', '/1.1/account/verify_credentials.json'], { env });
      expect(JSON.parse(me.stdout).screen_name).toBe('sandbox_alice');
      expect(fs.statSync(path.join(OUT, 'authorize-page.png')).size).toBeGreaterThan(1000);
    },
    60_000,
  );
});
