// The store's lock between real processes (issue 25 item 3): several processes finding one stale
// lock never hold it together, and parallel writers never lose an update. Runs the built modules
// (dist/) in separate node processes started together.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/cli.js';

const dir = tempDir('xctl-lockrace-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const DIST = path.join(ROOT, 'dist/core');

/** Runs `code` (an ES module body) in `n` node processes that all start at the same instant. */
async function together(n: number, code: string, args: (i: number) => string[]): Promise<void> {
  const go = Date.now() + 400;
  const body = `const go = ${go}; while (Date.now() < go); ${code}`;
  const runs = Array.from(
    { length: n },
    (_, i) =>
      new Promise<void>((resolve, reject) => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', body, ...args(i)], {
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let err = '';
        child.stderr.on('data', (d) => (err += d));
        child.on('error', reject);
        child.on('close', (c) => (c === 0 ? resolve() : reject(new Error(`child ${i} exited ${c}: ${err}`))));
      }),
  );
  await Promise.all(runs);
}

const DEAD = JSON.stringify({ pid: 4_194_999, at: Date.now() - 1000 });

describe('one stale lock, five processes', () => {
  it('gives the lock to one process at a time in every round', async () => {
    const lock = path.join(dir, 'config.json.lock');
    const log = path.join(dir, 'holders.log');
    const code = `
      import fs from 'node:fs';
      const { withFileLockSync } = await import(${JSON.stringify(path.join(DIST, 'file-lock.js'))});
      const [lock, log] = process.argv.slice(1);
      withFileLockSync(lock, () => {
        fs.appendFileSync(log, '+' + process.pid + '\\n');
        const until = Date.now() + 15; while (Date.now() < until);
        fs.appendFileSync(log, '-' + process.pid + '\\n');
      }, { timeoutMs: 20000 });`;
    for (let round = 0; round < 4; round++) {
      fs.writeFileSync(lock, DEAD);
      fs.writeFileSync(log, '');
      await together(5, code, () => [lock, log]);
      const lines = fs.readFileSync(log, 'utf8').trim().split('\n');
      expect(lines).toHaveLength(10);
      for (let i = 0; i < lines.length; i += 2) {
        expect(lines[i], `round ${round}: ${lines.join(' ')}`).toMatch(/^\+\d+$/);
        expect(lines[i + 1], `round ${round}: ${lines.join(' ')}`).toBe(`-${lines[i]!.slice(1)}`);
      }
      expect(fs.existsSync(lock)).toBe(false);
      expect(fs.readdirSync(dir).filter((f) => f.includes('takeover') || f.endsWith('.new'))).toEqual([]);
    }
  }, 60_000);
});

describe('parallel writers of the profile store', () => {
  it('keep every update, starting from a lock a crashed writer left behind', async () => {
    const cfg = path.join(dir, 'store');
    fs.mkdirSync(cfg, { mode: 0o700 });
    fs.writeFileSync(path.join(cfg, 'config.json.lock'), DEAD);
    const code = `
      const { Store } = await import(${JSON.stringify(path.join(DIST, 'config.js'))});
      const [cfg, i] = process.argv.slice(1);
      const store = await Store.open({ XCTL_CONFIG_DIR: cfg });
      for (let k = 0; k < 5; k++) store.updateProfile('p' + i, { ['api_key']: 'key-' + i + '-' + k, account_id: 'a' + k });`;
    await together(12, code, (i) => [cfg, String(i)]);
    const profiles = (
      JSON.parse(fs.readFileSync(path.join(cfg, 'config.json'), 'utf8')) as {
        profiles: Record<string, { api_key: string }>;
      }
    ).profiles;
    expect(Object.keys(profiles).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `p${i}`).sort());
    for (let i = 0; i < 12; i++) expect(profiles[`p${i}`]!.api_key).toBe(`key-${i}-4`);
  }, 60_000);
});
