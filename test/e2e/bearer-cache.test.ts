import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../helpers/cli.js';

let t: TestSandbox;
beforeAll(async () => {
  t = await startTestSandbox({ tokenRequestsPerMinute: 1 });
});
afterAll(() => t.close());

it('a bearer obtained with keys from the environment is cached, so a CI job asks once', async () => {
  // The sandbox allows one /oauth2/token per minute here: a second request would be 403 code 99.
  const first = await t.run(['webhooks', 'list']);
  expect(first.code, first.stderr).toBe(0);
  const store = JSON.parse(fs.readFileSync(path.join(t.configDir, 'config.json'), 'utf8'));
  expect(store.profiles.default.bearer_key).toBe(t.sb.seed.api_key);
  for (let i = 0; i < 2; i++) {
    const r = await t.run(['webhooks', 'list']);
    expect(r.code, r.stderr).toBe(0);
  }
  // another key in the environment does not reuse this app's bearer
  const other = await t.run(['auth', 'token', '--type', 'app'], {
    env: { XCTL_API_KEY: 'another-key', XCTL_API_SECRET: 'another-secret' },
  });
  expect(other.code).toBe(3);
});
