// Hostile local inputs (issue 14): files that point at each other, inputs that change under a
// resumed upload, bytes that are not UTF-8, a full disk, a browser that would inherit secrets.
// Each case runs the real CLI against a real sandbox and failed on the code before the fix.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, tempDir, type TestSandbox } from '../helpers/cli.js';

let t: TestSandbox;
let dir: string;

beforeAll(async () => {
  t = await startTestSandbox();
  dir = tempDir('xctl-hostile-input-');
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const p = (n: string) => path.join(dir, n);

describe('auth login', () => {
  it('the browser it opens does not inherit the XCTL_* secrets', async () => {
    const dump = p('browser-env.txt');
    const browser = p('browser.sh');
    fs.writeFileSync(browser, `#!/bin/sh\nenv > ${dump}.tmp && mv ${dump}.tmp ${dump}\n`, { mode: 0o755 });
    const env = { ...t.env, XCTL_CONFIG_DIR: tempDir(), BROWSER: browser, DISPLAY: '', XDG_CURRENT_DESKTOP: '' };
    const r = await t.run(['auth', 'login', '--timeout', '2s'], { env });
    expect(r.stderr).toMatch(/Open this URL/);
    expect(fs.existsSync(dump), r.stderr).toBe(true);
    const seen = fs.readFileSync(dump, 'utf8');
    expect(seen).toMatch(/^PATH=/m);
    expect(seen).not.toMatch(/^XCTL_/m);
    for (const s of [t.sb.seed.api_secret, t.sb.seed.access_token_secret]) expect(seen).not.toContain(s);
  });
});
