// `xctl ads <noun> <verb>` (and `xctl ads ref|settings <noun> [verb]`), generated from the ads
// resource table: one subcommand per operation, one flag per parameter, validation before sending.
import { Command, Option } from 'commander';
import { RESOURCES } from '../../ads/resources.js';
import type { OperationDef, ParamDef, ResourceDef } from '../../ads/resource-types.js';
import { run } from '../kit.js';
import { positionalsOf, runOperation } from './run.js';
import { registerJobVerbs } from './stats-jobs.js';

const GROUPS: Record<string, string> = {
  ref: 'reference data: bidding rules, categories, publishers, placements, features, keyword insights',
  settings: 'tax and user settings of the account',
};

export function register(ads: Command): void {
  ads.description('the advertising API: accounts, campaigns, line items, targeting, creatives, analytics, reference data, settings');
  const parents = new Map<string, Command>();
  const nouns = new Map<string, Command>();
  for (const r of RESOURCES) {
    if (r.home === 'audiences') continue; // served by `xctl audiences` (src/commands/audiences/)
    let parent = ads;
    if (r.group) {
      // A group is another resource's noun (`stats job`) or a plain group (`ref`, `settings`).
      if (!parents.has(r.group)) parents.set(r.group, nouns.get(r.group) ?? ads.command(r.group).description(GROUPS[r.group] ?? r.group));
      parent = parents.get(r.group)!;
    }
    nouns.set(r.noun, addResource(parent, r));
  }
  // The stats job verbs around the endpoints: get, wait, download (src/commands/ads/stats-jobs.ts).
  const stats = RESOURCES.find((r) => r.name === 'stats')!;
  registerJobVerbs(nouns.get('job')!, stats.columns);
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

function addResource(parent: Command, r: ResourceDef): Command {
  const noun = parent.command(r.noun).description(r.description);
  for (const op of r.operations) addOperation(noun, r, op);
  return noun;
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
