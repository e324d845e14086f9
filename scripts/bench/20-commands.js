// Per-command cost: what a shell loop pays for each call. Three everyday commands against a
// sandbox on loopback (its own process, started here), each timed alternately with `node -e 0`,
// the ratio taken pair by pair; peak RSS from /usr/bin/time in separate runs, so that timing
// runs carry no wrapper. Every figure once without NODE_EXTRA_CA_CERTS (the targets: what a user
// without it sees) and once with it, when the machine sets it (see _env.js).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { latencyEnvs } from './_env.js';

export const title = 'Per-command cost';

const PAIRS = 30;
const RSS_RUNS = 3;

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];

function time(cmd, args, env) {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { env, stdio: 'ignore' });
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}`);
  return Number(process.hrtime.bigint() - t) / 1e6;
}

/** Peak RSS in MB (GNU time's %M, in KB), or undefined without /usr/bin/time. */
function peakRss(cmd, args, env) {
  if (!fs.existsSync('/usr/bin/time')) return undefined;
  const r = spawnSync('/usr/bin/time', ['-f', '%M', cmd, ...args], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return Number(/(\d+)\s*$/.exec(r.stderr.trim())[1]) / 1024;
}

/** `xctl sandbox start --json` in a child process: its first stdout line is the seed. */
async function startSandbox(bin) {
  const child = spawn(process.execPath, [bin, 'sandbox', 'start', '--port', '0', '--json'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise((resolve, reject) => {
    const rl = readline.createInterface({ input: child.stdout });
    rl.once('line', (l) => resolve(l));
    child.once('exit', (code) => reject(new Error(`sandbox exited ${code}`)));
  });
  return { seed: JSON.parse(line), stop: () => child.kill('SIGINT') };
}

export default async function ({ root, log }) {
  const bin = path.join(root, 'bin/xctl.js');
  const cfgDir = fs.mkdtempSync(path.join(os.tmpdir(), 'xctl-bench-cmd-'));
  const sb = await startSandbox(bin);
  try {
    const s = sb.seed;
    const floor = { FLOOR_URL: `${s.base_url}/2/webhooks`, FLOOR_BEARER: await appBearer(s) };
    const rows = [];
    for (const e of latencyEnvs()) {
      // The code cache (bin/xctl.js) in a folder of this run's own, filled by the warm-up calls
      // below as a user's first call of each command fills theirs.
      const env = {
        ...e.env,
        XCTL_COMPILE_CACHE: path.join(cfgDir, 'compile-cache'),
        XCTL_CONFIG_DIR: cfgDir,
        XCTL_BASE_URL: s.base_url,
        XCTL_API_KEY: s.api_key,
        XCTL_API_SECRET: s.api_secret,
        XCTL_ACCESS_TOKEN: s.access_token,
        XCTL_ACCESS_TOKEN_SECRET: s.access_token_secret,
        XCTL_ACCOUNT_ID: s.account_id,
      };
      for (const k of Object.keys(env))
        if (
          k.startsWith('XCTL_') &&
          ![
            'XCTL_COMPILE_CACHE',
            'XCTL_CONFIG_DIR',
            'XCTL_BASE_URL',
            'XCTL_API_KEY',
            'XCTL_API_SECRET',
            'XCTL_ACCESS_TOKEN',
            'XCTL_ACCESS_TOKEN_SECRET',
            'XCTL_ACCOUNT_ID',
          ].includes(k)
        )
          delete env[k];
      rows.push(...measure(bin, env, e, log));
      rows.push(...measureFloor(root, env, e, log, floor));
    }
    return rows;
  } finally {
    sb.stop();
    fs.rmSync(cfgDir, { recursive: true, force: true });
  }
}

/** The app's bearer (POST /oauth2/token), the one `webhooks list` obtains and sends. */
async function appBearer(s) {
  const basic = Buffer.from(`${encodeURIComponent(s.api_key)}:${encodeURIComponent(s.api_secret)}`).toString('base64');
  const res = await fetch(`${s.base_url}/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${basic}`,
      'content-type': 'application/x-www-form-urlencoded;charset=UTF-8',
    },
    body: 'grant_type=client_credentials',
  });
  if (!res.ok) throw new Error(`POST /oauth2/token: ${res.status} ${await res.text()}`);
  return (await res.json()).access_token;
}

/**
 * The floor under the commands: floor-http-get.cjs, one `http.get` of the URL `webhooks list`
 * calls, with the same bearer, the body printed. What node's HTTP stack alone costs, timed like
 * the commands (pairwise against `node -e 0`), so the targets can be read against it.
 */
function measureFloor(root, env, e, log, floor) {
  const node = process.execPath;
  const script = path.join(root, 'scripts/bench/floor-http-get.cjs');
  const fenv = { ...env, ...floor };
  for (let i = 0; i < 3; i++) time(node, [script], fenv);
  const ratios = [];
  const diffs = [];
  for (let i = 0; i < PAIRS; i++) {
    const b = time(node, ['-e', '0'], env);
    const a = time(node, [script], fenv);
    ratios.push(a / b);
    diffs.push(a - b);
  }
  const r = median(ratios);
  const added = median(diffs).toFixed(1);
  log(`${e.short}: floor (node:http alone, one GET): ${r.toFixed(2)}x, ${added} ms added`);
  return [
    {
      name:
        `${e.label}: floor: a bare \`http.get\` of /2/webhooks with the bearer, body printed ` +
        `(scripts/bench/floor-http-get.cjs) / \`node -e 0\` (median of ${PAIRS} pairwise ratios; ` +
        `${added} ms added)`,
      value: `${r.toFixed(2)}x`,
    },
  ];
}

function measure(bin, env, e, log) {
  const node = process.execPath;
  const commands = [
    {
      name: '`xctl request /1.1/account/verify_credentials.json`',
      args: ['request', '/1.1/account/verify_credentials.json'],
      target: 1.6,
    },
    { name: '`xctl webhooks list -o json`', args: ['webhooks', 'list', '-o', 'json'], target: 1.6 },
    { name: '`xctl ads campaigns list -o json`', args: ['ads', 'campaigns', 'list', '-o', 'json'], target: 1.8 },
  ];
  const t = (target, ok) => (e.targets ? { target, met: ok } : {});
  // Warm the file cache; the first webhooks call also obtains and caches the app bearer, as a
  // user's first call would.
  for (const c of commands) for (let i = 0; i < 3; i++) time(node, [bin, ...c.args], env);
  const rows = [];
  for (const c of commands) {
    const base = [];
    const cmd = [];
    const ratios = [];
    for (let i = 0; i < PAIRS; i++) {
      const b = time(node, ['-e', '0'], env);
      const a = time(node, [bin, ...c.args], env);
      base.push(b);
      cmd.push(a);
      ratios.push(a / b);
    }
    const rss = [];
    for (let i = 0; i < RSS_RUNS; i++) rss.push(peakRss(node, [bin, ...c.args], env));
    const ratio = median(ratios);
    const rssMb = rss.includes(undefined) ? undefined : Math.max(...rss);
    log(
      `${e.short}: ${c.args.join(' ')}: ${median(cmd).toFixed(1)} ms vs node -e 0 ${median(base).toFixed(1)} ms: ${ratio.toFixed(2)}x; peak RSS ${rssMb ? rssMb.toFixed(0) + ' MB' : 'n/a'}`,
    );
    rows.push(
      {
        name: `${e.label}: ${c.name} / \`node -e 0\` (median of ${PAIRS} pairwise ratios; ${median(cmd).toFixed(1)} ms vs ${median(base).toFixed(1)} ms)`,
        value: `${ratio.toFixed(2)}x`,
        ...t(`≤ ${c.target}x`, ratio <= c.target),
      },
      {
        name: `${e.label}: ${c.name}, time added to \`node -e 0\` (median of pairwise differences)`,
        value: `${median(cmd.map((a, i) => a - base[i])).toFixed(1)} ms`,
      },
      {
        name: `${e.label}: ${c.name}, peak RSS (worst of ${RSS_RUNS})`,
        value: rssMb ? `${rssMb.toFixed(0)} MB` : 'n/a (no /usr/bin/time)',
        ...t('≤ 60 MB', rssMb === undefined ? undefined : rssMb <= 60),
      },
    );
  }
  rows.push(...firstCalls(bin, env, e, log, commands[1], t));
  return rows;
}

/**
 * A command's first call, two ways: with the cache off (the worst case: every script compiled
 * from source, nothing written), and on a fresh machine (an empty cache folder: compiled from
 * source, and the command's cache written at exit). Each timed run gets its cache folder
 * prepared outside the timing.
 */
function firstCalls(bin, env, e, log, c, t) {
  const node = process.execPath;
  const base = env.XCTL_COMPILE_CACHE;
  const emptyFolder = () => {
    const d = `${base}-first`;
    fs.rmSync(d, { recursive: true, force: true });
    fs.mkdirSync(d, { mode: 0o700 });
    return { ...env, XCTL_COMPILE_CACHE: d };
  };
  const ways = [
    {
      what: "without the code cache (a command's first call)",
      short: 'without the code cache',
      prepare: () => ({ ...env, XCTL_COMPILE_CACHE: '0' }),
      target: 2.5,
    },
    {
      what: 'first call on a fresh machine (empty cache folder; includes writing its cache)',
      short: 'first call, empty cache folder',
      prepare: emptyFolder,
    },
  ];
  const rows = [];
  for (const w of ways) {
    const ratios = [];
    const diffs = [];
    for (let i = 0; i < PAIRS / 2; i++) {
      const runEnv = w.prepare();
      const b = time(node, ['-e', '0'], env);
      const a = time(node, [bin, ...c.args], runEnv);
      ratios.push(a / b);
      diffs.push(a - b);
    }
    const r = median(ratios);
    const added = `${median(diffs).toFixed(1)} ms added`;
    log(`${e.short}: ${c.args.join(' ')} ${w.short}: ${r.toFixed(2)}x, ${added}`);
    rows.push({
      name: `${e.label}: ${c.name} ${w.what}, / \`node -e 0\` (median of ${PAIRS / 2} pairwise ratios)`,
      value: `${r.toFixed(2)}x; ${added}`,
      ...(w.target ? t(`≤ ${w.target}x`, r <= w.target) : {}),
    });
  }
  return rows;
}
