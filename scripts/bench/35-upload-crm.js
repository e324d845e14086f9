// Audience upload of the files people really have: a CRM export of 1,000,000 rows (Name, Email,
// Phone, Notes; a third of the notes quoted, holding commas and doubled quotes), uploaded with
// `--column email=Email --dry-run`, beside Python's csv.DictReader + hashlib doing the same
// normalization, and beside the one-email-per-line file of the same emails (CPU per record);
// then peak RSS for 10,000,000 such rows. Alternated runs, medians. Inputs are generated into a
// temp dir, never into the repo.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { timed, writeCrm, writeEmails } from './_lib.js';

export const title = 'Audience upload of a CRM export (4 columns, one email column)';

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const fmt = (r) => `${(r / 1e6).toFixed(2)}M records/s`;

export default async function ({ root, log }) {
  const bin = path.join(root, 'bin/xctl.js');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xctl-bench-crm-'));
  try {
    const N = 1_000_000;
    const crm = path.join(dir, 'crm-1m.csv');
    const lines = path.join(dir, 'emails-1m.txt');
    writeCrm(crm, N);
    writeEmails(lines, N);
    const env = { ...process.env, XCTL_CONFIG_DIR: path.join(dir, 'config'), XCTL_ACCOUNT_ID: 'benchacct' };
    const dry = (file, ...sel) => [
      bin,
      'audiences',
      'upload',
      'benchca',
      file,
      ...sel,
      '--dry-run',
      '--out',
      '/dev/null',
      '--no-progress',
      '-o',
      'json',
    ];
    const crmArgs = dry(crm, '--column', 'email=Email');
    const linesArgs = dry(lines, '--type', 'email');
    const py = [path.join(root, 'scripts/bench/baseline_crm.py'), crm, '/dev/null'];

    await timed(process.execPath, crmArgs, env); // warm the file cache
    await timed(process.execPath, linesArgs, env);
    const runs = { crm: [], lines: [], python: [], crmCpu: [], linesCpu: [], pythonCpu: [] };
    for (let i = 0; i < 3; i++) {
      const a = await timed(process.execPath, crmArgs, env);
      const b = await timed('python3', py);
      const c = await timed(process.execPath, linesArgs, env);
      if (JSON.parse(a.out).valid !== N || JSON.parse(b.out).valid !== N || JSON.parse(c.out).valid !== N)
        throw new Error('a run did not count every record valid');
      runs.crm.push(a.ms);
      runs.python.push(b.ms);
      runs.lines.push(c.ms);
      if (a.cpuS !== undefined) {
        runs.crmCpu.push(a.cpuS);
        runs.pythonCpu.push(b.cpuS);
        runs.linesCpu.push(c.cpuS);
      }
    }
    const crmRate = N / (median(runs.crm) / 1000);
    const pyRate = N / (median(runs.python) / 1000);
    const cpu = runs.crmCpu.length
      ? { crm: median(runs.crmCpu), lines: median(runs.linesCpu), python: median(runs.pythonCpu) }
      : undefined;
    log(
      `CRM dry run: ${fmt(crmRate)}; Python csv.DictReader + hashlib: ${fmt(pyRate)}; ratio ${(crmRate / pyRate).toFixed(2)}x` +
        (cpu
          ? `; CPU s per 1M: CRM ${cpu.crm.toFixed(2)}, one email per line ${cpu.lines.toFixed(2)}, Python ${cpu.python.toFixed(2)}`
          : ''),
    );

    // peak RSS, 10,000,000 CRM rows
    fs.rmSync(crm);
    fs.rmSync(lines);
    const big = path.join(dir, 'crm-10m.csv');
    writeCrm(big, 10_000_000);
    const r = await timed(process.execPath, dry(big, '--column', 'email=Email'), env);
    if (JSON.parse(r.out).valid !== 10_000_000) throw new Error('the 10M CRM run did not count every record valid');
    const rssMb = r.rssKb ? r.rssKb / 1024 : undefined;
    log(`10,000,000 CRM rows (dry run): peak RSS ${rssMb ? rssMb.toFixed(0) + ' MB' : 'n/a'}`);

    return [
      {
        name: 'dry run, 1,000,000-row CRM export, --column email=Email (whole process, median of 3)',
        value: fmt(crmRate),
      },
      { name: 'Python csv.DictReader + hashlib, same normalization (median of 3)', value: fmt(pyRate) },
      {
        name: 'CRM dry run / Python csv.DictReader',
        value: `${(crmRate / pyRate).toFixed(2)}x`,
        target: '≥ 3x',
        met: crmRate / pyRate >= 3,
      },
      ...(cpu
        ? [
            {
              name: 'CPU seconds per 1,000,000 records (all threads): CRM export / the same emails one per line / Python',
              value: `${cpu.crm.toFixed(2)} s / ${cpu.lines.toFixed(2)} s / ${cpu.python.toFixed(2)} s`,
            },
            {
              name: 'CPU per record, CRM export / one email per line',
              value: `${(cpu.crm / cpu.lines).toFixed(2)}x`,
              target: '≤ 1.5x',
              met: cpu.crm / cpu.lines <= 1.5,
            },
          ]
        : []),
      {
        name: 'peak RSS, 10,000,000-row CRM export (dry run)',
        value: rssMb ? `${rssMb.toFixed(0)} MB` : 'n/a',
        target: '< 200 MB',
        met: rssMb ? rssMb < 200 : undefined,
      },
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
