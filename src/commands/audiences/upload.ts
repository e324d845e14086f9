// `xctl audiences upload` and `xctl audiences do-not-reach upload`: bulk hashed user uploads.
// This file parses and checks the flags (every rule before anything is sent); the pipeline
// lives in src/audiences/.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { AuthError, UsageError } from '../../core/errors.js';
import { printOne } from '../../core/output.js';
import { declare } from '../define.js';
import {
  DO_NOT_REACH_TYPES,
  EXPIRY_MONTHS,
  UPLOAD_ENDPOINTS,
  UPLOAD_BODY_BYTES,
  USERS_PER_REQUEST,
  operationInput,
  type UploadTarget,
} from '../../contract/audience-users.js';
import { checkInput } from '../../core/check-input.js';
import { ADS_ID } from '../../contract/ids.js';
import { parseIsoTime } from '../../contract/time.js';
import {
  GATE_OPTION,
  inputOptions,
  parseInputFlags,
  positiveInt,
  refuseBinary,
  type InputFlags,
} from './input-flags.js';
import { resolveStateDir, STATE_DIR_OPTION } from './state-dir.js';
import { withPartialSummary } from './partial.js';
import { REPORT_OPTION, type RunReportInfo, withRunReport } from './run-report.js';
import { isOneOf } from '../../contract/guards.js';

export interface UploadFlags extends InputFlags {
  delete?: boolean;
  effectiveAt?: string;
  expiresAt?: string;
  batchSize?: string;
  concurrency: string;
  dryRun?: boolean;
  out?: string;
  journal?: string;
  restart?: boolean;
  rejects?: string;
  strictRows?: boolean;
  maxRejectRate?: string;
  stateDir?: string;
  report?: string;
}

type Target = UploadTarget;

/** An upload's options: the flags, the list and the input named, and which kind of list it is. */
export interface UploadOptions extends UploadFlags {
  target: Target;
  /** The custom audience or do-not-reach list id. */
  listId: string;
  /** A file, or - for stdin. */
  input: string;
}

const SUMMARY_FIELDS = [
  'lines',
  'read',
  'blank',
  'joined_lines',
  'valid',
  'rejected',
  'reject_rate',
  'sent',
  'acknowledged',
  'batches',
  'retries',
  'resumed_batches',
  'changed_batches',
  'seconds',
  'records_per_s',
];

/** The flags of both uploads; the do-not-reach list takes no --effective-at. */
function uploadOptions(target: Target) {
  const custom = target === 'custom_audience';
  return [
    ...inputOptions(custom ? undefined : `what each value is: ${DO_NOT_REACH_TYPES.join(' or ')}`),
    ['--delete', 'remove the users instead of adding them (operation_type Delete)'],
    ...(custom ? ([['--effective-at <time>', 'ISO 8601 time the users take effect (default now)']] as const) : []),
    [
      '--expires-at <time>',
      `ISO 8601 expiry (default ${EXPIRY_MONTHS} months ahead; ${custom ? `after --effective-at, at most ${EXPIRY_MONTHS} months after it` : `less than ${EXPIRY_MONTHS} months ahead`})`,
    ],
    [
      '--batch-size <n>',
      `users per request (default: as many as fit in ${UPLOAD_BODY_BYTES.toLocaleString('en-US')} bytes, about 62,000 emails)`,
    ],
    ['--concurrency <n>', 'requests in flight', '4'],
    ['--dry-run', 'normalize, hash and batch, but send nothing'],
    ['--out <file>', 'with --dry-run: write each request body as one JSON line'],
    [
      '--journal <file>',
      'journal file (default: in the config folder, keyed by input and options; stdin needs one to resume)',
    ],
    ['--restart', 'ignore an existing journal and upload from the top'],
    ['--rejects <file>', 'write rejected values (line, column, reason) as csv'],
    [
      '--strict-rows',
      'reject a whole row when one of its identifiers is bad (default: keep its good ones, reject only the bad value)',
    ],
    STATE_DIR_OPTION,
    GATE_OPTION,
    REPORT_OPTION,
  ] as const;
}

const FILE_ARG = ['<file>', 'csv, tsv, plain lines or jsonl; "-" reads stdin'] as const;

/** `xctl audiences upload <audience-id> <file>` */
export function register(audiences: Command, runF = audiencesUpload): void {
  declare(audiences, {
    name: 'upload',
    description: 'upload users to a custom audience: normalize, hash, batch, send; resumable (file "-" reads stdin)',
    arguments: [['<audience-id>', "the custom audience's id (`xctl audiences list`)"], FILE_ARG],
    options: uploadOptions('custom_audience'),
    run: (ctx, flags, [listId, input]) => runF(ctx, { ...flags, target: 'custom_audience', listId, input }),
  });
}

/** `xctl audiences do-not-reach upload <list-id> <file>`: the same verb for the do-not-reach list. */
export function registerDoNotReach(dnr: Command, runF = audiencesUpload): void {
  declare(dnr, {
    name: 'upload',
    description: `upload users (${DO_NOT_REACH_TYPES.join(', ')}) to the do-not-reach list; resumable (file "-" reads stdin)`,
    arguments: [['<list-id>', "the do-not-reach list's id"], FILE_ARG],
    options: uploadOptions('do_not_reach_list'),
    run: (ctx, flags, [listId, input]) => runF(ctx, { ...flags, target: 'do_not_reach_list', listId, input }),
  });
}

/**
 * --effective-at and --expires-at (ISO 8601) as the endpoint checks each operation (the
 * contract's validate(): the expiry after the start and within the service's window, a custom
 * audience's and a do-not-reach list's differ); the start's epoch ms, if given.
 */
function checkTimes(ctx: Context, f: UploadOptions): number | undefined {
  const input = operationInput({ delete: f.delete, effective_at: f.effectiveAt, expires_at: f.expiresAt });
  checkInput(UPLOAD_ENDPOINTS[f.target], input, {}, { now: ctx.clock.now() });
  return f.effectiveAt !== undefined ? parseIsoTime(f.effectiveAt, { loose: true }) : undefined;
}

/** What --report needs to know of the run. */
function reportInfo(f: UploadOptions, accountId: string): RunReportInfo {
  return {
    file: f.report,
    kind: 'upload',
    accountId,
    audienceId: f.target === 'custom_audience' ? f.listId : undefined,
    listId: f.listId,
    input: f.input,
    rejects: f.rejects,
    sendsNothing: !!f.dryRun,
    others: [f.out, f.journal],
  };
}

/** Checks every flag, then runs the pipeline and prints the summary. */
export async function audiencesUpload(ctx: Context, f: UploadOptions): Promise<void> {
  const { listId, input, target } = f;
  const idName = target === 'custom_audience' ? '<audience-id>' : '<list-id>';
  if (!ADS_ID.test(listId))
    throw new UsageError(`${idName} must be an id of letters and digits (got "${listId}")`, { flag: idName });
  const { columns: colReq, defaultCountry } = await parseInputFlags(f);
  const type = colReq.type;
  const columns = colReq.columns;
  // docs/contract.md, ads section 4.4: a do-not-reach list takes only email and phone_number arrays.
  const allowed = target === 'do_not_reach_list' ? DO_NOT_REACH_TYPES : undefined;
  for (const t of [type, ...columns.map((c) => c.type)]) {
    if (t && allowed && !isOneOf(allowed, t)) {
      throw new UsageError(`do-not-reach lists take only ${allowed.join(' and ')} (got ${t})`, {
        flag: type ? '--type' : '--column',
      });
    }
  }
  const eff = checkTimes(ctx, f);
  const batchSize =
    f.batchSize === undefined ? undefined : positiveInt(f.batchSize, '--batch-size', USERS_PER_REQUEST.max);
  const concurrency = positiveInt(f.concurrency, '--concurrency', 64);
  const { parseRejectGate } = await import('../../audiences/gate.js');
  const gate = parseRejectGate(f.maxRejectRate);
  if (f.out && !f.dryRun)
    throw new UsageError('--out writes request bodies instead of sending them: use it with --dry-run', {
      flag: '--out',
    });
  if (f.dryRun && (f.journal || f.restart))
    throw new UsageError('--dry-run sends nothing and keeps no journal: drop --journal / --restart', {
      flag: '--dry-run',
    });
  const accountId = f.dryRun ? await ctx.accountId().catch(() => 'ACCOUNT_ID') : await ctx.accountId();
  if (!f.dryRun) {
    // Fail on missing credentials before reading a large file.
    const c = await ctx.credentials();
    if (!c.api_key || !c.api_secret || !c.access_token || !c.access_token_secret) {
      throw new AuthError('uploads need OAuth 1.0a user credentials (API key and secret, access token and secret)', {
        hint: 'run `xctl auth set ...` or `xctl auth login`, or set the XCTL_* variables',
      });
    }
  }

  await refuseBinary(input);
  const { checkOutputPaths } = await import('../../audiences/input.js');
  checkOutputPaths(
    input,
    [
      ['--out', f.out],
      ['--rejects', f.rejects],
      ['--journal', f.journal],
    ],
    f.journal,
  );
  const { runUpload } = await import('../../audiences/pipeline.js');
  const summary = await withRunReport(ctx, reportInfo(f, accountId), (rejects) =>
    withPartialSummary(ctx, SUMMARY_FIELDS, () =>
      runUpload(ctx, {
        target,
        accountId,
        listId,
        input,
        format: f.format as never,
        columns: colReq,
        allowedTypes: allowed ? [...allowed] : undefined,
        hashed: !!f.hashed,
        defaultCountry,
        operation: f.delete ? 'Delete' : 'Update',
        effectiveAt: eff !== undefined ? f.effectiveAt : undefined,
        expiresAt: f.expiresAt,
        batchSize,
        concurrency,
        dryRun: !!f.dryRun,
        out: f.out,
        journal: f.journal,
        restart: !!f.restart,
        rejects,
        strictRows: !!f.strictRows,
        lenientQuotes: !!f.lenientQuotes,
        gate,
        stateDir: resolveStateDir(ctx, f.stateDir),
      }),
    ),
  );
  await printOne(
    ctx.io,
    await ctx.output(),
    { ...summary },
    {
      columns: SUMMARY_FIELDS,
      knownFields: SUMMARY_FIELDS,
    },
  );
  const s = summary;
  if (s.read > 0 && s.valid === 0) {
    // Nothing was sent: an input where no record can be used is bad input, not a success.
    throw new UsageError(`none of the ${s.read} records could be used: every one was rejected`, {
      hint: `${f.rejects ? `reasons are in ${f.rejects}; ` : 'pass --rejects FILE for every reason; '}check --type / --column${f.hashed ? '' : ', --hashed'} and --default-country`,
    });
  }
}
