import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

function bashComplete(script: string, words: string[]): string[] {
  const dir = tempDir('xctl-compl-');
  const file = path.join(dir, 'c.bash');
  fs.writeFileSync(file, script);
  const arr = words.map((w) => `'${w}'`).join(' ');
  const out = execFileSync(
    'bash',
    [
      '-c',
      `source ${file}; COMP_WORDS=(${arr}); COMP_CWORD=${words.length - 1}; _xctl_complete; printf '%s\\n' "\${COMPREPLY[@]}"`,
    ],
    {
      encoding: 'utf8',
    },
  );
  fs.rmSync(dir, { recursive: true, force: true });
  return out.split('\n').filter(Boolean);
}

describe('xctl completion', () => {
  it('bash: completes groups, nested verbs and options from the real command tree', async () => {
    const r = await runCli(['completion', 'bash']);
    expect(r.code).toBe(0);
    expect(bashComplete(r.stdout, ['xctl', 'aut'])).toEqual(['auth']);
    expect(bashComplete(r.stdout, ['xctl', 'au'])).toEqual(['auth', 'audiences']);
    expect(bashComplete(r.stdout, ['xctl', '--json', 'auth', 'profiles', ''])).toEqual(['list', 'use', 'remove']);
    expect(bashComplete(r.stdout, ['xctl', 'auth', 'set', '--api'])).toEqual(['--api-key', '--api-secret']);
    expect(bashComplete(r.stdout, ['xctl', 'config', ''])).toEqual(['get', 'set', 'unset', 'list', 'path']);
    // every group registered in the program appears at the top level
    const top = bashComplete(r.stdout, ['xctl', '']);
    for (const g of [
      'auth',
      'request',
      'config',
      'sandbox',
      'changelog',
      'completion',
      'webhooks',
      'activity',
      'stream',
      'ads',
      'audiences',
    ])
      expect(top).toContain(g);
  });

  it('zsh and fish scripts carry the same tree', async () => {
    const z = await runCli(['completion', 'zsh']);
    expect(z.code).toBe(0);
    expect(z.stdout.startsWith('#compdef xctl')).toBe(true);
    expect(z.stdout).toMatch(/^ {2}'auth' '(.*\n)*profiles:list, select and remove profiles/m);
    const f = await runCli(['completion', 'fish']);
    expect(f.code).toBe(0);
    expect(f.stdout).toContain(
      "complete -c xctl -n 'test (__xctl_path) = '\\''auth profiles'\\''' -a 'list use remove'",
    );
  });

  it('an unknown shell is a usage error', async () => {
    const r = await runCli(['completion', 'tcsh']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bash, zsh or fish/);
  });
});

describe('xctl changelog', () => {
  it('--grep filters, -o json gives records', async () => {
    const r = await runCli(['changelog', '--grep', 'replay', '-o', 'json']);
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ date: '2026-03-25', change: 'Replay consolidation' });
  });

  it('--since keeps only entries known to be on or after the date', async () => {
    const r = await runCli(['changelog', '--since', '2026-03-20', '-o', 'json']);
    const rows = JSON.parse(r.stdout) as Array<{ change: string; date: string }>;
    expect(rows.map((x) => x.change)).toEqual([
      'Search index migration',
      'Owned-reads pricing',
      'Replay consolidation',
    ]);
    const all = JSON.parse((await runCli(['changelog', '-o', 'json'])).stdout);
    expect(all.length).toBe(18);
  });

  it('bad --since exits 2', async () => {
    const r = await runCli(['changelog', '--since', 'March']);
    expect(r.code).toBe(2);
  });
});

describe('request warns about deprecated and retired paths', () => {
  it('names the replacement, and still sends', async () => {
    const env = {
      XCTL_CONFIG_DIR: tempDir(),
      XCTL_BASE_URL: 'http://127.0.0.1:1',
      XCTL_API_KEY: 'k',
      XCTL_API_SECRET: 's',
      XCTL_ACCESS_TOKEN: 't',
      XCTL_ACCESS_TOKEN_SECRET: 'ts',
      XCTL_RETRY_BASE_MS: '1',
    };
    const cases: Array<[string[], RegExp]> = [
      [
        ['request', '-X', 'POST', '/2/account_activity/replay/webhooks/123/subscriptions/all'],
        /deprecated effective March 25, 2026; use POST \/2\/webhooks\/replay/,
      ],
      [['request', '/1.1/statuses/filter.json'], /statuses\/filter is deprecated/],
      [['request', '/1.1/help/configuration.json'], /help\/configuration is retired/],
      [['request', '/1.1/statuses/oembed.json?id=1'], /oEmbed was retired/],
      [['request', '-X', 'POST', '/1.1/statuses/update.json?enable_dm_commands=true'], /DM commands/],
    ];
    for (const [args, re] of cases) {
      const r = await runCli(args, { env });
      expect(r.stderr, args.join(' ')).toMatch(re);
      expect(r.stderr).toMatch(/connection refused/); // the call was still attempted
    }
    const ok = await runCli(['request', '/2/webhooks'], { env });
    expect(ok.stderr).not.toMatch(/warning/);
  });
});
