// Ctrl-C (issue 10): every long-running command stops cleanly on SIGINT with its documented exit
// code and no stack trace: `sandbox start` and `webhooks listen` and `activity stream` end
// normally (0), `auth login` waiting for the browser is interrupted (130), an upload saves its
// journal and exits 130 (covered with its journal in audience-upload.test.ts; here: no stack).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, startTestSandbox, tempDir, type TestSandbox } from '../helpers/cli.js';
import { appBearer, spawnCli, type LongRun } from '../helpers/receiver.js';

let t: TestSandbox;
let env: Record<string, string>;
let dir: string;
beforeAll(async () => {
  t = await startTestSandbox();
  const s = t.sb.seed;
  env = { ...t.env, XCTL_BEARER_TOKEN: await appBearer(s.base_url, s.api_key, s.api_secret) };
  dir = tempDir('xctl-sig-');
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function clean(l: LongRun): void {
  const all = l.stdout() + l.stderr();
  expect(all).not.toMatch(/\n\s+at |node:internal|Unhandled|Error:/);
  expect(l.stderr()).not.toMatch(/^error: /m);
}

describe('SIGINT', () => {
  it('sandbox start, webhooks listen, activity stream: exit 0; auth login: 130; all without a stack trace', async () => {
    const runs: Array<[LongRun, RegExp, number]> = [
      [spawnCli(['sandbox', 'start', '--port', '0'], { XCTL_CONFIG_DIR: tempDir() }), /Ctrl-C stops it/, 0],
      [spawnCli(['webhooks', 'listen', '--register', '--yes'], env), /registered webhook \d+/, 0],
      [spawnCli(['activity', 'stream'], env), /connected to the activity stream/, 0],
      [
        spawnCli(['auth', 'login', '--no-browser'], { ...env, XCTL_CONFIG_DIR: tempDir() }),
        /Waiting for the browser/,
        130,
      ],
    ];
    // sandbox start prints its banner (base URL, credentials) on stdout, the others on stderr
    await Promise.all(runs.map(([l, ready], i) => (i === 0 ? l.waitStdout(ready) : l.waitStderr(ready))));
    const codes = await Promise.all(runs.map(([l]) => l.stop('SIGINT')));
    expect(codes).toEqual(runs.map(([, , code]) => code));
    for (const [l] of runs) clean(l);
    // the receiver deleted its webhook on the way out; the sandbox said it stopped
    expect(runs[1]![0].stderr()).toMatch(/deleted webhook \d+/);
    expect(runs[0]![0].stdout() + runs[0]![0].stderr()).toMatch(/sandbox stopped/);
  });

  it('an upload interrupted mid-way exits 130 without a stack trace', async () => {
    const aud = JSON.parse((await t.run(['audiences', 'create', '--name', 'sigint', '--json'])).stdout);
    const file = path.join(dir, 'users.txt');
    fs.writeFileSync(file, Array.from({ length: 60_000 }, (_, i) => `user${i}@example.com`).join('\n'));
    await t.admin('POST', '/_sandbox/faults', { latency_ms: 300, match: '/users$' });
    try {
      const up = spawnCli(
        [
          'audiences',
          'upload',
          aud.id,
          file,
          '--type',
          'email',
          '--batch-size',
          '500',
          '--concurrency',
          '1',
          '--journal',
          path.join(dir, 'j'),
        ],
        env,
      );
      // 120 batches at 300 ms each: the upload is surely mid-way after a second and a half
      await new Promise((r) => setTimeout(r, 1500));
      expect(await up.stop('SIGINT')).toBe(130);
      clean(up);
    } finally {
      await t.admin('DELETE', '/_sandbox/faults');
    }
  });
});

describe('a closed pipe (`xctl ... | head`)', () => {
  it('stops quietly with exit 0, no EPIPE stack trace', async () => {
    const results = await Promise.all(
      [['completion', 'zsh'], ['changelog'], ['ads', 'ref', 'placements']].map(
        (args) =>
          new Promise<{ code: number | null; stderr: string }>((resolve) => {
            const child = spawn(process.execPath, [BIN, ...args], {
              env: { ...process.env, ...t.env },
              stdio: ['ignore', 'pipe', 'pipe'],
            });
            child.stdout.destroy(); // the reader is gone before the first write
            let stderr = '';
            child.stderr.on('data', (d) => (stderr += d));
            child.on('close', (code) => resolve({ code, stderr }));
          }),
      ),
    );
    for (const r of results) {
      expect(r.stderr).not.toMatch(/EPIPE|\n\s+at /);
      expect(r.code).toBe(0);
    }
  });
});
