// Start-up: `xctl --version` and `--help` against `node -e 0`, alternated, medians compared.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

export const title = 'Start-up';

function time(cmd, args) {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { stdio: 'ignore' });
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}`);
  return Number(process.hrtime.bigint() - t) / 1e6;
}

const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)];
};

export default async function ({ root, log }) {
  const bin = path.join(root, 'bin/xctl.js');
  const runs = { base: [], version: [], help: [] };
  for (let i = 0; i < 3; i++) time(process.execPath, [bin, '--version']); // warm the file cache
  for (let i = 0; i < 25; i++) {
    runs.base.push(time(process.execPath, ['-e', '0']));
    runs.version.push(time(process.execPath, [bin, '--version']));
    runs.base.push(time(process.execPath, ['-e', '0']));
    runs.help.push(time(process.execPath, [bin, '--help']));
  }
  const base = median(runs.base);
  const v = median(runs.version) / base;
  const h = median(runs.help) / base;
  log(`node -e 0: ${base.toFixed(1)} ms; --version ${median(runs.version).toFixed(1)} ms (${v.toFixed(2)}x); --help ${median(runs.help).toFixed(1)} ms (${h.toFixed(2)}x)`);
  return [
    { name: '`node -e 0` (baseline), median of 50', value: `${base.toFixed(1)} ms` },
    { name: '`xctl --version` / baseline', value: `${v.toFixed(2)}x`, target: '≤ 1.3x', met: v <= 1.3 },
    { name: '`xctl --help` / baseline', value: `${h.toFixed(2)}x`, target: '≤ 1.6x', met: h <= 1.6 },
  ];
}
