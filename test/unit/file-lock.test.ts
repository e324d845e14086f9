import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { processStart, tryLock, withFileLock } from '../../src/core/file-lock.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xctl-lock-'));
const lock = path.join(dir, 'config.json.oauth2-refresh.lock');
afterEach(() => fs.rmSync(lock, { force: true }));

describe('refresh lock (file created exclusively)', () => {
  it('lets one holder in at a time and removes the file afterwards', async () => {
    let inside = 0;
    let most = 0;
    const order: string[] = [];
    const task = (name: string) =>
      withFileLock(
        lock,
        async () => {
          inside++;
          most = Math.max(most, inside);
          order.push(`${name}+`);
          await new Promise((r) => setTimeout(r, 30));
          order.push(`${name}-`);
          inside--;
          return name;
        },
        { pollMs: 5 },
      );
    expect(await Promise.all([task('a'), task('b'), task('c')])).toEqual(['a', 'b', 'c']);
    expect(most).toBe(1);
    expect(order.join(' ')).toMatch(/^(\w)\+ \1- (\w)\+ \2- (\w)\+ \3-$/);
    expect(fs.existsSync(lock)).toBe(false);
  });

  it('releases on failure too', async () => {
    await expect(withFileLock(lock, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(fs.existsSync(lock)).toBe(false);
  });

  it('takes over a lock whose holder is dead; waits for a live one however old its lock, then gives up', async () => {
    // pid 2^22+ is above Linux's pid_max default: no such process.
    fs.writeFileSync(lock, JSON.stringify({ pid: 4_194_999, at: Date.now() }));
    expect(await withFileLock(lock, async () => 'dead holder')).toBe('dead holder');
    // Held for a minute by a live process (a slow token endpoint): still its lock.
    fs.writeFileSync(
      lock,
      JSON.stringify({ pid: process.pid, start: processStart(process.pid), at: Date.now() - 60_000 }),
    );
    await expect(withFileLock(lock, async () => 'never', { timeoutMs: 100, pollMs: 10 })).rejects.toThrow(
      /another xctl process \(pid \d+\) holds/,
    );
    // The live holder's file is left alone.
    expect(fs.existsSync(lock)).toBe(true);
  });

  it('a pid now used by another process (its start time differs) is a dead holder', async (c) => {
    const start = processStart(process.pid);
    if (start === undefined) return c.skip('no /proc: process start times are not readable here');
    fs.writeFileSync(
      lock,
      JSON.stringify({ pid: process.pid, start: String(Number(start) - 1), at: Date.now(), nonce: 'a' }),
    );
    expect(await withFileLock(lock, async () => 'reused pid', { timeoutMs: 100 })).toBe('reused pid');
  });
});

describe('taking over a stale lock', () => {
  it('never removes a lock another process took after the stale one was seen', async () => {
    // The interleaving five processes hit: this one reads the dead holder's record; before it
    // acts, another process removes the stale lock and takes the lock itself (alive).
    fs.writeFileSync(lock, JSON.stringify({ pid: 4_194_999, at: Date.now() }));
    const read = fs.readFileSync;
    let swapped = false;
    const spy = vi.spyOn(fs, 'readFileSync').mockImplementation(((f: fs.PathOrFileDescriptor, o?: unknown) => {
      const text = read(f, o as BufferEncoding);
      if (!swapped && (f === lock || typeof f === 'number')) {
        swapped = true;
        fs.unlinkSync(lock);
        fs.writeFileSync(
          lock,
          JSON.stringify({ pid: process.pid, start: processStart(process.pid), at: Date.now(), nonce: 'other' }),
        );
      }
      return text;
    }) as typeof fs.readFileSync);
    try {
      await expect(withFileLock(lock, async () => 'two holders', { timeoutMs: 150, pollMs: 10 })).rejects.toThrow(
        /another xctl process/,
      );
    } finally {
      spy.mockRestore();
    }
    expect(swapped).toBe(true);
    expect(JSON.parse(fs.readFileSync(lock, 'utf8'))).toMatchObject({ nonce: 'other' });
    expect(fs.readdirSync(dir).filter((f) => f.includes('takeover'))).toEqual([]);
  });
});

describe('store write lock (synchronous)', () => {
  it('runs the section and removes the file; waits out a live holder, then gives up', async () => {
    const { withFileLockSync } = await import('../../src/core/file-lock.js');
    expect(withFileLockSync(lock, () => 42)).toBe(42);
    expect(fs.existsSync(lock)).toBe(false);
    fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, at: Date.now() }));
    const started = Date.now();
    expect(() => withFileLockSync(lock, () => 1, { timeoutMs: 80 })).toThrow(/another xctl process/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(75);
    fs.writeFileSync(lock, JSON.stringify({ pid: 4_194_999, at: Date.now() }));
    expect(withFileLockSync(lock, () => 'dead holder')).toBe('dead holder');
  });
});

describe('tryLock (held as long as a command runs: journal, snapshot)', () => {
  it('takes a free lock, reports a live holder at once, takes over a dead one, releases only its own', () => {
    const got = tryLock(lock);
    if (!('release' in got)) throw new Error('not taken');
    expect(tryLock(lock)).toEqual({ held: expect.objectContaining({ pid: process.pid }) });
    got.release();
    expect(fs.existsSync(lock)).toBe(false);
    fs.writeFileSync(lock, JSON.stringify({ pid: 2 ** 22 + 1, at: 0, nonce: 'dead' })); // above pid_max's default
    const again = tryLock(lock);
    expect('release' in again).toBe(true);
    expect(JSON.parse(fs.readFileSync(lock, 'utf8'))).toMatchObject({ pid: process.pid });
    fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, at: 0, nonce: 'someone-else' }));
    if ('release' in again) again.release(); // not ours any more: left alone
    expect(fs.existsSync(lock)).toBe(true);
  });

  it('a folder in the lock place is an error naming it at once, for the waiting lock too', async () => {
    fs.mkdirSync(lock);
    try {
      expect(() => tryLock(lock)).toThrow(`${lock} is not a lock file xctl can read (a folder)`);
      await expect(withFileLock(lock, async () => 1, { timeoutMs: 60_000 })).rejects.toThrow('is not a lock file');
    } finally {
      fs.rmSync(lock, { recursive: true });
    }
  });
});
