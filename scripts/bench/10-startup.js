// Start-up: `xctl --version` and `--help` against `node -e 0`, alternated, the ratio taken pair by
// pair; once without NODE_EXTRA_CA_CERTS (the targets) and once with it when the machine sets it.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { latencyEnvs } from './_env.js';

export const title = 'Start-up';

const PAIRS = 25;

function time(cmd, args, env) {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { stdio: 'ignore', env });
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}`);
  return Number(process.hrtime.bigint() - t) / 1e6;
}

const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)];
};

export default async function ({ root, log }) {
  const bin = path.join(root, 'bin/xctl.js');
  const rows = [];
  for (const e of latencyEnvs()) {
    const env = { ...e.env, XCTL_COMPILE_CACHE: undefined };
    delete env.XCTL_COMPILE_CACHE;
    for (let i = 0; i < 3; i++) time(process.execPath, [bin, '--help'], env); // warm the file and code caches
    const runs = { base: [], version: [], help: [], rv: [], rh: [] };
    for (let i = 0; i < PAIRS; i++) {
      const b1 = time(process.execPath, ['-e', '0'], env);
      const v = time(process.execPath, [bin, '--version'], env);
      const b2 = time(process.execPath, ['-e', '0'], env);
      const h = time(process.execPath, [bin, '--help'], env);
      runs.base.push(b1, b2);
      runs.version.push(v);
      runs.help.push(h);
      runs.rv.push(v / b1);
      runs.rh.push(h / b2);
    }
    const base = median(runs.base);
    const v = median(runs.rv);
    const h = median(runs.rh);
    log(
      `${e.label}: node -e 0 ${base.toFixed(1)} ms; --version ${median(runs.version).toFixed(1)} ms (${v.toFixed(2)}x); --help ${median(runs.help).toFixed(1)} ms (${h.toFixed(2)}x)`,
    );
    rows.push(
      { name: `${e.label}: \`node -e 0\` (baseline), median of ${PAIRS * 2}`, value: `${base.toFixed(1)} ms` },
      {
        name: `${e.label}: \`xctl --version\` / baseline (median of ${PAIRS} pairwise ratios; ${median(runs.version).toFixed(1)} ms)`,
        value: `${v.toFixed(2)}x`,
        ...(e.targets ? { target: '≤ 1.3x', met: v <= 1.3 } : {}),
      },
      {
        name: `${e.label}: \`xctl --help\` / baseline (median of ${PAIRS} pairwise ratios; ${median(runs.help).toFixed(1)} ms)`,
        value: `${h.toFixed(2)}x`,
        ...(e.targets ? { target: '≤ 1.6x', met: h <= 1.6 } : {}),
      },
    );
  }
  return rows;
}
