// Issue 20 item 12: a stopped sandbox (nothing listens on its loopback port) and an unknown host
// fail at once with a hint, instead of seconds of retries per command.
import fs from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import { runCli, sandboxEnv, tempDir as makeDir } from '../helpers/cli.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = makeDir();
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

it('a stopped sandbox: exit 1 at once, no retries, and the hint says how to start it again', async () => {
  const sb = await startSandbox({ port: 0 });
  const s = sb.seed;
  await sb.close();
  // Real back-off (no XCTL_RETRY_BASE_MS): a retry would show in the time taken.
  const env = sandboxEnv(s, tempDir());
  const started = Date.now();
  const r = await runCli(['ads', 'campaigns', 'list'], { env });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`error: connection refused by ${new URL(s.base_url).host}`);
  expect(r.stderr).toMatch(/hint: nothing listens on .*is the sandbox running\? .*`xctl sandbox start --configure`/);
  expect(r.stderr).not.toMatch(/retrying/);
  // the default retries waited 0.25-0.5 + 0.5-1 + 1-2 + 2-4 s; a run without them takes well under that
  expect(Date.now() - started).toBeLessThan(3_750);
});

it('an unknown host: exit 1 at once, no retries, a hint about --base-url', async () => {
  const r = await runCli(['request', '/2/users/me', '--auth', 'none'], {
    env: { XCTL_CONFIG_DIR: tempDir(), XCTL_BASE_URL: 'https://no-such-host.invalid' },
  });
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/error: cannot resolve host no-such-host\.invalid/);
  expect(r.stderr).toMatch(/hint: check --base-url/);
  expect(r.stderr).not.toMatch(/retrying/);
});
