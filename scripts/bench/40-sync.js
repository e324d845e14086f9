// Audience sync: `sync --plan` of a 10,000,000-row file against a 10,000,000-member snapshot
// (1% of the members differ each way): wall time, rate and peak RSS of the whole CLI process.
// Memory must stay bounded (external sort), whatever the row count. The snapshot is seeded
// from `audiences hash` of the previous day's file (also timed: hash shares upload's speed).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { timed, writeEmails } from './_lib.js';

export const title = 'Audience sync';

const N = 10_000_000;
const SHIFT = 100_000;

export default async function ({ root, log }) {
  const bin = path.join(root, 'bin/xctl.js');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xctl-bench-sync-'));
  const cfgDir = path.join(dir, 'config');
  const env = { ...process.env, XCTL_CONFIG_DIR: cfgDir, XCTL_ACCOUNT_ID: 'benchacct' };
  try {
    const yesterday = path.join(dir, 'yesterday.txt');
    const today = path.join(dir, 'today.txt');
    writeEmails(yesterday, N, 0);
    writeEmails(today, N, SHIFT); // SHIFT members left, SHIFT joined

    // The snapshot: yesterday's digests from `audiences hash`, streamed into the sorter.
    const { DigestSorter } = await import(path.join(root, 'dist/audiences/digests.js'));
    const { snapshotPaths, writeSnapshot } = await import(path.join(root, 'dist/audiences/snapshot.js'));
    const paths = snapshotPaths(cfgDir, 'default', 'benchacct', 'benchca', 'email');
    fs.mkdirSync(paths.dir, { recursive: true });
    const sorter = new DigestSorter(fs.mkdtempSync(path.join(dir, 'sort-')));
    const t0 = process.hrtime.bigint();
    await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [bin, 'audiences', 'hash', yesterday, '--type', 'email'], {
        env,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let carry = Buffer.alloc(0);
      child.stdout.on('data', (d) => {
        const b = carry.length ? Buffer.concat([carry, d]) : d;
        const whole = Math.floor(b.length / 65);
        for (let i = 0; i < whole; i++) sorter.addHex(b, i * 65);
        carry = Buffer.from(b.subarray(whole * 65));
      });
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`hash exited ${code}`))));
    });
    const hashMs = Number(process.hrtime.bigint() - t0) / 1e6;
    if (sorter.added !== N) throw new Error(`hash printed ${sorter.added} digests for ${N} rows`);
    const snap = await writeSnapshot(paths.snapshot, await sorter.finish(), {
      profile: 'default',
      account: 'benchacct',
      audience: 'benchca',
      type: 'email',
      oldest_sent_at: new Date().toISOString(),
    });
    log(
      `audiences hash, 10,000,000 rows piped to a reader: ${(N / (hashMs / 1000) / 1e6).toFixed(2)}M records/s; snapshot of ${snap.count} members written`,
    );

    const load = os.loadavg()[0];
    const r = await timed(
      process.execPath,
      [bin, 'audiences', 'sync', 'benchca', today, '--type', 'email', '--plan', '--no-progress', '-o', 'json'],
      env,
      [10],
    );
    const s = JSON.parse(r.out);
    if (s.members !== N || s.adds !== SHIFT || s.removes !== SHIFT || s.members_before !== N)
      throw new Error(`unexpected plan: ${r.out}`);
    const rssMb = r.rssKb ? r.rssKb / 1024 : undefined;
    const rate = N / (r.ms / 1000);
    log(
      `sync --plan, 10M rows against a 10M snapshot: ${(r.ms / 1000).toFixed(1)} s (${(rate / 1e6).toFixed(2)}M records/s), peak RSS ${rssMb ? rssMb.toFixed(0) + ' MB' : 'n/a'}, CPU ${r.cpuS?.toFixed(1) ?? 'n/a'} s; load average ${load.toFixed(1)} on ${os.cpus().length} cores`,
    );
    return [
      {
        name: 'sync --plan: 10,000,000 rows against a 10,000,000-member snapshot (100,000 adds, 100,000 removes found), whole process',
        value: `${(r.ms / 1000).toFixed(1)} s (${(rate / 1e6).toFixed(2)}M records/s)`,
      },
      {
        name: 'sync --plan: CPU seconds (all threads)',
        value: r.cpuS !== undefined ? `${r.cpuS.toFixed(1)} s` : 'n/a',
      },
      {
        name: 'sync --plan: peak RSS',
        value: rssMb ? `${rssMb.toFixed(0)} MB` : 'n/a',
        target: '< 200 MB',
        met: rssMb ? rssMb < 200 : undefined,
      },
      {
        name: 'setup: audiences hash of 10,000,000 rows, read and sorted by the bench process as they come',
        value: `${(N / (hashMs / 1000) / 1e6).toFixed(2)}M records/s`,
      },
      { name: `load average when measured (${os.cpus().length} cores, shared)`, value: load.toFixed(1) },
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
