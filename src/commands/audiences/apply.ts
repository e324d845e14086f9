// `xctl audiences apply -f audiences.yaml [--plan]`: keep every audience a file lists, on one or
// more ads accounts, equal to its source (src/audiences/apply/). Plan: exit 10 when anything
// would change, 0 when nothing. Apply: exit 0 only when every audience equals its source.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import {
  AuthError,
  DivergedError,
  errnoCode,
  InterruptedError,
  PartialError,
  PlanHasChanges,
  UsageError,
} from '../../core/errors.js';
import { effectiveFormat, printJson, printList } from '../../core/output.js';
import { processAlive } from '../../core/file-lock.js';
import { ensurePrivateFolder } from '../../core/store-guard.js';
import { USERS_PER_REQUEST } from '../../contract/audience-users.js';
import type { AudiencePlan, ApplyEnv } from '../../audiences/apply/plan.js';
import type { AudienceResult } from '../../audiences/apply/run.js';
import type { AudienceSpec } from '../../audiences/apply/schema.js';
import { declare } from '../define.js';
import { positiveInt } from './input-flags.js';
import { listOf } from '../../contract/guards.js';

export interface ApplyOptions {
  file?: string;
  plan?: boolean;
  schema?: boolean;
  only?: string[];
  prune?: boolean;
  adopt?: boolean;
  maxRemoves?: string;
  stateDir?: string;
  allowCommands?: boolean;
  trust?: boolean;
  batchSize: string;
  concurrency: string;
  allowEmpty?: boolean;
}

/** `xctl audiences apply -f FILE` */
export function register(audiences: Command, runF = audiencesApply): void {
  declare(audiences, {
    name: 'apply',
    description:
      'keep the audiences a YAML file lists (several accounts) equal to their sources: create, sync members, share; --plan shows what would change',
    options: [
      ['-f, --file <path>', 'the audiences file (YAML; `--schema` prints its JSON Schema)'],
      ['--plan', 'show what would change, per audience, and drift; send nothing (exit 0: nothing, exit 10: changes)'],
      ['--schema', 'print the JSON Schema of the audiences file and exit'],
      { flags: '--only <name>', description: 'only this audience of the file (repeatable)', repeatable: true },
      [
        '--prune',
        'also delete audiences an earlier apply created that the file no longer lists (on the accounts it names)',
      ],
      ['--adopt', 'allow the first sync to audiences that already have members (as `audiences sync --adopt`)'],
      [
        '--max-removes <n|p%>',
        "refuse an audience whose sync would remove more members (every audience, over the file's max_removes; default without a terminal: 10%; 100% turns it off)",
      ],
      [
        '--state-dir <dir>',
        'where snapshots and the apply state live (env XCTL_STATE_DIR; default: beside the config)',
      ],
      ['--allow-commands', "run the file's `command` sources in this run (they run as you: read them first)"],
      [
        '--trust',
        "trust this exact file's commands (its SHA-256, kept in the config folder) for later runs, then exit",
      ],
      ['--allow-empty', 'a source without data rows may remove every member of its audience (refused otherwise)'],
      ['--batch-size <n>', 'users per request', String(USERS_PER_REQUEST.default)],
      ['--concurrency <n>', 'requests in flight per audience', '4'],
    ],
    run: (ctx, o) => runF(ctx, o),
  });
}

/** GET/POST/PUT/DELETE /12/accounts/:account_id/custom_audiences (+ permissions, do_not_reach_lists, users) */
export async function audiencesApply(ctx: Context, o: ApplyOptions): Promise<void> {
  if (o.schema) {
    const { applyJsonSchema } = await import('../../audiences/apply/schema.js');
    return printJson(ctx.io, await ctx.output(), applyJsonSchema());
  }
  if (!o.file)
    throw new UsageError('-f FILE is required: the audiences file (`--schema` prints its JSON Schema)', { flag: '-f' });
  if (o.prune && o.only?.length)
    throw new UsageError(
      '--prune and --only are exclusive: pruning needs the whole file to know what it no longer lists',
      { flag: '--prune' },
    );
  const batchSize = positiveInt(o.batchSize, '--batch-size', USERS_PER_REQUEST.max);
  const concurrency = positiveInt(o.concurrency, '--concurrency', 64);
  if (o.maxRemoves !== undefined) {
    const { parseMaxRemoves } = await import('../../audiences/sync-guards.js');
    parseMaxRemoves(o.maxRemoves);
  }
  const { loadApplyFile, readApplyFile } = await import('../../audiences/apply/schema.js');
  const file = path.resolve(ctx.cwd, o.file);
  const text = readApplyFile(file);
  const all = await loadApplyFile(file, () => ctx.accountId(), text);
  if (o.trust) return trust(ctx, file, text, all);
  const specs = only(all, o.only ?? [], o.file);
  await gateCommands(ctx, o, file, text, specs);
  const c = await ctx.credentials();
  if (!c.api_key || !c.api_secret || !c.access_token || !c.access_token_secret) {
    throw new AuthError(
      'apply reads and changes audiences: it needs OAuth 1.0a user credentials (API key and secret, access token and secret)',
      {
        hint: 'run `xctl auth set ...` or `xctl auth login`, or set the XCTL_* variables',
      },
    );
  }
  const profile = await ctx.profileName();
  const stateRoot = path.resolve(
    ctx.cwd,
    o.stateDir ?? ctx.env.XCTL_STATE_DIR ?? (await ctx.store()).folder('the snapshots and the apply state'),
  );
  const tmpParent = path.join(stateRoot, 'audiences');
  // Read back before anything is planned (the apply state decides what --prune deletes).
  try {
    ensurePrivateFolder(tmpParent);
  } catch (e) {
    const code = errnoCode(e);
    if (!code) throw e;
    throw new UsageError(`cannot create the state folder ${tmpParent} (${code}): nothing was sent`, {
      flag: '--state-dir',
      hint: 'choose a folder this user can write to with --state-dir or XCTL_STATE_DIR',
    });
  }
  const env: ApplyEnv = {
    profile,
    stateRoot,
    tmpDir: path.join(tmpParent, `.apply-${process.pid}`),
    batchSize,
    concurrency,
    adopt: !!o.adopt,
    maxRemoves: o.maxRemoves,
    unattended: ctx.io.unattended,
    allowEmpty: !!o.allowEmpty,
  };
  sweepTmp(tmpParent);
  try {
    const rows = await planAll(ctx, env, specs, !!o.prune);
    if (o.plan) return await reportPlan(ctx, rows);
    // At a terminal, removals past 10% are confirmed one audience at a time (--yes answers).
    for (const r of rows) {
      if (!r.ask || r.refused || r.error) continue;
      if (!(await ctx.confirm(r.ask))) r.refused = 'its removals were not confirmed at the terminal';
    }
    const { applyPlan } = await import('../../audiences/apply/run.js');
    const results = await applyPlan(ctx, env, rows);
    await reportApply(ctx, results);
  } finally {
    fs.rmSync(env.tmpDir, { recursive: true, force: true });
  }
}

/** --trust: records the file's text as trusted to run its commands, and says which commands. */
async function trust(ctx: Context, file: string, text: string, specs: AudienceSpec[]): Promise<void> {
  const { textHash, trustFile } = await import('../../audiences/apply/trust.js');
  const configDir = (await ctx.store()).folder('the list of trusted audiences files');
  const sha256 = textHash(text);
  trustFile(configDir, file, sha256, new Date(ctx.clock.now()));
  const commands = specs.filter((s) => 'command' in s.source);
  ctx.io.info(
    `trusted ${file} (sha256 ${sha256}): its ${commands.length} commands run on plans and applies until the file changes`,
  );
}

/** The file's commands run only when allowed (trust.ts): checked before anything runs. */
async function gateCommands(ctx: Context, o: ApplyOptions, file: string, text: string, specs: AudienceSpec[]) {
  if (!specs.some((s) => 'command' in s.source)) return;
  const { checkCommands, readTrustList, textHash } = await import('../../audiences/apply/trust.js');
  const store = await ctx.store();
  let configDir: string | undefined;
  try {
    configDir = store.folder('the list of trusted audiences files');
  } catch {
    configDir = undefined; // no config folder: nothing is trusted, --allow-commands still works
  }
  checkCommands(specs, {
    file,
    sha256: textHash(text),
    plan: !!o.plan,
    allowCommands: !!o.allowCommands,
    trusted: readTrustList(configDir),
  });
}

/** --only: each name must be in the file (a typo would otherwise apply nothing and exit 0). */
function only(specs: AudienceSpec[], names: string[], file: string): AudienceSpec[] {
  if (!names.length) return specs;
  for (const n of names)
    if (!specs.some((s) => s.name === n))
      throw new UsageError(`--only: ${file} lists no audience named "${n}"`, { flag: '--only' });
  return specs.filter((s) => names.includes(s.name));
}

/** Command outputs of killed applies (they hold members: never left behind longer than needed). */
function sweepTmp(dir: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) {
    const m = /^\.apply-(\d+)$/.exec(n);
    if (m && !processAlive(Number(m[1]))) fs.rmSync(path.join(dir, n), { recursive: true, force: true });
  }
}

async function planAll(ctx: Context, env: ApplyEnv, specs: AudienceSpec[], prune: boolean): Promise<AudiencePlan[]> {
  const { planAccount, planPrune } = await import('../../audiences/apply/plan.js');
  const accounts = [...new Set(specs.map((s) => s.account))];
  const perAccount = await Promise.all(
    accounts.map(async (a) => {
      const rows = await planAccount(
        ctx,
        env,
        a,
        specs.filter((s) => s.account === a),
      );
      return prune ? [...rows, ...(await planPrune(ctx, env, a, rows))] : rows;
    }),
  );
  if (ctx.signal.aborted) throw new InterruptedError('interrupted while planning: nothing was changed');
  // The file's order, whatever order the accounts finished in; pruned ones last.
  const order = (r: AudiencePlan) => (r.spec ? specs.indexOf(r.spec) : specs.length);
  return perAccount.flat().sort((a, b) => order(a) - order(b));
}

async function reportPlan(ctx: Context, rows: AudiencePlan[]): Promise<void> {
  const { publicRow, PLAN_FIELDS } = await import('../../audiences/apply/plan.js');
  const out = await ctx.output();
  const pub = rows.map(publicRow);
  if (effectiveFormat(ctx.io, out) === 'json' || out.jq !== undefined) await printJson(ctx.io, out, { audiences: pub });
  else {
    const flat = pub.map((r) => ({
      ...r,
      grants: listOf(r.grants).join(','),
      revokes: listOf(r.revokes).join(','),
      drift: listOf(r.drift).join('; '),
    }));
    await printList(ctx.io, out, flat, { columns: PLAN_FIELDS, knownFields: PLAN_FIELDS });
  }
  const failed = rows.filter((r) => r.error || r.refused);
  for (const r of failed)
    ctx.io.warn(
      `audience "${r.name}" (account ${r.account}): ${r.error?.message ?? `apply would refuse it: ${r.refused}`}`,
    );
  const first = rows.find((r) => r.error)?.error;
  if (first) throw first;
  const changing = rows.filter((r) => r.action !== 'none');
  const drift = rows.reduce((n, r) => n + r.drift.length, 0);
  ctx.io.info(`plan: ${changing.length} of ${rows.length} audiences would change${drift ? `; ${drift} drift` : ''}`);
  // A plan whose apply would refuse an audience fails the plan gate as sync --plan's guard does.
  const refused = rows.filter((r) => r.refused);
  if (refused.length)
    throw new UsageError(
      `${refused.length} of ${rows.length} audiences would be refused by apply: ${refused.map((r) => `"${r.name}"`).join(', ')}`,
      {
        flag: refused.some((r) => r.refused?.includes('max_reject_rate')) ? '-f' : '--max-removes',
        hint: 'the reasons are above: check their sources, or if the removals are meant pass --max-removes or raise max_removes in the file',
      },
    );
  if (changing.length) throw new PlanHasChanges(`${changing.length} audiences would change`);
}

async function reportApply(ctx: Context, results: AudienceResult[]): Promise<void> {
  const { RESULT_FIELDS } = await import('../../audiences/apply/run.js');
  const out = await ctx.output();
  const pub = results.map(({ cause: _cause, ...r }) => r);
  const sum = (k: 'adds' | 'removes' | 'grants' | 'revokes' | 'acknowledged') => results.reduce((n, r) => n + r[k], 0);
  const failed = results.filter((r) => r.status !== 'ok');
  const total = {
    audiences: results.length,
    ok: results.length - failed.length,
    failed: failed.length,
    adds: sum('adds'),
    removes: sum('removes'),
    grants: sum('grants'),
    revokes: sum('revokes'),
    acknowledged: sum('acknowledged'),
  };
  if (effectiveFormat(ctx.io, out) === 'json' || out.jq !== undefined)
    await printJson(ctx.io, out, { audiences: pub, total });
  else await printList(ctx.io, out, pub, { columns: RESULT_FIELDS, knownFields: RESULT_FIELDS });
  ctx.io.info(
    `total: ${total.ok} of ${total.audiences} audiences equal their sources; ${total.adds} adds, ${total.removes} removes, ${total.grants} grants, ${total.revokes} revokes`,
  );
  if (!failed.length) return;
  if (ctx.signal.aborted)
    throw new InterruptedError(
      `interrupted: ${failed.length} audiences unfinished; run the same apply again to finish them`,
    );
  const causes = failed.map((r) => r.cause).filter((e): e is Error => !!e);
  if (causes.length && causes.length === failed.length && causes.every((e) => e instanceof AuthError)) throw causes[0]!;
  const refused = failed.filter((r) => r.status === 'refused');
  // A refusal is exit 2 as sync's guards are, whatever else was applied: running the same apply
  // again would refuse it again (a retry on 4 must not loop), the source or the limit must change.
  if (refused.length) throw refusedError(results, failed, refused);
  // The service refused something for good (HTTP 400: a share_with account that is no ads
  // account...): the same apply would fail again, so it is bad input (2) naming the field, not 4.
  const permanent = failed.filter((r) => r.cause && 'status' in r.cause && r.cause.status === 400);
  if (permanent.length && permanent.length === failed.length) throw permanentError(results, permanent);
  // Applied, but some audiences do not equal their sources (members no state knows, rejected
  // rows): exit 5 as sync's, each row says why.
  const diverged = failed.filter((r) => r.status === 'diverged');
  if (diverged.length === failed.length)
    throw new DivergedError(
      `${diverged.length} of ${results.length} audiences do not equal their sources: ${diverged.map((r) => `"${r.name}"`).join(', ')}`,
      { hint: 'the reasons are above, per audience' },
    );
  // Nothing changed anywhere: the first failure says what is wrong, with its own exit code.
  const changed = results.some((r) => r.status === 'ok' && r.action !== 'none');
  if (!changed && causes.length === failed.length && causes.length) throw causes[0]!;
  const names = failed.map((r) => `"${r.name}"`).join(', ');
  throw new PartialError(`${failed.length} of ${results.length} audiences do not equal their sources: ${names}`, {
    hint: 'fix what is reported above and run the same apply again: interrupted syncs resume where they stopped',
  });
}

/** In the file's words: the service's parameter, and the key of audiences.yaml that sets it. */
const FILE_KEY_OF: Record<string, string> = { granted_account_id: 'share_with', permission_level: 'share_with' };

/** Audiences the service refused for good (HTTP 400): exit 2, the field named. */
function permanentError(results: AudienceResult[], permanent: AudienceResult[]): UsageError {
  const cause = permanent[0]!.cause;
  const parameter = cause && 'parameter' in cause && typeof cause.parameter === 'string' ? cause.parameter : undefined;
  const key = parameter ? FILE_KEY_OF[parameter] : undefined;
  const field = parameter ? ` (${parameter}${key ? `: ${key} in the file` : ''})` : '';
  return new UsageError(
    `${permanent.length} of ${results.length} audiences refused by the service: ` +
      permanent.map((r) => `"${r.name}": ${r.cause!.message}`).join('; '),
    {
      parameter,
      hint: `the service refuses this every time: fix the file${field}, then run the same apply again`,
    },
  );
}

/** Audiences a guard refused (nothing sent for them), with what else did not finish. */
function refusedError(results: AudienceResult[], failed: AudienceResult[], refused: AudienceResult[]): UsageError {
  const names = (l: AudienceResult[]) => l.map((r) => `"${r.name}"`).join(', ');
  const others = failed.filter((r) => r.status !== 'refused');
  const applied = results.length - failed.length;
  return new UsageError(
    `${refused.length} of ${results.length} audiences refused, nothing was sent for them: ${names(refused)}` +
      (others.length ? `; ${others.length} failed: ${names(others)}` : '') +
      (applied ? `; ${applied} applied` : ''),
    {
      flag: refused.some((r) => r.error?.includes('max_reject_rate')) ? '-f' : '--max-removes',
      hint:
        'check their sources (the reasons are above); if the removals are meant, pass ' +
        '--max-removes or raise max_removes in the file, then run the same apply again',
    },
  );
}
