// Generated verbs: one subcommand per operation of the ads table, one flag per parameter,
// positionals from the path, validation before sending, and the verb's declared hooks.
import type { Command } from 'commander';
import type { OperationDef, ParamDef, ResourceDef } from '../../ads/resource-types.js';
import { type ArgDecl, type CommandDecl, declare, type OptionDecl } from '../define.js';
import { SHOWN_OPTIONAL, sampleValue } from './example-values.js';
import { moneyOptions } from './money-flags.js';
import type { Context } from '../../context.js';
import { operationOptions, positionalsOf, runOperation, type OperationHooks, type OperationOptions } from './run.js';
import { writeOptions } from './write-flags.js';

function helpFor(d: ParamDef): string {
  const parts = [d.help, d.required ? 'required' : undefined, d.rule];
  if (d.enumValues) parts.push(`one of ${d.enumValues.join(', ')}`);
  return parts.filter(Boolean).join('; ');
}

/**
 * The flags of one parameter. Booleans are `--flag` / `--no-flag` (unset: not sent); an optional
 * value (`--flag [bool]`) would swallow a following positional (`get --with-deleted ID`).
 */
export function optionsFor(d: ParamDef): OptionDecl[] {
  // Enum values ride along for shell completion only: the table's own check gives the errors.
  if (d.kind !== 'bool') return [{ flags: `${d.flag} <value>`, description: helpFor(d), completion: d.enumValues }];
  return [
    [d.flag, helpFor(d)],
    [d.flag.replace(/^--/, '--no-'), `send ${d.name}=false`],
  ];
}

/** `<noun>` with a verb per operation; `hooks` by verb. */
export function addResource(parent: Command, r: ResourceDef, hooks: Record<string, OperationHooks> = {}): Command {
  const noun = parent.command(r.noun).description(r.description);
  for (const op of r.operations) addOperation(noun, r, op, hooks[op.verb]);
  return noun;
}

/** The run function of a generated verb: its typed options (tests pass their own, gh's runF). */
export type OperationRun = (ctx: Context, o: OperationOptions) => Promise<void>;

/** One generated subcommand: positionals from the path, a flag per parameter, --all/--limit on lists. */
export function addOperation(
  noun: Command,
  r: ResourceDef,
  op: OperationDef,
  hooks: OperationHooks = {},
  runF?: OperationRun,
): Command {
  return declare(noun, operationDecl(r, op, hooks, runF));
}

/** The declaration of one generated verb: the same form as a hand-written one. */
export function operationDecl(
  r: ResourceDef,
  op: OperationDef,
  hooks: OperationHooks = {},
  runF: OperationRun = (ctx, o) => runOperation(ctx, r, op, o, hooks),
): CommandDecl<ArgDecl[], OptionDecl[]> {
  const args = positionalsOf(r, op).map(
    (pos): ArgDecl => [pos.optional ? `[${pos.name}]` : `<${pos.name}>`, argumentHelp(pos.key, pos.optional)],
  );
  // JSON-bodied operations take their parameters from --file only.
  const options: OptionDecl[] = op.body === 'json' ? [] : op.params.flatMap(optionsFor);
  if (op.body === 'json') options.push(['--file <path>', 'JSON body: a file, or - for stdin (required)']);
  else options.push(...moneyOptions(op, options));
  options.push(...writeOptions(r, op));
  if (op.output === 'stats')
    options.push(['--chart', 'draw a line chart per metric on a terminal (the data as usual when piped)']);
  if (op.kind === 'list' && op.method === 'GET') {
    options.push(['--all', 'follow next_cursor through every page']);
    options.push(['--limit <n>', 'stop after n records (follows pages)']);
  }
  return {
    name: op.verb,
    description: `${op.description}${op.sandboxOnly ? ' [SANDBOX]' : ''} — ${op.method} /${op.version ?? '12'}${op.path}`,
    isDefault: r.defaultVerb === op.verb,
    arguments: args,
    options,
    examples: (sub) => examplesFor(sub, r, op),
    run: (ctx, opts, positionals) => runF(ctx, operationOptions(r, op, opts, positionals)),
  };
}

/** A path parameter in words: `campaign_id` -> "the campaign's id", account ids default to --account. */
function argumentHelp(key: string, optional: boolean): string {
  if (key === 'account_id') return `the ads account's id${optional ? ' (default: --account or XCTL_ACCOUNT_ID)' : ''}`;
  const what = key.replace(/_id$/, '').replace(/_/g, ' ');
  return key.endsWith('_id') ? `the ${what}'s id` : `the ${what}`;
}

/**
 * Help examples for a generated verb (commands/examples.ts prefers its own table): the verb with
 * its positionals and required flags with real-looking values (example-values.ts).
 */
function examplesFor(sub: Command, r: ResourceDef, op: OperationDef): string[] {
  const path: string[] = [];
  for (let c: Command | null = sub; c && c.parent; c = c.parent) path.unshift(c.name());
  const words = ['xctl', ...path];
  for (const pos of positionalsOf(r, op)) if (!pos.optional) words.push(sampleValue(pos.key));
  // A file named for its command (campaigns-batch.json, cards.json): one folder can hold them all.
  if (op.body === 'json') words.push('--file', `${path[path.length - 2]}${op.batch ? '-batch' : ''}.json`);
  else {
    for (const d of op.params.filter((p) => p.required || SHOWN_OPTIONAL.has(p.name))) {
      if (d.kind === 'bool') words.push(d.flag);
      else words.push(d.flag, sampleValue(d.name, d));
    }
  }
  const out = [words.join(' ')];
  if (op.kind === 'list' && op.method === 'GET') out.push(`${words.join(' ')} --all -o json`);
  return out;
}
