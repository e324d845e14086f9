// Generated verbs: one subcommand per operation of the ads table, one flag per parameter,
// positionals from the path, validation before sending, and the verb's declared hooks.
import { Command, Option } from 'commander';
import type { OperationDef, ParamDef, ResourceDef } from '../../ads/resource-types.js';
import { setGeneratedExamples, withCompletionValues } from '../annotations.js';
import { define } from '../define.js';
import { sampleValue } from './example-values.js';
import { addMoneyFlags } from './money-flags.js';
import { operationOptions, positionalsOf, runOperation, type OperationHooks } from './run.js';
import { addWriteFlags } from './write-flags.js';

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
  // Enum values ride along for shell completion only: the table's own check gives the errors.
  if (d.kind !== 'bool') return [withCompletionValues(new Option(`${d.flag} <value>`, helpFor(d)), d.enumValues)];
  return [new Option(d.flag, helpFor(d)), new Option(d.flag.replace(/^--/, '--no-'), `send ${d.name}=false`)];
}

/** `<noun>` with a verb per operation; `hooks` by verb. */
export function addResource(parent: Command, r: ResourceDef, hooks: Record<string, OperationHooks> = {}): Command {
  const noun = parent.command(r.noun).description(r.description);
  for (const op of r.operations) addOperation(noun, r, op, hooks[op.verb]);
  return noun;
}

/** One generated subcommand: positionals from the path, a flag per parameter, --all/--limit on lists. */
export function addOperation(noun: Command, r: ResourceDef, op: OperationDef, hooks: OperationHooks = {}): Command {
  const isDefault = r.defaultVerb === op.verb;
  const sub = noun.command(op.verb, isDefault ? { isDefault: true } : {});
  sub.description(
    `${op.description}${op.sandboxOnly ? ' [SANDBOX]' : ''} — ${op.method} /${op.version ?? '12'}${op.path}`,
  );
  for (const pos of positionalsOf(r, op))
    sub.argument(pos.optional ? `[${pos.name}]` : `<${pos.name}>`, argumentHelp(pos.key, pos.optional));
  // JSON-bodied operations take their parameters from --file only.
  for (const d of op.body === 'json' ? [] : op.params) for (const o of optionsFor(d)) sub.addOption(o);
  if (op.body === 'json') sub.addOption(new Option('--file <path>', 'JSON body: a file, or - for stdin (required)'));
  else addMoneyFlags(sub, op);
  addWriteFlags(sub, r, op);
  if (op.kind === 'list' && op.method === 'GET') {
    sub.option('--all', 'follow next_cursor through every page');
    sub.option('--limit <n>', 'stop after n records (follows pages)');
  }
  sub.action(
    define<Record<string, unknown>>((ctx, opts, args) =>
      runOperation(ctx, r, op, operationOptions(r, op, opts, args), hooks),
    ),
  );
  setGeneratedExamples(sub, () => examplesFor(sub, r, op));
  return sub;
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
  if (op.body === 'json') words.push('--file', op.batch ? 'batch.json' : 'body.json');
  else {
    for (const d of op.params.filter((p) => p.required)) {
      if (d.kind === 'bool') words.push(d.flag);
      else words.push(d.flag, sampleValue(d.name, d));
    }
  }
  const out = [words.join(' ')];
  if (op.kind === 'list' && op.method === 'GET') out.push(`${words.join(' ')} --all -o json`);
  return out;
}
