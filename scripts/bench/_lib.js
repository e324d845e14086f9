// Helpers the bench sections share (files starting with "_" are not sections).
import { spawn } from 'node:child_process';
import fs from 'node:fs';

/** Realistic CRM export lines: mixed case, stray spaces, ~25 bytes each; emails [from, from + n). */
export function writeEmails(file, n, from = 0) {
  const fd = fs.openSync(file, 'w');
  const block = 100_000;
  for (let i = from; i < from + n; i += block) {
    let s = '';
    for (let j = i; j < Math.min(from + n, i + block); j++)
      s += j % 7 === 0 ? ` First.Last${j}@Example.COM \n` : `user${j}@example.com\n`;
    fs.writeSync(fd, s);
  }
  fs.closeSync(fd);
}

/** Runs a command; resolves with wall time (ms), stdout and the peak RSS (KB) it reached. */
export function timed(cmd, args, env = process.env, okCodes = [0]) {
  return new Promise((resolve, reject) => {
    const haveTime = fs.existsSync('/usr/bin/time');
    const argv = haveTime ? ['-f', '%M %U %S', cmd, ...args] : args;
    const t0 = process.hrtime.bigint();
    const child = spawn(haveTime ? '/usr/bin/time' : cmd, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (!okCodes.includes(code)) return reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${err}`));
      const m = /(\d+) ([\d.]+) ([\d.]+)\s*$/.exec(err.trim());
      resolve({
        ms,
        out,
        code,
        rssKb: haveTime && m ? Number(m[1]) : undefined,
        cpuS: haveTime && m ? Number(m[2]) + Number(m[3]) : undefined,
      });
    });
  });
}

/**
 * A CRM export of n rows: Name, Email, Phone, Notes. Emails as in writeEmails; one note in three
 * is quoted, holding commas and doubled quotes; one in fifty is empty.
 */
export function writeCrm(file, n, from = 0) {
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, 'Name,Email,Phone,Notes\n');
  const block = 100_000;
  for (let i = from; i < from + n; i += block) {
    let s = '';
    for (let j = i; j < Math.min(from + n, i + block); j++) {
      const email = j % 7 === 0 ? ` First.Last${j}@Example.COM ` : `user${j}@example.com`;
      const note =
        j % 50 === 0
          ? ''
          : j % 3 === 0
            ? `"Met at expo, booth ${j % 97}; said ""call me"", prefers email"`
            : `customer since ${2000 + (j % 25)}`;
      s += `Person ${j},${email},+1 415 555 ${String(j % 10000).padStart(4, '0')},${note}\n`;
    }
    fs.writeSync(fd, s);
  }
  fs.closeSync(fd);
}
