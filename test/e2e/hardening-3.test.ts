// Issue 25 (hardening, third round), end to end: the real CLI against a hostile neighbour (a
// second uid via setpriv), parallel processes and hostile servers on loopback.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { adminKey, runCli, tempDir, useTestSandbox } from '../helpers/cli.js';
import { spawnCli } from '../helpers/receiver.js';
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
    const mv = await other.run(['mv', cfg, path.join(shared, 'moved')]);
    expect(mv.code, mv.stderr).toBe(0);
  });
});

describe('item 4: parallel commands on a fresh profile', () => {
  it('ask for one bearer; the others wait and use the cached one', async () => {
    // A new CI runner: only the app key and secret, 16 commands at once; the sandbox, like the
    // platform, answers the eleventh /oauth2/token in a minute with 403 code 99.
    const dir = path.join(fresh(), 'not-yet');
    const env = { XCTL_CONFIG_DIR: dir, XCTL_ACCESS_TOKEN: undefined, XCTL_ACCESS_TOKEN_SECRET: undefined };
    // A token endpoint that takes its time: every process reaches it while the first one waits.
    t.sb.app.faults.set({ match: '^/oauth2/token$', latency_ms: 2500 });
    const before = t.sb.app.logs.filter((l) => l.kind === 'request' && l.path === '/oauth2/token').length;
    const runs = await Promise.all(
      Array.from({ length: 16 }, () => t.run(['webhooks', 'list'], { env, timeoutMs: 60_000 })),
    );
    t.sb.app.faults.set({});
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const asked = t.sb.app.logs.filter((l) => l.kind === 'request' && l.path === '/oauth2/token').length - before;
    expect(asked).toBe(1);
  }, 90_000);
});

/** An HTTP request made by `node` as the other uid: its status code. */
async function statusAs(
  other: Exclude<ReturnType<typeof otherUser>, string>,
  url: string,
  init: RequestInit,
): Promise<number> {
  const code = `const r = await fetch(${JSON.stringify(url)}, ${JSON.stringify(init)}); console.log(r.status);`;
  const r = await other.run([process.execPath, '--input-type=module', '-e', code]);
  expect(r.code, r.stderr).toBe(0);
  return Number(r.stdout.trim());
}

describe('item 5: the sandbox admin endpoints', () => {
  it('another local user cannot set faults, move the clock, inject events or read deliveries without the key', async (c) => {
    const other = otherUser();
    if (typeof other === 'string') return c.skip(other);
    const base = t.sb.baseUrl;
    const json = { 'content-type': 'application/json' };
    expect(
      await statusAs(other, `${base}/_sandbox/faults`, { method: 'POST', headers: json, body: '{"error_rate":1}' }),
    ).toBe(401);
    expect(
      await statusAs(other, `${base}/_sandbox/clock`, { method: 'POST', headers: json, body: '{"advance":"29h"}' }),
    ).toBe(401);
    expect(
      await statusAs(other, `${base}/_sandbox/events`, {
        method: 'POST',
        headers: json,
        body: '{"event_type":"profile.update.bio"}',
      }),
    ).toBe(401);
    expect(await statusAs(other, `${base}/_sandbox/deliveries`, { method: 'GET' })).toBe(401);
    expect(await statusAs(other, `${base}/_sandbox/audience-members/custom_audiences/1`, { method: 'GET' })).toBe(401);
    expect(t.sb.app.faults.spec).toEqual({});
    // The counts stay open (a health check); the key opens the rest.
    expect(await statusAs(other, `${base}/_sandbox/state`, { method: 'GET' })).toBe(200);
    const withKey = await fetch(`${base}/_sandbox/faults`, { headers: adminKey(t.sb.seed) });
    expect(withKey.status).toBe(200);
  });

  it("the CLI's sandbox commands send the key", async () => {
    for (const args of [
      ['sandbox', 'faults', 'set', 'latency_ms=1'],
      ['sandbox', 'faults', 'clear'],
      ['sandbox', 'trigger', 'profile.update.bio', '--user-id', '783214'],
    ]) {
      const r = await t.run(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    }
  });

  it('answers no request addressed to another name (DNS rebinding)', async () => {
    const http = await import('node:http');
    const status = (p: string, host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(`${t.sb.baseUrl}${p}`, { headers: { host, ...adminKey(t.sb.seed) } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
    const port = new URL(t.sb.baseUrl).port;
    expect(await status('/_sandbox/faults', `evil.example:${port}`)).toBe(403);
    expect(await status('/2/webhooks', `evil.example:${port}`)).toBe(403);
    expect(await status('/_sandbox/faults', `127.0.0.1:${port}`)).toBe(200);
    expect(await status('/_sandbox/faults', `localhost:${port}`)).toBe(200);
  });

  it('--host 0.0.0.0 warns that the sandbox is reachable from elsewhere', async () => {
    const sb = spawnCli(['sandbox', 'start', '--host', '0.0.0.0', '--port', '0', '--no-log'], {
      XCTL_CONFIG_DIR: fresh(),
    });
    try {
      await sb.waitStdout(/Ctrl-C stops it/);
      expect(sb.stderr()).toMatch(/warning: --host 0\.0\.0\.0 exposes the sandbox beyond this machine/);
    } finally {
      await sb.stop();
    }
  });
});

describe('item 6: media upload against a hostile server', () => {
  it('a STATUS saying check_after_secs:"soon" is polled once a second and given up at --wait-seconds', async () => {
    const http = await import('node:http');
    let status = 0;
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const u = new URL(req.url ?? '/', 'http://x');
        const info =
          u.pathname.endsWith('/finalize') || u.pathname === '/2/media/upload'
            ? { processing_info: { state: 'pending', check_after_secs: 'soon' } }
            : {};
        if (u.pathname === '/2/media/upload') status++;
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ data: { id: '9', media_key: '3_9', ...info } }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const file = path.join(fresh(), 'a.png');
      fs.writeFileSync(file, Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(64, 1)]));
      const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const r = await t.run(['media', 'upload', file, '--wait-seconds', '2'], {
        env: { XCTL_BASE_URL: base, XCTL_CONFIG_DIR: fresh() },
        timeoutMs: 15_000,
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('media 9 is still pending after 2 s');
      expect(status).toBeLessThanOrEqual(2);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe('item 13: a full disk', () => {
  /** A 1 MiB tmpfs: a disk that can be filled. Undefined (with why) where mounting is not allowed. */
  function smallDisk(): { dir: string; fill(leave: number): void; unfill(): void; close(): void } | string {
    if (process.getuid?.() !== 0) return 'needs root to mount a small tmpfs';
    const dir = fresh();
    const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', dir]);
    if (r.status !== 0) return `cannot mount a tmpfs here: ${String(r.stderr).trim()}`;
    const filler = path.join(dir, 'filler');
    return {
      dir,
      fill(leave) {
        const st = fs.statfsSync(dir);
        const had = fs.existsSync(filler) ? fs.statSync(filler).size : 0;
        const free = st.bavail * st.bsize;
        if (free > leave) fs.appendFileSync(filler, Buffer.alloc(free - leave));
        else if (had === 0 && leave === 0) fs.writeFileSync(filler, '');
      },
      unfill: () => fs.rmSync(filler, { force: true }),
      close: () => void spawnSync('umount', ['-l', dir]),
    };
  }

  it('`auth set` says which file could not be written and why (not "a bug in xctl")', async (c) => {
    const disk = smallDisk();
    if (typeof disk === 'string') return c.skip(disk);
    try {
      disk.fill(0);
      const r = await runCli(['auth', 'set', '--api-key', 'k', '--api-secret', '-'], {
        env: { XCTL_CONFIG_DIR: disk.dir },
        input: 'secret\n',
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /^error: cannot write the profile store .*config\.json: no space left on the device \(ENOSPC\)\nhint: free some space/,
      );
      expect(r.stderr).not.toContain('bug in xctl');
    } finally {
      disk.close();
    }
  });
});

describe('item 9: profile names', () => {
  it('`--profile __proto__ auth set` is refused (exit 2), not "saved" with nothing stored', async () => {
    const dir = fresh();
    for (const name of ['__proto__', 'constructor']) {
      const r = await runCli(['--profile', name, 'auth', 'set', '--api-key', 'k', '--api-secret', '-'], {
        env: { XCTL_CONFIG_DIR: dir },
        input: 's\n',
      });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`"${name}" cannot be a profile name`);
    }
    expect(fs.existsSync(path.join(dir, 'config.json'))).toBe(false);
  });
});

describe('item 7: sandbox start --state on something that is not a file', () => {
  it('a FIFO and /dev/zero are refused at once (exit 2), not a hang or an out-of-memory abort', async (c) => {
    const fifo = path.join(fresh(), 'state.json');
    if (spawnSync('mkfifo', [fifo]).status !== 0) return c.skip('mkfifo is not available');
    for (const state of [fifo, '/dev/zero']) {
      const started = Date.now();
      const r = await runCli(['sandbox', 'start', '--state', state, '--port', '0'], {
        env: { XCTL_CONFIG_DIR: fresh() },
        timeoutMs: 10_000,
      });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`--state: ${state} is not a regular file`);
      expect(Date.now() - started).toBeLessThan(8000);
    }
  });
});

describe('item 16: the bundle ships the xdg-open script of the `open` package', () => {
  it('sits beside the bundled opener, executable, so `auth login` opens a browser without xdg-utils', async () => {
    const { ROOT } = await import('../helpers/cli.js');
    const script = path.join(ROOT, 'dist/cli/vendor/xdg-open');
    expect(fs.statSync(script).mode & 0o111).toBe(0o111);
    expect(fs.readFileSync(script, 'utf8')).toBe(
      fs.readFileSync(path.join(ROOT, 'node_modules/open/xdg-open'), 'utf8'),
    );
    // The bundled opener knows where it is (an empty import.meta.url made it use the system's).
    expect(fs.readFileSync(path.join(ROOT, 'dist/cli/vendor/open.cjs'), 'utf8')).toContain('__xctlModuleUrl');
  });
});

describe('item 8: --jq that never ends', () => {
  it('`def f: f; f` is stopped by Ctrl-C (exit 130), jq running in its own thread', async () => {
    const sb = spawnCli(['webhooks', 'list', '--jq', 'def f: f; f'], { ...t.env, XCTL_CONFIG_DIR: fresh() });
    await new Promise((r) => setTimeout(r, 2500));
    const code = await sb.stop('SIGINT');
    expect(code).toBe(130);
    expect(sb.stderr()).toContain('interrupted');
  }, 20_000);
});
