import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withFileLock } from '../../src/core/file-lock.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xctl-lock-'));
const lock = path.join(dir, 'config.json.oauth2-refresh.lock');
afterEach(() => fs.rmSync(lock, { force: true }));

describe('refresh lock (file created exclusively)', () => {
  it('lets one holder in at a time and removes the file afterwards', async () => {
    let inside = 0;
    let most = 0;
    const order: string[] = [];
    const task = (name: string) =>
      withFileLock(lock, async () => {
        inside++;
        most = Math.max(most, inside);
        order.push(`${name}+`);
        await new Promise((r) => setTimeout(r, 30));
        order.push(`${name}-`);
        inside--;
        return name;
      }, { pollMs: 5 });
    expect(await Promise.all([task('a'), task('b'), task('c')])).toEqual(['a', 'b', 'c']);
    expect(most).toBe(1);
    expect(order.join(' ')).toMatch(/^(\w)\+ \1- (\w)\+ \2- (\w)\+ \3-$/);
    expect(fs.existsSync(lock)).toBe(false);
  });

  it('releases on failure too', async () => {
    await expect(withFileLock(lock, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(fs.existsSync(lock)).toBe(false);
  });

  it('takes over a lock whose holder is dead, or held too long; waits for a live one and then gives up', async () => {
    // pid 2^22+ is above Linux's pid_max default: no such process.
    fs.writeFileSync(lock, JSON.stringify({ pid: 4_194_999, at: Date.now() }));
    expect(await withFileLock(lock, async () => 'dead holder')).toBe('dead holder');
    fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, at: Date.now() - 60_000 }));
    expect(await withFileLock(lock, async () => 'old holder', { staleMs: 30_000 })).toBe('old holder');
    fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, at: Date.now() }));
    await expect(withFileLock(lock, async () => 'never', { timeoutMs: 100, pollMs: 10 })).rejects.toThrow(/another xctl process \(pid \d+\) holds/);
    // The live holder's file is left alone.
    expect(fs.existsSync(lock)).toBe(true);
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
