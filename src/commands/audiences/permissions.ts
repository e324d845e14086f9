// `xctl audiences permissions list|grant|revoke <audience-id> [<permission-id>]`: generated from
// two resources at once, the /12 custom audience permissions and (with --tailored) the /5
// tailored audience ones; the flags are the union of both, each refused where it does not apply.
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.js';
import { requireOperation, requireResource } from '../../ads/resources.js';
import { type ArgDecl, declare, type OptionDecl } from '../define.js';
import { DRY_RUN_OPTION } from '../dry-run.js';
import { optionsFor } from '../ads/generate.js';
import { attributeOf, operationOptions, positionalsOf, runOperation } from '../ads/run.js';
import { ownerOnlyHooks } from './owner-hint.js';

export function register(parent: Command): void {
  const perms = parent
    .command('permissions')
    .description(
      'who a custom audience is shared with: list, grant, revoke (--tailored for the /5 tailored audiences)',
    );
  for (const verb of ['list', 'grant', 'revoke']) addPermissionVerb(perms, verb);
}

function addPermissionVerb(perms: Command, verb: string): void {
  const custom = requireResource('custom_audience_permissions');
  const tailored = requireResource('tailored_audience_permissions');
  const ops = { custom: requireOperation(custom, verb), tailored: requireOperation(tailored, verb) };
  const args: ArgDecl[] = [['<audience-id>', 'custom (or tailored) audience id']];
  if (verb === 'revoke') args.push(['<permission-id>', 'permission id (from `permissions list`)']);
  const seen = new Set<string>();
  const options: OptionDecl[] = [];
  for (const d of [...ops.custom.params, ...ops.tailored.params]) {
    if (seen.has(d.name)) continue;
    seen.add(d.name);
    options.push(...optionsFor(d));
  }
  options.push(['--tailored', 'use the /5 tailored audience permissions endpoint']);
  if (verb !== 'list') options.push(DRY_RUN_OPTION);
  if (verb === 'list') {
    options.push(['--all', 'follow next_cursor through every page']);
    options.push(['--limit <n>', 'stop after n records (follows pages)']);
  }
  declare(perms, {
    name: verb,
    description: `${ops.custom.description} — ${ops.custom.method} /12${ops.custom.path} (or /5${ops.tailored.path} with --tailored)`,
    arguments: args,
    options,
    run: async (ctx, o, positionals) => {
      const which = o.tailored ? 'tailored' : 'custom';
      const op = ops[which];
      const other = ops[which === 'custom' ? 'tailored' : 'custom'];
      for (const d of other.params) {
        if (!op.params.some((x) => x.name === d.name) && o[attributeOf(d.flag)] !== undefined) {
          throw new UsageError(
            `${d.flag} ${which === 'custom' ? 'needs --tailored' : 'cannot be used with --tailored'}`,
            { flag: d.flag },
          );
        }
      }
      const r = which === 'custom' ? custom : tailored;
      const given = positionals.filter((a) => a !== undefined);
      if (positionalsOf(r, op).length !== given.length) throw new UsageError('wrong number of arguments');
      const hooks =
        verb === 'list'
          ? {}
          : ownerOnlyHooks(`${verb === 'grant' ? 'share' : 'revoke shares of'}`, `${which}_audience_id`);
      await runOperation(ctx, r, op, operationOptions(r, op, o, positionals), hooks);
    },
  });
}
