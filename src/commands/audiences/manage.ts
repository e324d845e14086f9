// `xctl audiences list|get|create|update|delete|targeted`, `permissions`, `flexible create`,
// `do-not-reach create|list|delete` and `estimate`: generated from the audience resources of the
// ads table (src/ads/resources/audiences.ts) like every ads command, plus the few bespoke steps.
import { Option, type Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../core/errors.js';
import { resourceByName } from '../../ads/resources.js';
import type { OperationDef, ResourceDef } from '../../ads/resource-types.js';
import { validateParams } from '../../ads/params.js';
import { checkBatch } from '../../ads/batch.js';
import { leavesWithoutNegate } from '../../ads/resources/audience-rules.js';
import { addOperation, optionsFor } from '../ads/index.js';
import { attributeOf, checkPositionals, positionalsOf, rawFromOpts, runOperation, sendBatch, sendJsonBody, violationError } from '../ads/run.js';
import { parseJsonInput, readInputArg, run } from '../kit.js';

function resource(name: string): ResourceDef {
  const r = resourceByName(name);
  if (!r) throw new Error(`no ads resource ${name}`);
  return r;
}

function operation(r: ResourceDef, verb: string): OperationDef {
  const op = r.operations.find((o) => o.verb === verb);
  if (!op) throw new Error(`no ${r.name} ${verb}`);
  return op;
}

const IMMUTABLE_HINT = 'flexible audiences are immutable once created (ads-api.md section 3): create a new one with `xctl audiences flexible create` and delete the old one';

/** GET /12/accounts/:account_id/custom_audiences/:id: the audience as the account sees it. */
async function fetchAudience(ctx: Context, id: string): Promise<Record<string, unknown>> {
  const res = await (await ctx.http()).request<{ data?: Record<string, unknown> }>({
    method: 'GET',
    host: 'ads',
    path: `/12/accounts/${encodeURIComponent(await ctx.accountId())}/custom_audiences/${encodeURIComponent(id)}`,
    auth: 'user',
  });
  return res.data?.data ?? {};
}

/** Refuses, before any change is sent, to update an audience that is flexible (one read first). */
async function refuseFlexible(ctx: Context, id: string, where: string): Promise<void> {
  const aud = await fetchAudience(ctx, id);
  if (aud.audience_type === 'FLEXIBLE') throw new UsageError(`${where}: custom audience ${id} ("${String(aud.name)}") is a flexible audience; ${IMMUTABLE_HINT}`, { code: 'IMMUTABLE' });
}

export function registerManage(audiences: Command, doNotReach: Command): void {
  audiences.description('custom audiences: manage, share, combine, estimate; bulk hashed user uploads; do-not-reach lists');
  const ca = resource('custom_audiences');
  for (const verb of ['list', 'get', 'create', 'update', 'delete', 'targeted']) {
    const op = operation(ca, verb);
    const sub = addOperation(audiences, ca, op);
    if (verb === 'update') {
      // Client side of "flexible audiences are immutable": check the flags, then look first.
      sub.action(
        run(async (ctx, opts, args) => {
          const o = opts as Record<string, unknown>;
          const raw = rawFromOpts(op, o);
          const { violations } = validateParams(op.params, raw, op.rules, { nowMs: ctx.clock.now() });
          if (violations.length) throw violationError(violations[0]!, op.params, raw);
          checkPositionals(ca, op, args);
          await refuseFlexible(ctx, args[0]!, 'audiences update');
          await runOperation(ctx, ca, op, o, args);
        }),
      );
    }
  }
  registerPermissions(audiences.command('permissions').description('who a custom audience is shared with: list, grant, revoke (--tailored for the /5 tailored audiences)'));
  registerFlexible(audiences.command('flexible').description('flexible audiences: combinations of custom audiences (closed beta; immutable once created)'));
  const dnr = resource('do_not_reach_lists');
  for (const op of dnr.operations) addOperation(doNotReach, dnr, op);
  registerEstimate(audiences);
}

/**
 * `permissions list|grant|revoke <audience-id> [<permission-id>]`: the /12 custom audience
 * operations, or with --tailored the /5 tailored audience ones; flags are the union of both.
 */
function registerPermissions(perms: Command): void {
  const custom = resource('custom_audience_permissions');
  const tailored = resource('tailored_audience_permissions');
  for (const verb of ['list', 'grant', 'revoke']) {
    const ops = { custom: operation(custom, verb), tailored: operation(tailored, verb) };
    const sub = perms.command(verb).description(`${ops.custom.description} — ${ops.custom.method} /12${ops.custom.path} (or /5${ops.tailored.path} with --tailored)`);
    sub.argument('<audience-id>', 'custom (or tailored) audience id');
    if (verb === 'revoke') sub.argument('<permission-id>', 'permission id (from `permissions list`)');
    const seen = new Set<string>();
    for (const d of [...ops.custom.params, ...ops.tailored.params]) {
      if (seen.has(d.name)) continue;
      seen.add(d.name);
      for (const o of optionsFor(d)) sub.addOption(o);
    }
    sub.option('--tailored', 'use the /5 tailored audience permissions endpoint');
    if (verb === 'list') {
      sub.option('--all', 'follow next_cursor through every page');
      sub.option('--limit <n>', 'stop after n records (follows pages)');
    }
    sub.action(
      run(async (ctx, opts, args) => {
        const o = opts as Record<string, unknown>;
        const which = o.tailored ? 'tailored' : 'custom';
        const op = ops[which];
        const other = ops[which === 'custom' ? 'tailored' : 'custom'];
        for (const d of other.params) {
          if (!op.params.some((x) => x.name === d.name) && o[attributeOf(d.flag)] !== undefined) {
            throw new UsageError(`${d.flag} ${which === 'custom' ? 'needs --tailored' : 'cannot be used with --tailored'}`, { flag: d.flag });
          }
        }
        const r = which === 'custom' ? custom : tailored;
        if (positionalsOf(r, op).length !== args.length) throw new UsageError('wrong number of arguments');
        await runOperation(ctx, r, op, o, args);
      }),
    );
  }
}

interface BatchItem {
  operation_type?: unknown;
  params?: Record<string, unknown>;
}

/**
 * The spec file of `flexible create`: the batch body itself (an array of {operation_type,
 * params}), or one or more bare audiences ({name, segments, ...}), which become Create items
 * with audience_type FLEXIBLE unless they say otherwise.
 */
export function flexibleItems(spec: unknown): unknown[] {
  const list = Array.isArray(spec) ? spec : [spec];
  return list.map((x) => {
    if (!x || typeof x !== 'object' || Array.isArray(x) || 'operation_type' in x) return x;
    return { operation_type: 'Create', params: { audience_type: 'FLEXIBLE', ...(x as Record<string, unknown>) } };
  });
}

function registerFlexible(flexible: Command): void {
  const ca = resource('custom_audiences');
  const op = operation(ca, 'batch');
  flexible
    .command('create')
    .description(`create flexible audiences from a spec file (up to 10 per request, at most 10 custom audiences each) — POST /12${op.path}`)
    .requiredOption('--file <path>', 'the spec: one audience {"name","segments":{...}}, an array of them, or the batch body; - for stdin')
    .action(
      run(async (ctx, opts) => {
        const o = opts as { file: string };
        const items = flexibleItems(parseJsonInput(await readInputArg(ctx, o.file, '--file'), '--file', 'flexible audience spec'));
        for (const [i, item] of items.entries()) {
          const it = item as BatchItem | null;
          if (it?.operation_type !== 'Update') continue;
          if (it.params?.audience_type === 'FLEXIBLE') throw new UsageError(`--file: item ${i} (Update): ${IMMUTABLE_HINT}`, { flag: '--file', code: 'IMMUTABLE' });
        }
        // Item checks first (nothing is read or sent while the file itself is wrong).
        const check = checkBatch(op, items);
        if (!check.requestErrors.length && check.itemErrors.every((e) => e.length === 0)) {
          for (const [i, item] of items.entries()) {
            const it = item as BatchItem;
            if (it.operation_type === 'Update') await refuseFlexible(ctx, String(it.params?.custom_audience_id), `--file: item ${i} (Update)`);
            for (const path of leavesWithoutNegate(it.params?.segments)) {
              ctx.io.warn(`item ${i}: ${path} has no "negate": the spec's default is true, which EXCLUDES that audience; say "negate": false to include it`);
            }
          }
        }
        await sendBatch(ctx, ca, op, items, [], op.columns ?? ca.columns);
      }),
    );
}

/** `estimate --targeting file.json [--operator EQ|NE]`: POST audience_estimate. */
function registerEstimate(audiences: Command): void {
  const r = resource('audience_estimates');
  const op = operation(r, 'estimate');
  audiences
    .command('estimate')
    .description(`estimate the audience size of a targeting (at least one primary criterion) — POST /12${op.path}`)
    .requiredOption('--targeting <file>', 'targeting criteria: a JSON array of {"targeting_type","targeting_value"[,"operator_type"]}, or {"targeting_criteria":[...]}; - for stdin')
    .addOption(new Option('--operator <type>', 'EQ (default) or NE: NE negates the whole targeting'))
    .action(
      run(async (ctx, opts) => {
        const o = opts as { targeting: string; operator?: string };
        const spec = parseJsonInput(await readInputArg(ctx, o.targeting, '--targeting'), '--targeting', 'targeting');
        const body: Record<string, unknown> = Array.isArray(spec) ? { targeting_criteria: spec } : { ...(spec as Record<string, unknown>) };
        if (o.operator !== undefined) {
          const v = validateParams(op.params.filter((d) => d.name === 'operator_type'), { operator_type: o.operator });
          if (v.violations.length) throw new UsageError(`--operator ${v.violations[0]!.message} (got "${o.operator}")`, { flag: '--operator' });
          body.operator_type = o.operator;
        }
        await sendJsonBody(ctx, r, op, body, [], op.columns ?? r.columns, '--targeting');
      }),
    );
}
