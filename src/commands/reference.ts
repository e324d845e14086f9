// The command reference, generated from the command tree: one Markdown page and one man page per
// leaf command, an index, the global options. `npm run reference` (scripts/gen-reference.js)
// writes them under docs/; test/unit/reference.test.ts fails when the committed copies are stale.
// Same tree, same bytes: files sorted, no dates, no paths, help text laid out at 80 columns.
import type { Argument, Command, Option } from 'commander';
import { completionValues } from './annotations.js';
import { commandPath, examplesOf } from './examples.js';
import { fixHelpWidth } from './help-text.js';

/** What the reference says of an option or a positional. */
interface Entry {
  term: string;
  description: string;
  facts: string[];
}

/** What the reference says of a leaf command. */
interface Page {
  words: string[];
  slug: string;
  synopsis: string;
  description: string;
  args: Entry[];
  flags: Entry[];
  /** Options of a group between the root and the leaf (`xctl ads ...`), if one has any. */
  inherited: Array<{ from: string; flags: Entry[] }>;
  examples: string[];
  notes: string;
}

const WIDTH = 80;
const code = (s: string) => `\`${s}\``;

function shown(value: unknown): string | undefined {
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function optionEntry(o: Option): Entry {
  const facts: string[] = [];
  if (o.mandatory) facts.push('Required.');
  const def = o.defaultValueDescription ?? shown(o.defaultValue);
  if (def !== undefined) facts.push(`Default: ${code(def)}.`);
  const choices = o.argChoices ?? completionValues(o);
  if (choices) facts.push(`Choices: ${choices.map(code).join(', ')}.`);
  if (o.envVar) facts.push(`Environment: ${code(o.envVar)}.`);
  return { term: o.flags, description: o.description, facts };
}

function argumentEntry(a: Argument): Entry {
  const facts: string[] = [];
  const def = a.defaultValueDescription ?? shown(a.defaultValue);
  if (def !== undefined) facts.push(`Default: ${code(def)}.`);
  if (a.argChoices) facts.push(`Choices: ${a.argChoices.map(code).join(', ')}.`);
  const name = `${a.name()}${a.variadic ? '...' : ''}`;
  return { term: a.required ? `<${name}>` : `[${name}]`, description: a.description, facts };
}

const ownFlags = (c: Command) =>
  c
    .createHelp()
    .visibleOptions(c)
    .filter((o) => o.long !== '--help')
    .map(optionEntry);

/** The text a command's help prints after its own (commander's `addHelpText('after')`). */
function helpAfter(c: Command): string {
  const saved = { ...c.configureOutput() };
  let out = '';
  c.configureOutput({ writeOut: (s) => (out += s) });
  try {
    c.outputHelp();
  } finally {
    c.configureOutput(saved);
  }
  const info = c.helpInformation();
  return out.slice(out.indexOf(info) + info.length).replace(/^\n+|\s+$/g, '');
}

function pageOf(c: Command): Page {
  const words = commandPath(c).split(' ');
  const ancestors: Command[] = [];
  for (let x = c.parent; x?.parent; x = x.parent) ancestors.unshift(x);
  return {
    words,
    slug: ['xctl', ...words].join('-'),
    synopsis: c.createHelp().commandUsage(c),
    description: c.description(),
    args: c.registeredArguments.map(argumentEntry),
    flags: ownFlags(c),
    inherited: ancestors
      .map((a) => ({ from: `xctl ${commandPath(a)}`, flags: ownFlags(a) }))
      .filter((x) => x.flags.length),
    examples: examplesOf(c),
    notes: helpAfter(c),
  };
}

const visibleSubs = (c: Command) =>
  c
    .createHelp()
    .visibleCommands(c)
    .filter((s) => s.name() !== 'help');

/** Every leaf command shown in help, sorted by path. */
export function leafCommands(root: Command): Command[] {
  const out: Command[] = [];
  const walk = (c: Command) => {
    const subs = visibleSubs(c);
    if (!subs.length && c !== root) out.push(c);
    for (const s of subs) walk(s);
  };
  walk(root);
  return out.sort((a, b) => (commandPath(a) < commandPath(b) ? -1 : 1));
}

// --- Markdown ---

/** Text safe in Markdown outside code spans (`...` spans stay as they are). */
function md(text: string): string {
  return text
    .split('`')
    .map((part, i) =>
      i % 2
        ? part
        : part
            .replace(/[\\*[\]]/g, '\\$&')
            .replace(/</g, '&lt;')
            .replace(/>/g, '&gt;'),
    )
    .join('`');
}

const firstLine = (s: string) => s.split('\n')[0]!.trim();

/** The description, then the facts (default, choices...) as sentences of their own. */
function sentences(description: string, facts: string[], escape: (s: string) => string): string {
  if (!facts.length) return escape(description);
  const end = !description || /[.!?:]$/.test(description) ? ' ' : '. ';
  return escape(`${description}${description ? end : ''}${facts.join(' ')}`);
}

function mdEntries(title: string, entries: Entry[]): string[] {
  if (!entries.length) return [];
  const items = entries.map((e) => `- ${code(e.term)}: ${sentences(e.description, e.facts, md)}`);
  return [`## ${title}`, '', ...items, ''];
}

function mdExamples(examples: string[]): string[] {
  if (!examples.length) return [];
  const lines = examples.flatMap((e) => {
    const i = e.indexOf('  # ');
    return i < 0 ? [e] : [`# ${e.slice(i + 4)}`, e.slice(0, i)];
  });
  return ['## Examples', '', '```sh', ...lines, '```', ''];
}

function markdownPage(p: Page): string {
  return [
    `# xctl ${p.words.join(' ')}`,
    '',
    md(p.description),
    '',
    '```text',
    p.synopsis,
    '```',
    '',
    ...mdEntries('Arguments', p.args),
    ...mdEntries('Flags', p.flags),
    ...p.inherited.flatMap((x) => mdEntries(`Flags of ${code(x.from)}`, x.flags)),
    ...mdExamples(p.examples),
    ...(p.notes ? ['## Notes', '', '```text', p.notes, '```', ''] : []),
    'Every command also takes the [global options](global-options.md). [All commands](README.md).',
    '',
  ].join('\n');
}

function markdownIndex(root: Command, pages: Page[]): string {
  const groups = visibleSubs(root)
    .map((g) => g.name())
    .sort();
  const sections = groups.flatMap((g) => {
    const group = root.commands.find((c) => c.name() === g)!;
    const items = pages
      .filter((p) => p.words[0] === g)
      .map((p) => `- [xctl ${p.words.join(' ')}](${p.slug}.md): ${md(firstLine(p.description))}`);
    return [`## ${g}`, '', md(firstLine(group.description())), '', ...items, ''];
  });
  return [
    '# xctl command reference',
    '',
    'Every command, its flags and examples, generated from the command tree by `npm run reference`',
    '(scripts/gen-reference.js): do not edit these pages by hand; test/unit/reference.test.ts fails',
    'when they are stale. The same pages as man pages: [docs/man/](../man/). Options every command',
    'takes: [global options](global-options.md).',
    '',
    ...sections,
  ].join('\n');
}

function markdownGlobals(root: Command): string {
  const entries = root.createHelp().visibleOptions(root).map(optionEntry);
  return [
    '# xctl global options',
    '',
    'Every command takes these, before or after its own words (`xctl -o json ads campaigns list`).',
    '',
    ...mdEntries('Options', entries),
    '[All commands](README.md).',
    '',
  ].join('\n');
}

// --- roff (man pages) ---

/** Text safe in roff: backslashes, hyphens and non-ASCII escaped, no line taken for a request. */
function roff(text: string): string {
  return text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/[^\n\t -~]/gu, (ch) => `\\[u${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`)
    .split('\n')
    .map((l) => (/^[.']/.test(l) ? `\\&${l}` : l))
    .join('\n');
}

function roffEntries(title: string, entries: Entry[]): string[] {
  if (!entries.length) return [];
  return [
    `.SH ${title}`,
    ...entries.flatMap((e) => ['.TP', `\\fB${roff(e.term)}\\fR`, sentences(e.description, e.facts, roff)]),
  ];
}

const roffBlock = (lines: string[]) => ['.RS 4', '.nf', ...lines.map(roff), '.fi', '.RE'];

function manHeader(name: string, description: string): string[] {
  return [
    `.TH "${roff(name.toUpperCase())}" "1" "" "xctl" "xctl manual"`,
    '.SH NAME',
    `${roff(name)} \\- ${roff(firstLine(description))}`,
  ];
}

function manPage(p: Page): string {
  const ex = p.examples.flatMap((e) => {
    const i = e.indexOf('  # ');
    return i < 0 ? [e] : [`# ${e.slice(i + 4)}`, e.slice(0, i)];
  });
  return [
    ...manHeader(p.slug, p.description),
    '.SH SYNOPSIS',
    ...roffBlock([p.synopsis]),
    '.SH DESCRIPTION',
    roff(p.description),
    ...roffEntries('ARGUMENTS', p.args),
    ...roffEntries('OPTIONS', p.flags),
    ...p.inherited.flatMap((x) => roffEntries(`OPTIONS OF ${x.from.toUpperCase()}`, x.flags)),
    ...(ex.length ? ['.SH EXAMPLES', ...roffBlock(ex)] : []),
    ...(p.notes ? ['.SH NOTES', ...roffBlock(p.notes.split('\n'))] : []),
    '.SH SEE ALSO',
    '.BR xctl (1)',
    '',
  ].join('\n');
}

function manRoot(root: Command, pages: Page[]): string {
  return [
    ...manHeader('xctl', root.description()),
    '.SH SYNOPSIS',
    ...roffBlock(['xctl [options] <command> [arguments]']),
    '.SH DESCRIPTION',
    roff(root.description()),
    ...roffEntries('OPTIONS', root.createHelp().visibleOptions(root).map(optionEntry)),
    '.SH COMMANDS',
    ...pages.flatMap((p) => ['.TP', `\\fBxctl ${roff(p.words.join(' '))}\\fR`, roff(firstLine(p.description))]),
    '.PP',
    `Each command has its own page: ${roff('xctl-ads-campaigns-list(1)')} for ${roff('xctl ads campaigns list')}.`,
    '',
  ].join('\n');
}

/**
 * The reference of the program's full tree (every group loaded): file contents by path under
 * docs/ ("reference/README.md", "man/xctl.1", ...), sorted by path.
 */
export function renderReference(root: Command): Map<string, string> {
  fixHelpWidth(WIDTH);
  try {
    const pages = leafCommands(root).map(pageOf);
    const files: Array<[string, string]> = [
      ['reference/README.md', markdownIndex(root, pages)],
      ['reference/global-options.md', markdownGlobals(root)],
      ['man/xctl.1', manRoot(root, pages)],
    ];
    for (const p of pages) {
      files.push([`reference/${p.slug}.md`, markdownPage(p)], [`man/${p.slug}.1`, manPage(p)]);
    }
    const seen = new Set<string>();
    for (const [f] of files) {
      if (seen.has(f)) throw new Error(`two commands would both write ${f}`);
      seen.add(f);
    }
    return new Map(files.sort(([a], [b]) => (a < b ? -1 : 1)));
  } finally {
    fixHelpWidth(undefined);
  }
}
