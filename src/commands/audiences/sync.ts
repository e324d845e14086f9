// `xctl audiences sync <audience-id> <file|->`: keep an audience's members equal to a file by
// sending only the difference from the last acknowledged state (src/audiences/sync.ts).
import path from 'node:path';
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { AuthError, UsageError } from '../../core/errors.js';
import { printOne } from '../../core/output.js';
import { declare } from '../define.js';
import { USERS_PER_REQUEST } from '../../contract/audience-users.js';
import { ADS_ID } from '../../contract/ids.js';
import { inputOptions, parseInputFlags, positiveInt, refuseBinary, type InputFlags } from './input-flags.js';
import { resolveStateDir, STATE_DIR_OPTION } from './state-dir.js';
import { withPartialSummary } from './partial.js';
import { REPORT_OPTION, withRunReport } from './run-report.js';
import { readSavedPlan, writeSavedPlan } from './saved-plan.js';
import type { SavedPlanCheck } from '../../audiences/sync.js';

export interface SyncFlags extends InputFlags {
  batchSize: string;
  concurrency: string;
  rejects?: string;
  plan?: boolean;
  rebuild?: boolean;
  refresh?: boolean;
  fromUpload?: string;
  maxRejectRate?: string;
  stateDir?: string;
  adopt?: boolean;
  maxRemoves?: string;
  out?: string;
  apply?: string;
  report?: string;
  allowEmpty?: boolean;
  abandon?: boolean;
}

export interface SyncCommandOptions extends SyncFlags {
  /** Both may be left out with --apply (the saved plan names them). */
  audienceId?: string;
  file?: string;
}

/** The options once the positionals are known (given, or from the saved plan). */
type ResolvedSync = SyncFlags & { audienceId: string; file: string };

/** `xctl audiences sync <audience-id> <file>` */
export function register(audiences: Command, runF = audiencesSync): void {
  declare(audiences, {
    name: 'sync',
    description:
      'make the audience hold exactly the members of a file: sends only Updates for new members and Deletes for departed ones (file "-" reads stdin)',
    arguments: [
      ['[audience-id]', "the custom audience's id (`xctl audiences list`)"],
      [
        '[file]',
        'the full list of users the audience should hold; "-" reads stdin (both come from the plan with --apply)',
      ],
    ],
    options: [
      ...inputOptions(),
      ['--plan', 'show what would be sent and where the snapshot is; send nothing (exit 0: in sync, exit 10: changes)'],
      [
        '--rebuild',
        "send every member of the file again, remove the snapshot's members the file lacks, and check the audience's size (the way out of a stale snapshot)",
      ],
      [
        '--abandon',
        'drop an interrupted sync instead of finishing it; the file is synced whole (the snapshot is kept as the basis of removals)',
      ],
      ['--allow-empty', 'a file without data rows may remove every member (refused otherwise)'],
      ['--refresh', 'send every member again (their 13-month expiry starts over), and remove departed ones'],
      [
        '--from-upload <journal>',
        'seed the snapshot from a finished upload (its --journal file) instead of sending it all again',
      ],
      ['--batch-size <n>', 'users per request', String(USERS_PER_REQUEST.default)],
      ['--concurrency <n>', 'requests in flight', '4'],
      ['--rejects <file>', 'write rejected rows (line, column, reason) as csv'],
      [
        '--max-reject-rate <rate>',
        'refuse the sync when more than this share (0-1) of the values is rejected (default 0.2 past 1,000 values; 1 turns it off)',
      ],
      STATE_DIR_OPTION,
      [
        '--adopt',
        'accept members no snapshot knows (a first sync to an audience with members, or one changed by hand): the file is sent whole, those stay, and the sync exits 5 while any do',
      ],
      [
        '--max-removes <N|P%>',
        'refuse (exit 2, nothing sent) to remove more members than this; default without a terminal: 10% of the audience; 100% turns it off',
      ],
      [
        '--out <plan.json>',
        'with --plan: save the plan, for `--apply` (review it on a pull request, apply it on merge)',
      ],
      [
        '--apply <plan.json>',
        'send exactly a plan saved by --plan --out; refused (exit 2, nothing sent) if the input or the snapshot changed since',
      ],
      REPORT_OPTION,
    ],
    run: (ctx, flags, [audienceId, file]) => runF(ctx, { ...flags, audienceId, file }),
  });
}

/** --apply: the options come from the saved plan; positionals, when given, must name the same. */
function applySavedPlan(o: SyncCommandOptions): {
  o: ResolvedSync;
  check?: SavedPlanCheck;
  account?: string;
  profile?: string;
} {
  if (!o.apply) {
    if (o.audienceId === undefined || o.file === undefined)
      throw new UsageError(
        `missing ${o.audienceId === undefined ? '<audience-id>' : '<file>'}: sync <audience-id> <file>, or sync --apply plan.json`,
        { flag: '<file>' },
      );
    if (o.out !== undefined && !o.plan)
      throw new UsageError('--out saves a plan: use it with --plan', { flag: '--out' });
    if (o.out !== undefined && o.file === '-')
      throw new UsageError('a saved plan must read its input again when applied: stdin cannot be; give a file', {
        flag: '--out',
      });
    return { o: { ...o, audienceId: o.audienceId, file: o.file } };
  }
  if (o.plan || o.rebuild || o.fromUpload || o.refresh)
    throw new UsageError(
      '--apply sends a saved plan as it is: --plan, --rebuild, --refresh and --from-upload do not go with it',
      { flag: '--apply' },
    );
  const { sync, check } = readSavedPlan(o.apply);
  for (const [given, planned, name] of [
    [o.audienceId, sync.audienceId, '<audience-id>'],
    [o.file && path.resolve(o.file), sync.file, '<file>'],
  ] as const) {
    if (given !== undefined && given !== planned)
      throw new UsageError(`${name} ${given} is not the plan's (${planned})`, { flag: '--apply' });
  }
  const { account, profile, ...flags } = sync;
  return { o: { ...o, ...flags, audienceId: sync.audienceId, file: sync.file }, check, account, profile };
}

/** Where the snapshot starts: --rebuild (empty), --from-upload (an upload), --adopt (the audience): one only. */
function checkSnapshotFlags(o: SyncCommandOptions): void {
  if (o.rebuild && o.fromUpload)
    throw new UsageError(
      '--rebuild and --from-upload are exclusive: one starts the snapshot empty, the other from an upload',
      { flag: '--from-upload' },
    );
  if (o.adopt && (o.rebuild || o.fromUpload))
    throw new UsageError(
      '--adopt, --rebuild and --from-upload are exclusive: each says what to make of the members no snapshot knows',
      { flag: '--adopt' },
    );
}

/** --plan --out FILE: the plan and the flags it was made with, for --apply. */
function savePlan(
  ctx: Context,
  out: string,
  o: ResolvedSync,
  r: { accountId: string; profile: string; stateDir?: string; summary: Parameters<typeof writeSavedPlan>[2] },
): void {
  const { accountId, profile, stateDir, summary } = r;
  const planned = {
    audienceId: o.audienceId,
    account: accountId,
    profile,
    file: o.file,
    type: o.type,
    column: o.column,
    format: o.format,
    hashed: o.hashed,
    defaultCountry: o.defaultCountry,
    batchSize: o.batchSize,
    adopt: o.adopt,
    maxRemoves: o.maxRemoves,
    stateDir,
  };
  writeSavedPlan(out, planned, summary, ctx.clock.now());
  ctx.io.info(`plan saved to ${out}: apply it with \`xctl audiences sync --apply ${out}\``);
}

/** POST /12/accounts/:account_id/custom_audiences/:id/users (only the difference). */
export async function audiencesSync(ctx: Context, given: SyncCommandOptions): Promise<void> {
  const saved = applySavedPlan(given);
  const o = saved.o;
  if (!ADS_ID.test(o.audienceId))
    throw new UsageError(`<audience-id> must be an id of letters and digits (got "${o.audienceId}")`, {
      flag: '<audience-id>',
    });
  const { columns, defaultCountry } = await parseInputFlags(o);
  const batchSize = positiveInt(o.batchSize, '--batch-size', USERS_PER_REQUEST.max);
  const concurrency = positiveInt(o.concurrency, '--concurrency', 64);
  const { parseRejectGate } = await import('../../audiences/gate.js');
  const gate = parseRejectGate(o.maxRejectRate);
  checkSnapshotFlags(o);
  if (o.maxRemoves !== undefined) {
    const { parseMaxRemoves } = await import('../../audiences/sync-guards.js');
    parseMaxRemoves(o.maxRemoves);
  }
  const stateDir = resolveStateDir(ctx, o.stateDir);
  if (o.plan && o.fromUpload)
    throw new UsageError('--from-upload writes the snapshot: run it without --plan', { flag: '--from-upload' });
  // The snapshot is per profile and account: both are known without the network.
  const accountId = await ctx.accountId();
  const profile = await ctx.profileName();
  if (saved.check && (saved.account !== accountId || saved.profile !== profile)) {
    throw new UsageError(
      `the plan ${given.apply} was made for account ${saved.account} of profile "${saved.profile}", not ${accountId} of "${profile}"`,
      { flag: '--apply' },
    );
  }
  if (!o.plan) {
    const c = await ctx.credentials();
    if (!c.api_key || !c.api_secret || !c.access_token || !c.access_token_secret) {
      throw new AuthError(
        'sync sends uploads: it needs OAuth 1.0a user credentials (API key and secret, access token and secret)',
        {
          hint: 'run `xctl auth set ...` or `xctl auth login`, or set the XCTL_* variables; --plan needs none',
        },
      );
    }
  }
  await refuseBinary(o.file);
  const { runSync, planExit, SYNC_FIELDS } = await import('../../audiences/sync.js');
  const configDir = stateDir ?? (await ctx.store()).folder('the sync snapshot');
  const report = {
    file: o.report,
    kind: 'sync' as const,
    accountId,
    audienceId: o.audienceId,
    listId: o.audienceId,
    input: o.file,
    rejects: o.rejects,
    sendsNothing: !!o.plan,
    others: [o.out, o.apply],
  };
  const summary = await withRunReport(ctx, report, (rejects) =>
    withPartialSummary(ctx, SYNC_FIELDS, () =>
      runSync(ctx, {
        audienceId: o.audienceId,
        accountId,
        profile,
        configDir,
        input: o.file,
        format: o.format as never,
        columns,
        hashed: !!o.hashed,
        defaultCountry,
        batchSize,
        concurrency,
        rejects,
        plan: !!o.plan,
        rebuild: !!o.rebuild,
        refresh: !!o.refresh,
        fromUpload: o.fromUpload,
        lenientQuotes: !!o.lenientQuotes,
        gate,
        stateDir,
        adopt: !!o.adopt,
        maxRemoves: o.maxRemoves,
        expect: saved.check,
        allowEmpty: !!o.allowEmpty,
        abandon: !!o.abandon,
      }),
    ),
  );
  if (o.plan && o.out !== undefined) savePlan(ctx, o.out, o, { accountId, profile, stateDir, summary });
  await printOne(ctx.io, await ctx.output(), { ...summary }, { columns: SYNC_FIELDS, knownFields: SYNC_FIELDS });
  if (o.plan) {
    const changes = planExit(summary);
    if (changes) throw changes;
  }
}
