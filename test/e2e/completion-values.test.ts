// Completion of values (issue 20 item 17): -o, --profile (names read at completion time, never a
// secret), the ads table's enums, event types; the zsh script registers with compdef without
// running compinit, and offers descriptions. Scripts are sourced in real shells; the zsh part
// runs where zsh is installed (.ci/run installs it).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli, tempDir } from '../helpers/cli.js';

const hasZsh = spawnSync('zsh', ['-fc', 'true']).status === 0;
let dir: string;
let env: Record<string, string>;
const SECRET = 'sEcReT-api-secret-value-12345';

beforeAll(async () => {
  dir = tempDir('xctl-compl-');
  // `xctl` on PATH, as the scripts call it for profile names
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'xctl'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, { mode: 0o755 });
  env = {
    ...(process.env as Record<string, string>),
    PATH: `${bin}:${process.env.PATH}`,
    XCTL_CONFIG_DIR: path.join(dir, 'cfg'),
    NO_COLOR: '1',
  };
  for (const k of Object.keys(env)) if (k.startsWith('XCTL_') && k !== 'XCTL_CONFIG_DIR') delete env[k];
  for (const name of ['work', 'personal']) {
    const r = await runCli(['--profile', name, 'auth', 'set', '--api-key', `key-${name}`, '--api-secret', '-'], {
      env,
      input: SECRET + '\n',
    });
    expect(r.code, r.stderr).toBe(0);
  }
  for (const shell of ['bash', 'zsh'])
    fs.writeFileSync(path.join(dir, `c.${shell}`), (await runCli(['completion', shell], { env })).stdout);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function bash(words: string[]): string[] {
  const arr = words.map((w) => `'${w}'`).join(' ');
  const out = execFileSync(
    'bash',
    [
      '-c',
      `source ${dir}/c.bash; COMP_WORDS=(${arr}); COMP_CWORD=${words.length - 1}; _xctl; printf '%s\\n' "\${COMPREPLY[@]}"`,
    ],
    { encoding: 'utf8', env },
  );
  return out.split('\n').filter(Boolean);
}

describe('bash', () => {
  it('completes -o, option choices and the ads enums', () => {
    expect(bash(['xctl', '-o', ''])).toEqual(expect.arrayContaining(['table', 'json', 'jsonl', 'tsv']));
    expect(bash(['xctl', '-o', 'js'])).toEqual(['json', 'jsonl']);
    expect(bash(['xctl', 'ads', 'campaigns', 'create', '--entity-status', ''])).toEqual(['ACTIVE', 'DRAFT', 'PAUSED']);
    expect(bash(['xctl', 'ads', 'campaigns', 'create', '--budget-optimization', 'L'])).toEqual(['LINE_ITEM']);
    expect(bash(['xctl', 'media', 'upload', '--category', 'tweet_g'])).toEqual(['tweet_gif']);
  });
  it('completes --profile with the profile names, read now, and no secret', () => {
    const r = bash(['xctl', '--profile', '']);
    expect(r.sort()).toEqual(['personal', 'work']);
    expect(bash(['xctl', '--profile', 'w'])).toEqual(['work']);
    const names = execFileSync('xctl', ['completion', '--profiles'], { encoding: 'utf8', env });
    expect(names).toBe('personal\nwork\n');
    expect(names).not.toContain(SECRET);
    expect(names).not.toContain('key-');
  });
  it('completes event types after --event, --events (comma lists) and sandbox trigger', () => {
    expect(bash(['xctl', 'activity', 'subscriptions', 'create', '--event', 'news.'])).toEqual(['news.new']);
    expect(bash(['xctl', 'webhooks', 'listen', '--events', 'news.new,follow.un'])).toEqual([
      'news.new,follow.unfollow',
    ]);
    expect(bash(['xctl', 'sandbox', 'trigger', 'dm.r'])).toEqual(['dm.received', 'dm.read']);
  });
  it('a global option value is not taken for a command', () => {
    expect(bash(['xctl', '--profile', 'sandbox', 'sandbox', 'tr'])).toEqual(['trigger']);
  });
});

describe.skipIf(!hasZsh)('zsh', () => {
  const zsh = (script: string) =>
    execFileSync('zsh', ['-f', '-c', script], { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'] });
  const candidates = (words: string[]) =>
    zsh(
      `autoload -U compinit && compinit -u -D; source ${dir}/c.zsh; __xctl_candidates ${words.map((w) => `'${w}'`).join(' ')}; print -r -- "kind=$_xctl_kind"; print -rl -- "\${reply[@]}"`,
    )
      .split('\n')
      .filter(Boolean);

  it('registers with compdef after compinit, and never runs compinit itself', () => {
    expect(
      zsh(`autoload -U compinit && compinit -u -D; source ${dir}/c.zsh; print -r -- "\${_comps[xctl]}"`).trim(),
    ).toBe('_xctl');
    const r = spawnSync(
      'zsh',
      [
        '-f',
        '-c',
        `source ${dir}/c.zsh; print -r -- "compinit=\${+functions[compinit]} compdef=\${+functions[compdef]}"`,
      ],
      { encoding: 'utf8', env },
    );
    expect(r.stdout.trim()).toBe('compinit=0 compdef=0');
    expect(r.stderr).toMatch(/compinit has not run/);
    const script = fs.readFileSync(path.join(dir, 'c.zsh'), 'utf8');
    expect(script.startsWith('#compdef xctl\n')).toBe(true);
    expect(script).not.toMatch(/^\s*(autoload[^\n]*\s)?(bash)?compinit\b/m);
  });
  it('offers commands and options with descriptions', () => {
    const top = candidates(['xctl', '']);
    expect(top[0]).toBe('kind=describe');
    expect(top).toContain('auth:credentials: set, log in, app token, status, profiles');
    const opts = candidates(['xctl', 'webhooks', 'listen', '--']);
    expect(opts).toContainEqual(expect.stringMatching(/^--events:with --register: the event types/));
    expect(opts).toContainEqual(expect.stringMatching(/^--profile:credential profile to use/));
  });
  it('completes values: -o, ads enums, --profile names, event types', () => {
    expect(candidates(['xctl', '-o', ''])).toEqual(expect.arrayContaining(['kind=values', 'json', 'tsv']));
    expect(candidates(['xctl', 'ads', 'campaigns', 'create', '--entity-status', ''])).toEqual([
      'kind=values',
      'ACTIVE',
      'DRAFT',
      'PAUSED',
    ]);
    expect(candidates(['xctl', '--profile', '']).sort()).toEqual(['kind=values', 'personal', 'work']);
    expect(candidates(['xctl', 'sandbox', 'trigger', ''])).toContain('block.unblock');
    expect(candidates(['xctl', 'audiences', 'upload', 'X', '--rejects', ''])).toEqual(['kind=files']);
  });
});
