// Completion of values (issue 20 item 17): -o, --profile (names read at completion time, never a
// secret), the ads table's enums, event types; the zsh script registers with compdef without
// running compinit, and offers descriptions. Scripts are sourced in real shells; the zsh part
// runs where zsh is installed (.ci/run installs it).
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli, tempDir, useTestSandbox } from '../helpers/cli.js';

const execFileAsync = promisify(execFile);
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

// Issue 29 item 9: ids from the service (`xctl __complete`), through the scripts, in real shells.
describe('ids from the sandbox', () => {
  const t = useTestSandbox();
  let idEnv: Record<string, string>;
  let campaignIds: string[];
  beforeAll(async () => {
    const cacheDir = path.join(dir, 'cache');
    idEnv = { ...env, ...t.env, XCTL_CACHE_DIR: cacheDir };
    const r = await t.run(['ads', 'campaigns', 'list', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    campaignIds = (JSON.parse(r.stdout) as Array<{ id: string }>).map((c) => c.id);
    expect(campaignIds.length).toBeGreaterThan(0);
  });

  it('`xctl __complete campaign` lists the sandbox campaign ids with their names, cached 0600', async () => {
    const r = await runCli(['__complete', 'campaign'], { env: idEnv });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.trim().split('\n');
    expect(lines.map((l) => l.split('\t')[0])).toEqual(campaignIds);
    expect(lines[0]).toMatch(/^\w+\t\S/);
    const files = fs.readdirSync(path.join(idEnv.XCTL_CACHE_DIR!, 'completion'));
    expect(files.some((f) => f.startsWith('campaign-'))).toBe(true);
    for (const f of files)
      expect(fs.statSync(path.join(idEnv.XCTL_CACHE_DIR!, 'completion', f)).mode & 0o777).toBe(0o600);
  });

  it('bash completes a campaign id after `ads campaigns get`, and after --campaign-id', async () => {
    const b = (words: string[]) => bashIn({ ...idEnv, XCTL_CACHE_DIR: path.join(dir, 'cache-bash') }, words);
    expect(await b(['xctl', 'ads', 'campaigns', 'get', ''])).toEqual(campaignIds);
    expect(await b(['xctl', 'ads', 'line-items', 'create', '--campaign-id', campaignIds[0]!.slice(0, 3)])).toContain(
      campaignIds[0],
    );
    // the id is given: the second positional is no id
    expect(await b(['xctl', 'ads', 'campaigns', 'get', campaignIds[0]!, ''])).not.toContain(campaignIds[0]);
    // --account on the line is passed on: an account the user cannot reach offers nothing
    expect(await b(['xctl', '--account', 'zzzz9999', 'ads', 'campaigns', 'get', ''])).toEqual([]);
  });

  it.skipIf(!hasZsh)('zsh completes a campaign id with its name as the description', async () => {
    const { stdout: out } = await execFileAsync(
      'zsh',
      [
        '-f',
        '-c',
        `autoload -U compinit && compinit -u -D; source ${dir}/c.zsh; __xctl_candidates xctl ads campaigns get ''; print -r -- "kind=$_xctl_kind"; print -rl -- "\${reply[@]}"`,
      ],
      { env: { ...idEnv, XCTL_CACHE_DIR: path.join(dir, 'cache-zsh') } },
    );
    const lines = out.split('\n').filter(Boolean);
    expect(lines[0]).toBe('kind=ids');
    expect(lines.slice(1).map((l) => l.split(':')[0])).toEqual(campaignIds);
    expect(lines[1]).toMatch(/^\w+:\S/);
  });

  // The real completion system: an interactive zsh on a pseudo-terminal (zsh/zpty), compinit,
  // the script registered with compdef, a Tab typed on the line; compadd is wrapped to print
  // every match the system adds.
  it.skipIf(!hasZsh)('zsh: a Tab typed after `xctl ads campaigns get ` offers the campaign ids', async () => {
    fs.writeFileSync(
      path.join(dir, 'init.zsh'),
      [
        "PS1='' PROMPT='' RPROMPT=''",
        'autoload -U compinit && compinit -u -D',
        `source ${dir}/c.zsh`,
        'compadd() {',
        '  if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\\ * ]]; then builtin compadd "$@"; return $?; fi',
        '  local -a __hits; builtin compadd -A __hits "$@"',
        '  local h; for h in $__hits; do print -r -- "HIT:$h"; done',
        '  builtin compadd "$@"',
        '}',
        "bindkey '^I' complete-word",
        'print INIT-DONE',
      ].join('\n'),
    );
    const drive = [
      'zmodload zsh/zpty',
      "zpty z 'zsh -f -i'",
      `zpty -w z 'source ${dir}/init.zsh'`,
      "zpty -r z line '*INIT-DONE*'",
      // the line editor is reading keys once it turns bracketed paste on
      "zpty -r z line $'*\\e[?2004h*'",
      "zpty -n -w z $'xctl ads campaigns get \\t'",
      // ^A^K, not ^U: keys typed ahead reach a terminal that may still be in cooked mode,
      // where ^U is the terminal's own line kill
      "zpty -n -w z $'\\C-a\\C-k print END-OF-HITS\\n'",
      "out=''",
      'for i in {1..200}; do',
      '  if zpty -r -t z line; then out+=$line; else sleep 0.05; fi',
      '  [[ $out == *END-OF-HITS*END-OF-HITS* ]] && break',
      'done',
      "print -r -- \"$out\" | tr '\\r' '\\n' | grep -ao 'HIT:[^[:space:]]*'",
      'zpty -d z',
    ].join('\n');
    // asynchronous: the sandbox answers from this process
    const { stdout: out } = await execFileAsync('zsh', ['-f', '-c', drive], { env: idEnv, timeout: 20_000 });
    expect(out.split('\n').filter(Boolean)).toEqual(campaignIds.map((id) => `HIT:${id}`));
  });

  it('a slow service: the Tab comes back within the bound, with nothing', async () => {
    await t.admin('POST', '/_sandbox/faults', { latency_ms: 5000 });
    try {
      const started = Date.now();
      const r = await runCli(['__complete', 'line-item'], { env: { ...idEnv, XCTL_CACHE_DIR: path.join(dir, 'c2') } });
      expect(Date.now() - started).toBeLessThan(4000);
      expect(r.code).toBe(0);
      expect(r.stdout + r.stderr).toBe('');
    } finally {
      await t.admin('DELETE', '/_sandbox/faults');
    }
  });
});

async function bashIn(e: Record<string, string>, words: string[]): Promise<string[]> {
  const arr = words.map((w) => `'${w}'`).join(' ');
  const { stdout: out } = await execFileAsync(
    'bash',
    [
      '-c',
      `source ${dir}/c.bash; COMP_WORDS=(${arr}); COMP_CWORD=${words.length - 1}; _xctl; printf '%s\\n' "\${COMPREPLY[@]}"`,
    ],
    { env: e },
  );
  return out.split('\n').filter(Boolean);
}
