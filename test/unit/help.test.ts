// Help (issue 20 item 14): every leaf has examples that parse with the real program definition,
// every argument is described, help fits 80 columns, and every flag the README gives a command
// exists in that command's help.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import {
  buildProgram,
  helpAll,
  loadGroups,
  GROUPS,
  namesBareGroup,
  rewriteHelpWord,
  unknownCommand,
} from '../../src/program.js';
import { attachExamples, commandPath, exampleCommand, examplesOf } from '../../src/commands/examples.js';
import { wrapLongLines } from '../../src/commands/help-text.js';
import { shellWords } from '../helpers/shell-words.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

async function fullProgram(): Promise<Command> {
  const program = buildProgram('0.0.0-test');
  await loadGroups(program, Object.keys(GROUPS));
  return program;
}

function walk(c: Command, fn: (c: Command) => void): void {
  fn(c);
  for (const s of c.commands) if (s.name() !== 'help') walk(s, fn);
}

const isLeaf = (c: Command) => !c.commands.some((s) => s.name() !== 'help');

let program: Command;
beforeAll(async () => {
  program = await fullProgram();
});

describe('examples', () => {
  it('every leaf command has at least one example, and at most three', () => {
    const missing: string[] = [];
    walk(program, (c) => {
      if (c.parent && isLeaf(c)) {
        const n = examplesOf(c).length;
        if (n < 1 || n > 3) missing.push(`${commandPath(c)} (${n})`);
      }
    });
    expect(missing).toEqual([]);
  });

  it('every example parses with the real program definition and reaches its own command', async () => {
    const bad: string[] = [];
    const leaves: Command[] = [];
    walk(program, (c) => {
      if (c.parent && isLeaf(c)) leaves.push(c);
    });
    for (const leaf of leaves) {
      for (const ex of examplesOf(leaf)) {
        const words = shellWords(exampleCommand(ex));
        if (words[0] !== 'xctl') {
          bad.push(`${ex}: does not start with xctl`);
          continue;
        }
        // A fresh tree each time (commander keeps option values between parses), every action a recorder.
        const p = await fullProgram();
        let reached: string | undefined;
        walk(p, (c) => {
          c.configureOutput({ writeOut: () => {}, writeErr: () => {}, outputError: () => {} });
          if (isLeaf(c)) c.action((...a: unknown[]) => void (reached = commandPath(a[a.length - 1] as Command)));
        });
        try {
          await p.parseAsync(['node', ...words]);
          if (reached !== commandPath(leaf)) bad.push(`${ex}: reached ${reached ?? 'nothing'}`);
        } catch (e) {
          bad.push(`${ex}: ${(e as Error).message}`);
        }
      }
    }
    expect(bad).toEqual([]);
  }, 120_000);
});

// Issue 29 item 7: `--targeting-type TARGETING_TYPE ...` taught nothing; every example shows
// values a user could have typed.
describe('examples use real values', () => {
  const PLACEHOLDER_WORDS = new Set(
    ['ID', 'IDS', 'KEY', 'SECRET', 'TOKEN', 'BASE64', 'FILE', 'URL', 'NAME', 'TYPE', 'VALUE', 'TEXT'].concat([
      'PATH',
      'JOB',
      'USER',
      'QUERY',
      'T',
      'N',
      'X',
      'CC',
      'FOO',
      'BAR',
    ]),
  );
  /** Why a command line of an example holds a placeholder, or undefined. */
  function placeholder(words: string[]): string | undefined {
    for (let i = 1; i < words.length; i++) {
      const w = words[i]!;
      if (/\.\.\.|…/.test(w)) return `"${w}" (an ellipsis)`;
      if (/<[^>]*>/.test(w)) return `"${w}" (an <angle> placeholder)`;
      for (const part of w.split(/[=,:]/)) {
        if (PLACEHOLDER_WORDS.has(part)) return `"${w}" (a placeholder word)`;
        if (/^[A-Z][A-Z0-9_]*_IDS?$/.test(part)) return `"${w}" (an id placeholder)`;
      }
      const flag = words[i - 1]!;
      if (flag.startsWith('--') && w === flag.slice(2).replace(/-/g, '_').toUpperCase())
        return `"${flag} ${w}" (the flag's name as its value)`;
    }
    return undefined;
  }

  it('no example has a placeholder (ID, *_ID, KEY, ..., <x>, --flag-name FLAG_NAME)', () => {
    const bad: string[] = [];
    let seen = 0;
    walk(program, (c) => {
      if (!c.parent || !isLeaf(c)) return;
      for (const ex of examplesOf(c)) {
        seen++;
        const why = placeholder(shellWords(exampleCommand(ex)));
        if (why) bad.push(`${commandPath(c)}: ${why} in ${ex}`);
      }
    });
    expect(seen).toBeGreaterThan(250);
    expect(bad).toEqual([]);
  });

  it('the check finds what it is for', () => {
    const found = (line: string) => placeholder(shellWords(line));
    expect(found('xctl ads campaigns get CAMPAIGN_ID')).toMatch(/an id placeholder/);
    expect(found('xctl ads targeting add --targeting-type TARGETING_TYPE')).toMatch(/flag's name/);
    expect(found('xctl auth set --api-key KEY')).toMatch(/placeholder word/);
    expect(found('xctl webhooks verify --signature sha256=BASE64')).toMatch(/placeholder word/);
    expect(found('xctl ads stats --ids a,...')).toMatch(/ellipsis/);
    expect(found('xctl ads targeting add --targeting-type AGE --targeting-value AGE_21_TO_34')).toBeUndefined();
  });
});

describe('flag names', () => {
  // issue 29 item 2: `request -o csv --header` took the global --header for request's -H/--header
  it('no global flag shares a name (long or short) with any command’s own flag', async () => {
    const program = await fullProgram();
    const global = new Set(program.options.flatMap((o) => [o.long, o.short]).filter((n): n is string => !!n));
    const clash: string[] = [];
    walk(program, (c) => {
      if (c === program) return;
      for (const o of c.options)
        for (const n of [o.long, o.short]) if (n && global.has(n)) clash.push(`${commandPath(c)} ${n}`);
    });
    expect(clash).toEqual([]);
  });
});

describe('unknown commands below a group (issue 29 item 7)', () => {
  it('are found with or without --help; leaves, their arguments and top-level words are not', async () => {
    const program = await fullProgram();
    expect(await unknownCommand(program, ['ads', 'media', '--help'])).toEqual({
      message: "unknown command 'media' for 'xctl ads' (did you mean media-library or media-creatives?)",
      hint: 'media is a command group of its own: `xctl media --help`, e.g. `xctl media upload FILE`',
    });
    expect((await unknownCommand(program, ['audiences', 'permissions', 'revok']))?.message).toBe(
      "unknown command 'revok' for 'xctl audiences permissions' (did you mean revoke?)",
    );
    for (const ok of [
      ['ads', 'campaigns', 'get', 'c1'],
      ['ads', '--help'],
      ['nope'],
      ['request', '/2/x'],
      ['audiences', 'hash', 'f.csv'],
    ]) {
      expect(await unknownCommand(program, ok), ok.join(' ')).toBeUndefined();
    }
  });
});

describe('help text', () => {
  it('every argument has a description that is more than its name', () => {
    const bad: string[] = [];
    walk(program, (c) => {
      for (const a of c.registeredArguments)
        if (!a.description || a.description === a.name()) bad.push(`${commandPath(c)} <${a.name()}>`);
    });
    expect(bad).toEqual([]);
  });

  it('fits 80 columns (only a single word longer than the line may stick out), lists the global options and the examples', async () => {
    const p = await fullProgram();
    attachExamples(p);
    const long: string[] = [];
    let checked = 0;
    const texts = new Map<string, string>();
    walk(p, (c) => {
      let out = '';
      const wrap = (s: string) => void (out += wrapLongLines(s, 80));
      c.configureOutput({ writeOut: wrap, writeErr: wrap });
      c.configureHelp({ ...c.configureHelp(), helpWidth: 80 });
      c.outputHelp();
      texts.set(commandPath(c), out);
      checked++;
      for (const line of out.split('\n')) {
        if (line.length <= 80 || !line.trim().includes(' ')) continue; // a lone word too long to break
        long.push(`${commandPath(c) || 'xctl'}: ${line}`);
      }
    });
    expect(checked).toBeGreaterThan(200);
    expect(long).toEqual([]);
    const leaf = texts.get('ads campaigns list')!;
    // issue 46: the global options in one short paragraph below the root (--help-all: in full)
    expect(leaf).toMatch(/\nGlobal options \(`--help-all` describes them\):\n {2}--profile, --json, --output, /);
    expect(leaf).not.toContain('--profile <name>');
    expect(leaf).toMatch(/\nExamples:\n {2}\$ xctl ads campaigns list\n/);
    expect(texts.get('sandbox trigger')).toMatch(/Examples:\n {2}\$ xctl sandbox trigger profile\.update\.bio/);
  });

  // issue 46 item 10: help is short; --help-all has every global option; the root has examples;
  // `ads stats --help` shows what its default verb takes
  it('--help-all describes the global options; the root has examples; a default verb shows its flags', async () => {
    const help = async (argv: string[], all = false) => {
      const p = buildProgram('0.0.0-test', { helpAll: all });
      await loadGroups(p, ['ads']);
      attachExamples(p);
      let out = '';
      const wrap = (s: string) => void (out += s);
      walk(p, (c) => {
        c.configureOutput({ ...c.configureOutput(), writeOut: wrap, writeErr: wrap });
        c.configureHelp({ ...c.configureHelp(), helpWidth: 80 });
      });
      await p.parseAsync(['node', 'xctl', ...argv]).catch(() => undefined);
      return out;
    };
    const short = await help(['ads', 'campaigns', 'list', '--help']);
    const full = await help(['ads', 'campaigns', 'list', '--help'], true);
    expect(full).toMatch(/\nGlobal Options:\n(.*\n)* {2}--profile <name> +credential profile to use/);
    expect(short.split('\n').length).toBeLessThan(full.split('\n').length - 25);
    expect(helpAll(['ads', '--help-all'])).toEqual({ args: ['ads', '--help'], all: true });
    const stats = (await help(['ads', 'stats', '--help'])).split('\n');
    expect(stats.findIndex((l) => l.startsWith('Without a command, runs `query`'))).toBeLessThan(30);
    const root = await help(['--help']);
    expect(root).toMatch(/\nExamples:\n {2}\$ xctl sandbox start --configure /);
  });

  it('`help a b c` is `a b c --help`; a bare group asks for its help', () => {
    expect(rewriteHelpWord(['help', 'ads', 'campaigns', 'list'])).toEqual(['ads', 'campaigns', 'list', '--help']);
    expect(rewriteHelpWord(['--profile', 'x', 'help', 'auth'])).toEqual(['--profile', 'x', 'auth', '--help']);
    expect(rewriteHelpWord(['help'])).toEqual(['--help']);
    expect(rewriteHelpWord(['auth', 'status'])).toEqual(['auth', 'status']);
    expect(namesBareGroup(program, [])).toBe(true);
    expect(namesBareGroup(program, ['ads'])).toBe(true);
    expect(namesBareGroup(program, ['ads', 'campaigns'])).toBe(true);
    expect(namesBareGroup(program, ['ads', 'campaigns', 'list'])).toBe(false);
    expect(namesBareGroup(program, ['sandbox', 'faults'])).toBe(false); // runs its default, list
    expect(namesBareGroup(program, ['--version'])).toBe(false);
  });
});

describe('README and help agree', () => {
  /** `xctl ...` command lines of the README: code blocks (continuation lines joined) and inline code. */
  function readmeCommands(): string[] {
    const text = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const out: string[] = [];
    for (const block of text.matchAll(/```(?:sh|bash)\n([\s\S]*?)```/g)) {
      let prev: string | undefined;
      for (const raw of block[1]!.split('\n')) {
        const line = raw.replace(/(^|\s)#.*$/, '');
        if (/^\s+\S/.test(line) && prev !== undefined && /^\s+[[-]/.test(line)) {
          out[out.length - 1] += ' ' + line.trim();
          continue;
        }
        prev = undefined;
        for (const m of line.matchAll(/(?:^|[\s(|])xctl\s+([^|;&)]*)/g)) {
          out.push(m[1]!);
          prev = m[1];
        }
      }
    }
    for (const m of text.matchAll(/`xctl ([^`]+)`/g)) out.push(m[1]!);
    return out;
  }

  it('every flag the README gives a command is in that command’s help', () => {
    const globals = new Set(
      program.options.flatMap((o) => [o.long, o.short, o.negate ? o.long : undefined]).filter(Boolean) as string[],
    );
    const bad: string[] = [];
    let checked = 0;
    for (const cmdline of readmeCommands()) {
      const words = cmdline.split(/\s+/).filter(Boolean);
      let c: Command = program;
      const seen: Command[] = [program];
      for (const w of words) {
        if (w.startsWith('-')) continue;
        const sub = c.commands.find((s) => s.name() === w);
        if (sub) {
          c = sub;
          seen.push(sub);
        }
      }
      if (c === program) continue;
      // A command with a default verb shows that verb's flags in its help (examples.ts).
      const def = (c as Command & { _defaultCommandName?: string })._defaultCommandName;
      if (def) seen.push(c.commands.find((s) => s.name() === def)!);
      const known = new Set<string>(globals);
      for (const s of seen) for (const o of s.options) for (const f of [o.long, o.short]) if (f) known.add(f);
      known.add('--help');
      for (const f of cmdline.match(/(?<![\w-])--?[a-zA-Z][\w-]*/g) ?? []) {
        const flag = f.replace(/=.*$/, '');
        if (!flag.startsWith('--') && flag.length !== 2) continue;
        checked++;
        if (!known.has(flag)) bad.push(`xctl ${commandPath(c)}: ${flag}  (in "${cmdline.trim().slice(0, 100)}")`);
      }
    }
    expect(checked).toBeGreaterThan(150);
    expect(bad).toEqual([]);
  });
});

describe('help and commander errors go to the bound streams (in-process tests capture them)', () => {
  it('--help is written to the context stdout, wrapped to its width; a usage error to its stderr', async () => {
    const { testContext } = await import('../helpers/test-context.js');
    const t = testContext({ tty: true, columns: 60 });
    try {
      await expect(t.run(['webhooks', 'list', '--help'])).rejects.toMatchObject({ code: 'commander.helpDisplayed' });
      expect(t.stdout()).toMatch(/^Usage: xctl webhooks list \[options\]\n/);
      expect(
        Math.max(
          ...t
            .stdout()
            .split('\n')
            .map((l) => l.length),
        ),
      ).toBeLessThanOrEqual(60);
      await expect(t.run(['webhooks', 'list', '--bogus'])).rejects.toMatchObject({ code: 'commander.unknownOption' });
      expect(t.stderr()).toMatch(/^error: unknown option '--bogus'/m);
    } finally {
      t.cleanup();
    }
  });
});
