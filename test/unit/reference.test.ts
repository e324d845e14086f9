// The committed command reference (docs/reference/, docs/man/) is what the command tree generates
// today, byte for byte, and covers every command: a flag, a command or an example changed without
// `npm run reference` fails here, naming the stale files.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { examplesOf } from '../../src/commands/examples.js';
import { renderReference } from '../../src/commands/reference.js';
import { buildProgram, GROUPS, loadGroups } from '../../src/program.js';

const DOCS = path.resolve(import.meta.dirname, '../../docs');
const FOLDERS = ['reference', 'man'];

/** Every file under `root`'s generated folders, as "reference/x.md", sorted. */
function filesUnder(root: string): string[] {
  return FOLDERS.flatMap((d) => {
    const dir = path.join(root, d);
    if (!fs.existsSync(dir)) return [];
    return fs
      .readdirSync(dir, { recursive: true, withFileTypes: true })
      .flatMap((e) =>
        e.isFile() ? [path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/')] : [],
      );
  }).sort();
}

/** The files whose bytes differ between a fresh generation and the committed one (changed, missing, extra). */
export function staleFiles(fresh: string, committed: string): string[] {
  const names = [...new Set([...filesUnder(fresh), ...filesUnder(committed)])].sort();
  return names.filter((n) => {
    const [a, b] = [fresh, committed].map((r) => path.join(r, n));
    return !fs.existsSync(a!) || !fs.existsSync(b!) || !fs.readFileSync(a!).equals(fs.readFileSync(b!));
  });
}

function writeAll(root: string, files: Map<string, string>): void {
  for (const [name, text] of files) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
  }
}

/** Leaf commands shown in help, by commander's own account of what is visible. */
function leaves(c: Command, words: string[] = []): Array<{ c: Command; words: string[] }> {
  const subs = c
    .createHelp()
    .visibleCommands(c)
    .filter((s) => s.name() !== 'help');
  if (!subs.length) return words.length ? [{ c, words }] : [];
  return subs.flatMap((s) => leaves(s, [...words, s.name()]));
}

let program: Command;
let fresh: string;
beforeAll(async () => {
  program = buildProgram('0.0.0-test');
  await loadGroups(program, Object.keys(GROUPS));
  fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'xctl-reference-'));
  writeAll(fresh, renderReference(program));
});
afterAll(() => fs.rmSync(fresh, { recursive: true, force: true }));

describe('the generated command reference', () => {
  it('docs/reference/ and docs/man/ are what `npm run reference` writes today', () => {
    const stale = staleFiles(fresh, DOCS);
    expect(stale, `stale files under docs/ (${stale.join(', ')}): run \`npm run reference\``).toEqual([]);
  });

  it('every leaf command has its page and man page, with its flags and examples, and the index links it', () => {
    const all = leaves(program);
    expect(all.length).toBeGreaterThan(100);
    const index = fs.readFileSync(path.join(DOCS, 'reference/README.md'), 'utf8');
    const problems: string[] = [];
    for (const { c, words } of all) {
      const slug = ['xctl', ...words].join('-');
      const page = path.join(DOCS, `reference/${slug}.md`);
      if (!fs.existsSync(path.join(DOCS, `man/${slug}.1`))) problems.push(`no man/${slug}.1`);
      if (!index.includes(`](${slug}.md)`)) problems.push(`the index does not link ${slug}.md`);
      if (!fs.existsSync(page)) {
        problems.push(`no reference/${slug}.md`);
        continue;
      }
      const text = fs.readFileSync(page, 'utf8');
      for (const o of c.options)
        if (!o.hidden && !text.includes(`\`${o.flags}\``)) problems.push(`${slug}: ${o.flags}`);
      for (const e of examplesOf(c)) if (!text.includes(e.split('  # ')[0]!)) problems.push(`${slug}: example ${e}`);
    }
    expect(problems).toEqual([]);
  });

  it('the index links only pages that exist', () => {
    const index = fs.readFileSync(path.join(DOCS, 'reference/README.md'), 'utf8');
    const links = [...index.matchAll(/\]\(([^)]+\.md)\)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(100);
    expect(links.filter((l) => !fs.existsSync(path.join(DOCS, 'reference', l)))).toEqual([]);
  });

  it('staleFiles names a missing, an extra and an edited file', () => {
    const [a, b] = [0, 1].map(() => fs.mkdtempSync(path.join(os.tmpdir(), 'xctl-reference-stale-')));
    try {
      const same = new Map([
        ['reference/README.md', 'index'],
        ['man/xctl.1', 'root'],
      ]);
      writeAll(a!, new Map([...same, ['reference/xctl-ads-campaigns-list.md', 'page'], ['man/xctl-x.1', 'flag']]));
      writeAll(b!, new Map([...same, ['man/xctl-old-command.1', ''], ['man/xctl-x.1', 'flag edited']]));
      expect(staleFiles(a!, b!)).toEqual([
        'man/xctl-old-command.1',
        'man/xctl-x.1',
        'reference/xctl-ads-campaigns-list.md',
      ]);
      expect(staleFiles(a!, a!)).toEqual([]);
    } finally {
      for (const d of [a!, b!]) fs.rmSync(d, { recursive: true, force: true });
    }
  });

  it('the same tree gives the same bytes, whatever the terminal', () => {
    const columns = process.stdout.columns;
    const tty = process.stdout.isTTY;
    try {
      Object.assign(process.stdout, { columns: 200, isTTY: true });
      const again = renderReference(program);
      expect([...again.keys()]).toEqual(filesUnder(fresh));
      for (const [name, text] of again) expect(text, name).toBe(fs.readFileSync(path.join(fresh, name), 'utf8'));
    } finally {
      Object.assign(process.stdout, { columns, isTTY: tty });
    }
  });
});
