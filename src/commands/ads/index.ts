// `xctl ads <noun> <verb>` (and `xctl ads ref|settings <noun> [verb]`), generated from the ads
// resource table: one subcommand per operation, one flag per parameter, validation before sending.
import { Command, Option } from 'commander';
import { RESOURCES } from '../../ads/resources.js';
import type { OperationDef, ParamDef, ResourceDef } from '../../ads/resource-types.js';
import { run } from '../kit.js';
import { positionalsOf, runOperation } from './run.js';

const GROUPS: Record<string, string> = {
  ref: 'reference data: bidding rules, categories, publishers, placements, features, keyword insights',
  settings: 'tax and user settings of the account',
};

export function register(ads: Command, operands?: string[]): void {
  ads.description('the advertising API: accounts, campaigns, line-item attachments, creatives, reference data, settings');
  const own = RESOURCES.filter((r) => r.home !== 'audiences'); // the rest: `xctl audiences` (src/commands/audiences/)
  // `xctl ads campaigns list` builds the verbs of campaigns only: the others are named (for help
  // and suggestions) but get their flags only when asked for. An unknown noun builds everything.
  const asked = operands?.[0];
  const only = asked !== undefined && own.some((r) => (r.group ?? r.noun) === asked) ? asked : undefined;
  const parents = new Map<string, Command>();
  for (const r of own) {
    let parent = ads;
    if (r.group) {
      if (!parents.has(r.group)) parents.set(r.group, ads.command(r.group).description(GROUPS[r.group] ?? r.group));
      parent = parents.get(r.group)!;
    }
    if (only === undefined || (r.group ?? r.noun) === only) addResource(parent, r);
    else parent.command(r.noun).description(r.description);
  }
}

function helpFor(d: ParamDef): string {
  const parts = [d.help, d.required ? 'required' : undefined, d.rule];
  if (d.enumValues) parts.push(`one of ${d.enumValues.join(', ')}`);
  return parts.filter(Boolean).join('; ');
}

/**
 * The flags of one parameter. Booleans are `--flag` / `--no-flag` (unset: not sent); an optional
 * value (`--flag [bool]`) would swallow a following positional (`get --with-deleted ID`).
 */
export function optionsFor(d: ParamDef): Option[] {
  if (d.kind !== 'bool') return [new Option(`${d.flag} <value>`, helpFor(d))];
  return [new Option(d.flag, helpFor(d)), new Option(d.flag.replace(/^--/, '--no-'), `send ${d.name}=false`)];
}

function addResource(parent: Command, r: ResourceDef): void {
  const noun = parent.command(r.noun).description(r.description);
  for (const op of r.operations) addOperation(noun, r, op);
}

/** One generated subcommand: positionals from the path, a flag per parameter, --all/--limit on lists. */
export function addOperation(noun: Command, r: ResourceDef, op: OperationDef): Command {
  const isDefault = r.defaultVerb === op.verb;
  const sub = noun.command(op.verb, isDefault ? { isDefault: true } : {});
  sub.description(`${op.description}${op.sandboxOnly ? ' [SANDBOX]' : ''} — ${op.method} /${op.version ?? '12'}${op.path}`);
  for (const pos of positionalsOf(r, op)) sub.argument(pos.optional ? `[${pos.name}]` : `<${pos.name}>`, pos.optional ? `${pos.name} (default: --account)` : pos.name);
  // JSON-bodied operations take their parameters from --file only.
  for (const d of op.body === 'json' ? [] : op.params) for (const o of optionsFor(d)) sub.addOption(o);
  if (op.body === 'json') sub.addOption(new Option('--file <path>', 'JSON body: a file, or - for stdin (required)'));
  if (op.kind === 'list' && op.method === 'GET') {
    sub.option('--all', 'follow next_cursor through every page');
    sub.option('--limit <n>', 'stop after n records (follows pages)');
  }
  sub.action(run((ctx, opts, args) => runOperation(ctx, r, op, opts as Record<string, unknown>, args)));
  return sub;
}
