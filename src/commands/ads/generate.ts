// Generated verbs: one subcommand per operation of the ads table, one flag per parameter,
// positionals from the path, validation before sending, and the verb's declared hooks.
import { Command, Option } from 'commander';
import type { OperationDef, ParamDef, ResourceDef } from '../../ads/resource-types.js';
import { define } from '../define.js';
import { operationOptions, positionalsOf, runOperation, type OperationHooks } from './run.js';

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
  sub.description(`${op.description}${op.sandboxOnly ? ' [SANDBOX]' : ''} — ${op.method} /${op.version ?? '12'}${op.path}`);
  for (const pos of positionalsOf(r, op)) sub.argument(pos.optional ? `[${pos.name}]` : `<${pos.name}>`, pos.optional ? `${pos.name} (default: --account)` : pos.name);
  // JSON-bodied operations take their parameters from --file only.
  for (const d of op.body === 'json' ? [] : op.params) for (const o of optionsFor(d)) sub.addOption(o);
  if (op.body === 'json') sub.addOption(new Option('--file <path>', 'JSON body: a file, or - for stdin (required)'));
  if (op.kind === 'list' && op.method === 'GET') {
    sub.option('--all', 'follow next_cursor through every page');
    sub.option('--limit <n>', 'stop after n records (follows pages)');
  }
  sub.action(define<Record<string, unknown>>((ctx, opts, args) => runOperation(ctx, r, op, operationOptions(r, op, opts, args), hooks)));
  return sub;
}
