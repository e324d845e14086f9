// `xctl stream rules add [values...] [--tag T] [--file F] [--dry-run]`
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { ApiError } from '../../../core/errors.js';
import { declare } from '../../define.js';
import { readInputArg } from '../../input.js';
import { checkRules, parseRulesFile, type Rule } from './input.js';
import { RULE_COLUMNS as COLUMNS, postRules } from './post.js';

export interface AddOptions {
  values: string[];
  tag?: string;
  file?: string;
  dryRun?: boolean;
}

export function register(parent: Command, runF = rulesAdd): void {
  declare(parent, {
    name: 'add',
    description: 'add rules: values as arguments and/or --file (JSON array, JSON lines, or one value per line)',
    arguments: [['[values...]', 'rule values (or --file)']],
    options: [
      ['--tag <tag>', 'tag for the rules given as arguments'],
      ['--file <file>', 'rules file (@file, file or - for stdin)'],
      ['--dry-run', 'validate only; nothing is added'],
    ],
    run: (ctx, o, [values]) => runF(ctx, { ...o, values }),
  });
}

/** Adds rules (POST /2/tweets/search/stream/rules {"add":[...]}). */
export async function rulesAdd(ctx: Context, o: AddOptions): Promise<void> {
  const rules: Rule[] = o.values.map((v) => ({ value: v, ...(o.tag !== undefined ? { tag: o.tag } : {}) }));
  if (o.file) rules.push(...parseRulesFile(await readInputArg(ctx, o.file, '--file')));
  checkRules(rules);
  const res = await postRules(ctx, { add: rules }, o.dryRun);
  if (res.status >= 400 && !res.data.meta)
    throw new ApiError(`adding rules failed (HTTP ${res.status})`, { status: res.status, body: res.data });
  const { printList } = await import('../../../core/output.js');
  const s = res.data.meta?.summary ?? {};
  if (o.dryRun) {
    // The service answers a dry run with ids of rules that do not exist: only what would be added is shown.
    const rows = (res.data.data ?? []).map(({ id: _id, ...rule }) => rule);
    if (rows.length) await printList(ctx.io, await ctx.output(), rows, { columns: ['value', 'tag'] });
    ctx.io.info(`dry run: would add ${s.valid ?? rows.length}, invalid ${s.invalid ?? 0}; nothing was added`);
  } else {
    if (res.data.data?.length) await printList(ctx.io, await ctx.output(), res.data.data, { columns: COLUMNS });
    ctx.io.info(
      `valid ${s.valid ?? 0}, invalid ${s.invalid ?? 0}, created ${s.created ?? 0}, not created ${s.not_created ?? 0}`,
    );
  }
  if (res.status >= 400)
    throw new ApiError(`${s.invalid ?? res.data.errors?.length ?? 0} rule(s) refused; none was added`, {
      status: res.status,
    });
}
