// `xctl completion` and `xctl changelog` tested where they live: flags -> options through runF,
// the scripts generated in-process from the real command tree (and run by bash on the static
// words), `completion --profiles`, the changelog's filters and output, and the refusals (exit 2).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { Context } from '../../../src/context.js';
import { changelog, register as registerChangelog, type ChangelogOptions } from '../../../src/commands/changelog.js';
import {
  completion,
  register as registerCompletion,
  type CompletionOptions,
} from '../../../src/commands/completion.js';
import { HttpRegistry, json, route } from '../../helpers/http-registry.js';
import { outcome } from '../../helpers/outcome.js';
import { useTestContexts } from '../../helpers/test-context.js';

const ctxOf = useTestContexts();

/** The group's register on a stub named like the group, as program.ts's loader calls it. */
const asVerb =
  <O>(name: string, reg: (cmd: Command, operands: undefined, runF: (ctx: Context, o: O) => Promise<void>) => void) =>
  (parent: Command, runF: (ctx: Context, o: O) => Promise<void>) =>
    reg(parent.command(name), undefined, runF);

/** A script generated in-process from the whole tree, as `xctl completion SHELL` prints it. */
async function script(shell: string): Promise<string> {
  const t = ctxOf();
  await t.run(['completion', shell]);
  expect(t.stderr()).toBe('');
  return t.stdout();
}

/** What bash's completion function offers for `words` (the static words: no xctl call). */
function bashComplete(text: string, words: string[]): string[] {
  const dir = fs.mkdtempSync(path.join(ctxOf().configDir, 'compl-'));
  const file = path.join(dir, 'c.bash');
  fs.writeFileSync(file, text);
  const arr = words.map((w) => `'${w}'`).join(' ');
  const cmd = `source ${file}; COMP_WORDS=(${arr}); COMP_CWORD=${words.length - 1}; _xctl_complete; printf '%s\\n' "\${COMPREPLY[@]}"`;
  return execFileSync('bash', ['-c', cmd], { encoding: 'utf8' }).split('\n').filter(Boolean);
}

describe('completion', () => {
  it('flags -> options: the shell, and the hidden --profiles', async () => {
    const t = ctxOf();
    const reg = asVerb<CompletionOptions>('completion', registerCompletion);
    expect(await t.optionsOf(reg, ['completion', 'zsh'])).toEqual({ shell: 'zsh', profiles: undefined });
    expect(await t.optionsOf(reg, ['completion', '--profiles'])).toEqual({ shell: undefined, profiles: true });
  });

  it('bash: completes groups, nested verbs and options from the real command tree (completion-changelog)', async () => {
    const s = await script('bash');
    expect(bashComplete(s, ['xctl', 'aut'])).toEqual(['auth']);
    expect(bashComplete(s, ['xctl', 'au'])).toEqual(['auth', 'audiences']);
    expect(bashComplete(s, ['xctl', '--json', 'auth', 'profiles', ''])).toEqual(['list', 'use', 'remove']);
    expect(bashComplete(s, ['xctl', 'auth', 'set', '--api'])).toEqual(['--api-key', '--api-secret']);
    expect(bashComplete(s, ['xctl', 'config', ''])).toEqual(['get', 'set', 'unset', 'list', 'path']);
    const top = bashComplete(s, ['xctl', '']);
    const groups = ['auth', 'request', 'config', 'sandbox', 'changelog', 'completion', 'webhooks', 'activity'];
    for (const g of [...groups, 'stream', 'ads', 'audiences']) expect(top).toContain(g);
    expect(top).not.toContain('__complete');
  });

  it('zsh and fish scripts carry the same tree', async () => {
    const z = await script('zsh');
    expect(z.startsWith('#compdef xctl\n')).toBe(true);
    expect(z).toMatch(/^ {2}'auth' '(.*\n)*profiles:list, select and remove profiles/m);
    expect(await script('fish')).toContain(
      "complete -c xctl -n 'test (__xctl_path) = '\\''auth profiles'\\''' -a 'list use remove'",
    );
  });

  it('--profiles prints the profile names only, never a credential', async () => {
    const t = ctxOf();
    const profiles = { work: { api_key: 'key-work', api_secret: 'sEcReT' }, personal: { api_key: 'key-p' } };
    fs.writeFileSync(path.join(t.configDir, 'config.json'), JSON.stringify({ profiles }), { mode: 0o600 });
    await completion(t.ctx, { profiles: true });
    expect(t.stdout()).toBe('personal\nwork\n');
    const none = ctxOf();
    await completion(none.ctx, { profiles: true });
    expect(none.stdout()).toBe('');
  });

  it('an unknown or missing shell is a usage error (exit 2)', async () => {
    const t = ctxOf();
    for (const shell of ['tcsh', 'powershell'])
      expect(await outcome(t.run(['completion', shell]))).toEqual({
        code: 2,
        error: `shell must be bash, zsh or fish (got "${shell}")`,
      });
    expect(await outcome(t.run(['completion']))).toEqual({ code: 2, error: 'which shell? bash, zsh or fish' });
    expect(t.stdout()).toBe('');
  });
});

describe('changelog', () => {
  it('flags -> options', async () => {
    const t = ctxOf();
    const reg = asVerb<ChangelogOptions>('changelog', registerChangelog);
    expect(await t.optionsOf(reg, ['changelog', '--since', '2026-01-01', '--grep', 'replay'])).toEqual({
      since: '2026-01-01',
      grep: 'replay',
    });
  });

  it('--grep filters, -o json gives records (completion-changelog)', async () => {
    const t = ctxOf({ globals: { output: 'json' } });
    await changelog(t.ctx, { grep: 'replay' });
    const rows = JSON.parse(t.stdout()) as Array<Record<string, string>>;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ date: '2026-03-25', change: 'Replay consolidation' });
  });

  it('--since keeps only entries known to be on or after the date; all 18 without it', async () => {
    const t = ctxOf({ globals: { output: 'json' } });
    await changelog(t.ctx, { since: '2026-03-20' });
    const rows = JSON.parse(t.stdout()) as Array<{ change: string }>;
    expect(rows.map((x) => x.change)).toEqual([
      'Search index migration',
      'Owned-reads pricing',
      'Replay consolidation',
    ]);
    const all = ctxOf({ globals: { output: 'json' } });
    await changelog(all.ctx, {});
    expect((JSON.parse(all.stdout()) as unknown[]).length).toBe(18);
  });

  it('piped: tsv, one change per line, the columns date, change, detail', async () => {
    const t = ctxOf();
    await changelog(t.ctx, { grep: 'replay' });
    expect(t.stdout()).toMatch(/^2026-03-25\tReplay consolidation\t[^\n]+\n$/);
  });

  it('a bad --since or an empty --grep is exit 2', async () => {
    const t = ctxOf();
    for (const since of ['March', 'yesterday', '2026-02-30'])
      expect(await outcome(changelog(t.ctx, { since }))).toEqual({
        code: 2,
        error: `--since must be a date YYYY-MM-DD (got "${since}")`,
      });
    expect(await outcome(changelog(t.ctx, { grep: ' ' }))).toEqual({ code: 2, error: '--grep needs a word' });
    expect(t.stdout()).toBe('');
  });
});

describe('request warns about deprecated and retired paths (completion-changelog)', () => {
  it('names the replacement, and still sends', async () => {
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
    for (const [argv, re] of cases) {
      const reg = new HttpRegistry().register(route(argv.includes('POST') ? 'POST' : 'GET', /./), json({}));
      const t = ctxOf({ transport: reg });
      await t.run(argv);
      expect(t.stderr(), argv.join(' ')).toMatch(re);
      reg.verify(); // the call was still sent
    }
    const ok = ctxOf({ transport: new HttpRegistry().register(route('GET', '/2/webhooks'), json({ data: [] })) });
    await ok.run(['request', '/2/webhooks']);
    expect(ok.stderr()).not.toMatch(/warning/);
  });
});
