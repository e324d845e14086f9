// The root command: global options and the command groups, each imported only when it runs.
import { Command, Help, Option } from 'commander';
import { runsItself } from './commands/annotations.js';
import { helpWidth, wrapLongLines, wrapWords } from './commands/help-text.js';
import { runtimeOf } from './commands/runtime.js';
import type { IOStreams } from './core/io.js';

export interface GroupModule {
  /**
   * Builds the group's tree under `cmd`. `operands`: what follows the group on the command line,
   * when only that group is loaded; a large group may build only the branch they name.
   */
  register(cmd: Command, operands?: string[]): void;
}

interface GroupEntry {
  description: string;
  load: () => Promise<GroupModule>;
  /** Not listed in help or completion (`__complete`, which the completion scripts call). */
  hidden?: boolean;
}

// One line per group. A group's module is imported only when its name is on the command line,
// so `xctl --version` and `--help` load nothing but commander and this file.
export const GROUPS: Record<string, GroupEntry> = {
  auth: {
    description: 'credentials: set, log in, app token, status, profiles',
    load: () => import('./commands/auth/index.js'),
  },
  request: { description: 'make a raw signed API call', load: () => import('./commands/request.js') },
  config: {
    description: 'read and change settings in the profile store',
    load: () => import('./commands/config/index.js'),
  },
  webhooks: {
    description: 'v2 webhooks: create, list, validate, replay; crc, verify, local receiver',
    load: () => import('./commands/webhooks/index.js'),
  },
  activity: {
    description: 'activity API: subscriptions and the live event stream',
    load: () => import('./commands/activity/index.js'),
  },
  'account-activity': {
    description: "account activity API: a user's events delivered to a webhook",
    load: () => import('./commands/account-activity/index.js'),
  },
  stream: {
    description: 'filtered stream rules and the webhooks receiving matching posts',
    load: () => import('./commands/stream/index.js'),
  },
  ads: {
    description: 'the advertising API: accounts, campaigns, attachments, creatives, reference data',
    load: () => import('./commands/ads/index.js'),
  },
  audiences: {
    description: 'custom audiences, sharing, flexible audiences, do-not-reach lists, estimates, bulk uploads',
    load: () => import('./commands/audiences/index.js'),
  },
  media: {
    description: 'upload images, GIFs and videos (chunked, resumable) and get their media_key',
    load: () => import('./commands/media/index.js'),
  },
  sandbox: { description: 'run the local emulator of the service', load: () => import('./commands/sandbox/index.js') },
  changelog: {
    description: 'the platform change history (deprecations and retirements)',
    load: () => import('./commands/changelog.js'),
  },
  mcp: {
    description: 'serve the ads, audience and webhook commands as Model Context Protocol tools over stdio',
    load: () => import('./commands/mcp/index.js'),
  },
  completion: {
    description: 'print a shell completion script: bash, zsh or fish',
    load: () => import('./commands/completion.js'),
  },
  __complete: {
    description: 'ids for shell completion, from a short cache or the service (called by the scripts)',
    load: () => import('./commands/complete-ids.js'),
    hidden: true,
  },
};

/**
 * The streams commander writes help and its own errors to: the program's bound runtime's (main.ts
 * binds the process's; a test context binds captured ones), the process's before one is bound.
 */
function streamsOf(program: Command): Pick<IOStreams, 'stdout' | 'stderr'> {
  try {
    return runtimeOf(program).streams;
  } catch {
    return process;
  }
}

/**
 * A commander error as xctl prints it: its "Did you mean" on the error's line; gh's `--paginate`
 * pointing to xctl's `--all` (every page), where commander finds nothing close.
 */
export function commanderMessage(message: string): string {
  return message
    .replace(/\n\(Did you mean (.*)\?\)/, ' (did you mean $1?)')
    .replace(/^(error: unknown option '--paginate')$/m, '$1 (did you mean --all? it follows every page)');
}

/** Programs whose help shows the global options in full (`--help-all`). */
const fullHelp = new WeakSet<Command>();

/** `xctl ... --help-all`: help with every global option described (main.ts turns it into --help). */
export function helpAll(args: string[]): { args: string[]; all: boolean } {
  const all = args.includes('--help-all');
  return { args: all ? args.map((a) => (a === '--help-all' ? '--help' : a)) : args, all };
}

/** Top-level examples: the Quickstart in four lines. */
const ROOT_EXAMPLES = `
Examples:
  $ xctl sandbox start --configure   # a local emulator, profile "sandbox"
  $ xctl auth profiles use sandbox   # select it (in another shell)
  $ xctl ads campaigns list
  $ xctl webhooks listen --register  # the sandbox's events, live
  $ xctl ads --help-all              # a group's help, global options in full`;

export function buildProgram(version: string, o: { helpAll?: boolean } = {}): Command {
  const program = new Command('xctl');
  if (o.helpAll) fullHelp.add(program);
  program
    .description("Command-line tool for the platform's developer APIs, with a local sandbox (`xctl sandbox start`)")
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .addOption(new Option('--profile <name>', 'credential profile to use').env('XCTL_PROFILE'))
    .option('--json [fields]', 'JSON output (same as -o json); --json id,name keeps only those fields')
    .addOption(
      new Option('-o, --output <format>', 'output format (default: table on a terminal, else tsv)').choices([
        'table',
        'json',
        'jsonl',
        'tsv',
        'csv',
      ]),
    )
    .option('--fields <list>', 'comma-separated fields to print')
    .option(
      '--jq <expr>',
      "filter the JSON output with jq (all pages with --all); strings print raw, e.g. --jq '.[].id'",
    )
    .option(
      '--include-cursor',
      'lists: json as {"data": [...], "next_cursor": ...}; jsonl ends with a {"next_cursor": ...} line',
    )
    .option(
      '--header-row',
      'tsv and csv: print a first row with the column names (also --header, where the command has no --header of its own)',
    )
    .option('--base-url <url>', 'API base URL for the API and ads hosts (env XCTL_BASE_URL)')
    .option('--sandbox', 'use the ads sandbox host')
    .option('--account <id>', 'ads account id (env XCTL_ACCOUNT_ID)')
    .option('-v, --verbose', 'print an HTTP trace on stderr (secrets redacted)')
    .option('-q, --quiet', 'print only data and errors')
    .option('--no-color', 'no colour (also NO_COLOR)')
    .option('--no-progress', 'no spinners or progress bars')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--max-wait <seconds>', 'longest wait for a rate-limit reset (default 900; env XCTL_MAX_WAIT)')
    .option(
      '--deadline <duration>',
      'give up (exit 75, retry later) when the whole command, every retry and wait included, takes longer: 90s, 15m (env XCTL_DEADLINE)',
    )
    // gh's "INHERITED FLAGS": --profile, -o, --json... are listed under every command's own.
    // Long generated flags (--daily-budget-amount-local-micro) leave a narrow description column:
    // wrap it anyway rather than run past the terminal's width.
    // A group's commands come first, as gh lists them, then its options and the global ones.
    .configureHelp({ showGlobalOptions: true, minWidthToWrap: 20, formatHelp: commandsFirst })
    .showSuggestionAfterError(true)
    .showHelpAfterError('hint: run with --help for usage')
    // one line for the error (commander puts its "Did you mean" on a line of its own), one hint
    .configureOutput({
      outputError: (str, write) => write(commanderMessage(str)),
      // Help (commander writes nothing else but --version here) fits the terminal, 80 columns when
      // unknown. Errors (writeErr) stay one line each.
      writeOut: (str) => {
        const out = streamsOf(program).stdout;
        out.write(wrapLongLines(str, helpWidth(out)));
      },
      writeErr: (str) => streamsOf(program).stderr.write(str),
    })
    .exitOverride(); // set before the groups are added: subcommands inherit it
  for (const [name, g] of Object.entries(GROUPS))
    program.command(name, { hidden: g.hidden }).description(g.description);
  program.addHelpText('after', ROOT_EXAMPLES);
  return program;
}

/**
 * Below the root, the global options in one short paragraph (gh's INHERITED FLAGS, compact): a
 * command's help starts with what is its own; `--help-all` describes them.
 */
function compactGlobals(cmd: Command, section: string): string {
  let root = cmd;
  while (root.parent) root = root.parent;
  if (root === cmd || fullHelp.has(root)) return section;
  const names = root.options.filter((o) => !o.hidden && o.long !== '--version').map((o) => o.long ?? o.short!);
  const width = helpWidth(streamsOf(root).stdout);
  return `Global options (\`--help-all\` describes them):\n${wrapWords(
    names.map((n, i) => (i < names.length - 1 ? `${n},` : n)),
    '  ',
    width,
  )}`;
}

/** Commander's help with the "Commands:" section moved before "Options:". */
function commandsFirst(cmd: Command, helper: Help): string {
  const text = Help.prototype.formatHelp.call(helper, cmd, helper);
  const sections = text
    .replace(/\n+$/, '')
    .split('\n\n')
    .map((x) => (x.startsWith('Global Options:') ? compactGlobals(cmd, x) : x));
  const commands = sections.findIndex((x) => x.startsWith('Commands:'));
  const options = sections.findIndex((x) => x.startsWith('Options:'));
  if (commands < 0 || options < 0 || commands < options) return `${sections.join('\n\n')}\n`;
  const [moved] = sections.splice(commands, 1);
  sections.splice(options, 0, moved!);
  return `${sections.join('\n\n')}\n`;
}

const VALUE_OPTIONS = new Set([
  '--profile',
  '-o',
  '--output',
  '--fields',
  '--jq',
  '--base-url',
  '--account',
  '--max-wait',
  '--deadline',
]);

/** What `--json FIELDS` may look like: comma-separated field names (dots for nested ones). */
const FIELD_LIST = /^[A-Za-z_][A-Za-z0-9_.]*(,[A-Za-z_][A-Za-z0-9_.]*)*$/;

/** The operands of argv (after node and script), skipping global options and their values. */
export function operandsOf(args: string[], o: { plainJson?: boolean } = {}): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return out.concat(args.slice(i + 1));
    if (a.startsWith('-')) {
      if (VALUE_OPTIONS.has(a)) i++;
      // `--json id,name` before the group: field names, not the group (normalizeJsonFlag settles the rest).
      else if (a === '--json' && !o.plainJson && FIELD_LIST.test(args[i + 1] ?? '') && !GROUPS[args[i + 1]!]) i++;
      continue;
    }
    out.push(a);
  }
  return out;
}

/**
 * `xctl help a b c` is `xctl a b c --help` (commander's own help command goes one level only).
 * Returns argv (after node and script) rewritten, or unchanged.
 */
export function rewriteHelpWord(args: string[]): string[] {
  const ops = operandsOf(args);
  if (ops[0] !== 'help' || args.includes('--')) return args;
  const i = args.indexOf('help');
  return [...args.slice(0, i), ...args.slice(i + 1), '--help'];
}

/**
 * True when argv names a command that only groups others (`xctl`, `xctl ads`, `xctl ads
 * campaigns`) and nothing after it: its help then goes to stdout with exit 0, as gh does,
 * instead of commander's "missing command" help on stderr.
 */
export function namesBareGroup(program: Command, args: string[]): boolean {
  if (args.some((a) => a === '-h' || a === '--help' || a === '-V' || a === '--version')) return false;
  let cmd = program;
  for (const word of operandsOf(args)) {
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub) return false;
    cmd = sub;
  }
  return cmd.commands.length > 0 && !runsItself(cmd);
}

export function firstOperand(args: string[]): string | undefined {
  return operandsOf(args)[0];
}

/**
 * Replaces the stub of the group named on the command line (or every group) by its full tree.
 * `operands` (the command line's, group first) let the group build only what was asked for.
 */
export async function loadGroups(program: Command, names: string[], operands?: string[]): Promise<void> {
  for (const name of names) {
    const entry = GROUPS[name];
    if (!entry) continue;
    const stub = program.commands.find((c) => c.name() === name);
    if (!stub) continue;
    const mod = await entry.load();
    mod.register(stub, names.length === 1 && operands?.[0] === name ? operands.slice(1) : undefined);
  }
}

/**
 * Two rewrites of argv once the command tree is loaded, so that global options do not take what
 * belongs to the command:
 * - `--json` takes an optional field list (gh's `--json id,name`) yet must not swallow a
 *   command's argument (`--json get ID`, `get --json ID`). Each bare `--json` followed by a word
 *   becomes `--json=WORD` when the word looks like field names and is not an argument the command
 *   still needs, else `--json=` (JSON, every field).
 * - `--header` is the global `--header-row` (a first row for tsv/csv) on a command with no
 *   `--header` of its own; `request -H/--header` keeps its own (an HTTP header).
 */
export function normalizeArgs(program: Command, args: string[]): string[] {
  const end = args.indexOf('--');
  const upto = end < 0 ? args.length : end;
  const operands = operandsOf(args, { plainJson: true });
  let cmd = program;
  let k = 0;
  for (; k < operands.length; k++) {
    const sub = cmd.commands.find((c) => c.name() === operands[k] || c.aliases().includes(operands[k]!));
    if (!sub) break;
    cmd = sub;
  }
  const out = args.slice();
  if (!cmd.options.some((o) => o.long === '--header')) {
    for (let i = 0; i < upto; i++) if (out[i] === '--header') out[i] = '--header-row';
  }
  if (!out.slice(0, upto).includes('--json')) return out;
  const positionals = operands.slice(k);
  const declared = cmd.registeredArguments;
  const needsAll = declared.some((a) => a.variadic) || positionals.length <= declared.length;
  for (let i = 0; i < upto; i++) {
    if (out[i] !== '--json') continue;
    const next = out[i + 1];
    if (next === undefined || i + 1 >= upto || next.startsWith('-')) continue;
    const isArgument = operands.slice(0, k).includes(next) || (positionals.includes(next) && needsAll);
    out[i] = !isArgument && FIELD_LIST.test(next) ? `--json=${next}` : '--json=';
    if (out[i] !== '--json=') out.splice(i + 1, 1);
  }
  return out;
}

/**
 * An unknown word where a group expects one of its commands (`xctl ads media`, and `xctl help ads
 * media`, which commander would answer with the group's help and exit 0): the message with
 * did-you-mean, and a hint when the word is a group of its own (`xctl media upload`).
 */
export async function unknownCommand(
  program: Command,
  args: string[],
): Promise<{ message: string; hint?: string } | undefined> {
  let cmd = program;
  const path: string[] = [];
  for (const word of operandsOf(args)) {
    if (!cmd.commands.length || runsItself(cmd)) return undefined;
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub) {
      if (cmd === program) return undefined; // commander's own answer (group names are known before loading)
      const { didYouMean } = await import('./core/suggest.js');
      const names = cmd.commands.map((c) => c.name()).filter((n) => n !== 'help');
      const own = GROUPS[word] ? program.commands.find((c) => c.name() === word) : undefined;
      return {
        message: `unknown command '${word}' for 'xctl ${path.join(' ')}'${didYouMean(word, names)}`,
        hint: own
          ? `${word} is a command group of its own: \`xctl ${word} --help\`${word === 'media' ? ', e.g. `xctl media upload FILE`' : ''}`
          : `\`xctl ${path.join(' ')} --help\` lists its commands`,
      };
    }
    path.push(sub.name());
    cmd = sub;
  }
  return undefined;
}
