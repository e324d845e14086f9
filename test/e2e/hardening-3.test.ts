// Issue 25 (hardening, third round), end to end: the real CLI against a hostile neighbour (a
// second uid via setpriv), parallel processes and hostile servers on loopback.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir, useTestSandbox } from '../helpers/cli.js';
import { otherUser } from '../helpers/other-user.js';

const t = useTestSandbox();

function fresh(): string {
  const d = tempDir('xctl-h3-');
  t.dirs.push(d);
  return d;
}

describe('item 1: a config folder another user can swap', () => {
  it('is refused before anything is read or sent, though the neighbour could rename it', async (c) => {
    const other = otherUser();
    if (typeof other === 'string') return c.skip(other);
    const shared = fresh();
    fs.chmodSync(shared, 0o777); // a shared folder without the sticky bit
    const cfg = path.join(shared, 'xctl');
    fs.mkdirSync(cfg, { mode: 0o700 });
    const r = await runCli(['config', 'set', 'base_url', t.sb.baseUrl], { env: { XCTL_CONFIG_DIR: cfg } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${shared}, a folder above it, can be written by others (mode 777, not sticky)`);
    expect(fs.existsSync(path.join(cfg, 'config.json'))).toBe(false);
    // The threat is real: the other uid can move the user's own 0700 folder away.
    const mv = other.run(['mv', cfg, path.join(shared, 'moved')]);
    expect(mv.code, mv.stderr).toBe(0);
  });
});

describe('item 4: parallel commands on a fresh profile', () => {
  it('ask for one bearer; the others wait and use the cached one', async () => {
    // A new CI runner: only the app key and secret, 16 commands at once; the sandbox, like the
    // platform, answers the eleventh /oauth2/token in a minute with 403 code 99.
    const dir = fresh();
    const env = { XCTL_CONFIG_DIR: dir, XCTL_ACCESS_TOKEN: undefined, XCTL_ACCESS_TOKEN_SECRET: undefined };
    // A token endpoint that takes its time: every process reaches it while the first one waits.
    t.sb.app.faults.set({ match: '^/oauth2/token$', latency_ms: 2500 });
    const before = t.sb.app.logs.filter((l) => l.kind === 'request' && l.path === '/oauth2/token').length;
    const runs = await Promise.all(Array.from({ length: 16 }, () => t.run(['webhooks', 'list'], { env, timeoutMs: 60_000 })));
    t.sb.app.faults.set({});
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const asked = t.sb.app.logs.filter((l) => l.kind === 'request' && l.path === '/oauth2/token').length - before;
    expect(asked).toBe(1);
  }, 90_000);
});
