// Runs one ads operation: flags -> validated params (exit 2 before sending) -> the verb's
// beforeSend hook -> request -> envelope -> afterReceive hook -> output. Lists follow
// next_cursor with --all / --limit.
import { escapeForTerminal } from '../../core/sanitize.js';
import { closest } from '../../core/suggest.js';
import { applyMoney, moneyFromOpts } from './money-flags.js';
import type { Context } from '../../context.js';
import { HOSTS } from '../../contract/hosts.js';
import { ApiError, UsageError } from '../../core/errors.js';
import { printList, printOne, type Rec } from '../../core/output.js';
import { paginate, parseLimit, type PageState } from '../../core/paginate.js';
import type { OperationDef, ParamDef, ResourceDef, Violation } from '../../ads/resource-types.js';
import { validateParams } from '../../ads/params.js';
import { checkBatch } from '../../ads/batch.js';
import { parseJsonInput, readInputArg } from '../input.js';
import { printStats, type StatsEnvelope } from './stats-output.js';
import { duplicateFromService, findByName, printDryRun } from './write-flags.js';
import { isRecord } from '../../contract/guards.js';
import { isoSeconds, parseRelativeTime } from '../../contract/time.js';

interface Envelope {
  data?: unknown;
  next_cursor?: string | null;
  total_count?: number;
  operation_errors?: Array<Array<{ code?: string; message?: string; parameter?: string }>>;
}

/** Commander's attribute name of a long flag (`--with-total-count` -> withTotalCount). */
export function attributeOf(flag: string): string {
  return flag
    .replace(/^--/, '')
    .split('-')
    .reduce((s, w, i) => (i === 0 ? w : s + w[0]!.toUpperCase() + w.slice(1)), '');
}

/** Rewrites spec names in a rule message as flags, so the user sees what to change. */
function flagWords(message: string, params: ParamDef[]): string {
  let m = message;
  for (const d of params) m = m.replace(new RegExp(`(?<![-\\w])${d.name}\\b`, 'g'), d.flag);
  return m;
}

export function violationError(
  v: Violation,
  params: ParamDef[],
  raw: Record<string, unknown>,
  prefix = '',
): UsageError {
  const d = params.find((x) => x.name === v.param);
  const flag = d?.flag ?? `--${v.param.replace(/_/g, '-')}`;
  const given =
    raw[v.param] !== undefined && v.code !== 'MISSING_PARAMETER' && !v.crossField ? String(raw[v.param]) : undefined;
  const got = given !== undefined ? ` (got "${given}")` : '';
  // An enum value one typo away (INTERESTS for INTEREST): did-you-mean, as for commands.
  const values = v.candidates ?? d?.enumValues;
  const near = values && raw[v.param] !== undefined ? closest(String(raw[v.param]), values, 1)[0] : undefined;
  const hint = near && near !== raw[v.param] ? `did you mean ${flag} ${near}?` : undefined;
  return new UsageError(`${prefix}${flag} ${flagWords(v.message, params)}${got}`, {
    flag,
    parameter: v.param,
    code: v.code,
    hint,
  });
}

/**
 * Every problem with the flags in one error (issue 46, as gh reports them): one a line, each
 * naming its flag and rule; the first's flag, code and did-you-mean stay the error's own.
 */
export function violationsError(vs: Violation[], params: ParamDef[], raw: Record<string, unknown>): UsageError {
  const first = violationError(vs[0]!, params, raw);
  if (vs.length === 1) return first;
  const lines = vs.map((v) => {
    const e = violationError(v, params, raw);
    return e.hint ? `${e.message} (${e.hint})` : e.message;
  });
  return new UsageError(`${vs.length} problems with the flags, nothing was sent:\n  ${lines.join('\n  ')}`, {
    flag: first.flag,
    parameter: first.parameter,
    code: first.code,
  });
}

/**
 * An enum value in another case (`--entity-status active`) is the one value it can only mean;
 * a comma list item by item. Values matching none, or several, are left for the check to refuse.
 */
export function caseEnums(params: ParamDef[], raw: Record<string, string>): void {
  for (const d of params) {
    const v = raw[d.name];
    if (v === undefined || !d.enumValues || d.enumValues.includes(v)) continue;
    const one = (x: string) => {
      const hits = d.enumValues!.filter((e) => e.toLowerCase() === x.toLowerCase());
      return hits.length === 1 ? hits[0]! : x;
    };
    raw[d.name] = v.split(',').map(one).join(',');
  }
}

/** Flag values (strings, or true for a bare boolean flag) by spec name. */
export function rawFromOpts(op: Pick<OperationDef, 'params'>, opts: Record<string, unknown>): Record<string, string> {
  const raw: Record<string, string> = {};
  for (const d of op.params) {
    const v = opts[attributeOf(d.flag)];
    if (v === undefined) continue;
    raw[d.name] = v === true ? 'true' : String(v);
  }
  return raw;
}

/** Positional arguments of an operation: its path parameters other than :account_id, in order. */
export function positionalsOf(
  r: ResourceDef,
  op: OperationDef,
): Array<{ key: string; name: string; optional: boolean }> {
  const out: Array<{ key: string; name: string; optional: boolean }> = [];
  for (const m of op.path.matchAll(/:([a-z_]+)/g)) {
    const key = m[1]!;
    // An account path whose resource is the account itself defaults to --account.
    if (key === 'account_id' && r.idParam !== 'account_id') continue;
    out.push({ key, name: key.replace(/_/g, '-'), optional: key === 'account_id' });
  }
  return out;
}

/** A generated verb's options: its flags by spec name and its positionals by path parameter. */
export interface OperationOptions {
  /** Flag values by spec name as given (a bare boolean flag is 'true'). */
  params: Record<string, string>;
  /** Positionals by path parameter name (custom_audience_id, ...); an absent account_id defaults to --account. */
  path: Record<string, string | undefined>;
  /** Lists: every page, or stop after this many records. */
  all?: boolean;
  limit?: string;
  /** JSON-bodied and batch operations: the body file, or - for stdin. */
  file?: string;
  /** Writes: print the request instead of sending it. */
  dryRun?: boolean;
  /** Creates of named things: return | fail when one of this name exists. */
  ifExists?: string;
  /** Currency twins of micro flags (`--daily-budget 30.00`) by spec name: money-flags.ts. */
  money?: Record<string, string>;
  /** Stats: line charts on a terminal instead of the table. */
  chart?: boolean;
}

/**
 * Bespoke steps of a generated verb, declared beside its registration rather than replacing
 * its action: the generated flags, checks, request and output stay as they are.
 */
export interface OperationHooks {
  /** After the flags passed the contract's checks and before anything is sent; may read, may throw. */
  beforeSend?(ctx: Context, o: OperationOptions): Promise<void>;
  /** The answer's data before it is printed. */
  afterReceive?(ctx: Context, data: unknown, o: OperationOptions): unknown | Promise<unknown>;
  /** The request failed: may throw a better error (it is thrown as it was otherwise). */
  onError?(ctx: Context, err: unknown, o: OperationOptions): Promise<void>;
}

/** Commander's flags and positionals of a generated verb, as its typed options. */
export function operationOptions(
  r: ResourceDef,
  op: OperationDef,
  opts: Record<string, unknown>,
  args: ReadonlyArray<string | undefined>,
): OperationOptions {
  const path: Record<string, string | undefined> = {};
  positionalsOf(r, op).forEach((pos, i) => (path[pos.key] = args[i]));
  return {
    params: rawFromOpts(op, opts),
    money: moneyFromOpts(op, opts),
    path,
    ...(opts.all !== undefined ? { all: !!opts.all } : {}),
    ...(typeof opts.limit === 'string' ? { limit: opts.limit } : {}),
    ...(typeof opts.file === 'string' ? { file: opts.file } : {}),
    ...(opts.dryRun === true ? { dryRun: true } : {}),
    ...(typeof opts.ifExists === 'string' ? { ifExists: opts.ifExists } : {}),
    ...(opts.chart === true ? { chart: true } : {}),
  };
}

const ID = /^[A-Za-z0-9_-]{1,64}$/;

async function fillPath(
  ctx: Context,
  r: ResourceDef,
  op: OperationDef,
  given: OperationOptions['path'],
): Promise<string> {
  let path = op.path;
  for (const pos of positionalsOf(r, op)) {
    const v = given[pos.key];
    if (v !== undefined && !ID.test(v)) throw new UsageError(`<${pos.name}> must be an id (got "${v}")`);
    const value = v ?? (pos.key === 'account_id' ? await ctx.accountId() : undefined);
    if (value === undefined) throw new UsageError(`<${pos.name}> is required`);
    path = path.replace(`:${pos.key}`, encodeURIComponent(value));
  }
  if (path.includes(':account_id')) path = path.replace(':account_id', encodeURIComponent(await ctx.accountId()));
  return `/${op.version ?? '12'}${path}`;
}

/** Toward the production host, a SANDBOX-only endpoint does not exist: refuse before sending. */
async function checkSandboxOnly(ctx: Context, op: OperationDef): Promise<void> {
  if (!op.sandboxOnly) return;
  if ((await ctx.adsBase()) === HOSTS.ads) {
    throw new UsageError(`${op.method} ${op.path} exists only on the ads sandbox`, {
      flag: '--sandbox',
      hint: 'pass --sandbox, or --base-url of a local `xctl sandbox`',
    });
  }
}

function asRecords(data: unknown): Rec[] {
  const arr = Array.isArray(data) ? data : data === undefined || data === null ? [] : [data];
  return arr.map((x) => (x && typeof x === 'object' ? (x as Rec) : { value: x }));
}

/**
 * A delete (or revoke) cannot be undone: it asks on a terminal, like every delete of xctl, and
 * without one needs --yes. Cancelling a stats job is not a delete.
 */
function asksFirst(op: OperationDef): boolean {
  return op.std === 'delete' && op.verb !== 'cancel';
}

/** "delete campaign 8wku2?", "revoke custom audience permission 1a of 2b?" */
async function deleteQuestion(
  ctx: Context,
  r: ResourceDef,
  op: OperationDef,
  given: OperationOptions['path'],
): Promise<string> {
  const ids: string[] = [];
  for (const pos of positionalsOf(r, op))
    ids.push(given[pos.key] ?? (pos.key === 'account_id' ? await ctx.accountId() : '?'));
  const name = await nameOf(ctx, r, op, given);
  const what = `${r.dataType.replace(/_/g, ' ')} ${ids[ids.length - 1] ?? ''}${name}`.trim();
  const of = ids.length > 1 ? ` of ${ids.slice(0, -1).join(' / ')}` : '';
  return `${op.verb} ${what}${of}? This cannot be undone.`;
}

/**
 * ` ("Spring sale")`: the name of what a prompt is about to delete, read with the resource's get
 * at the same path; only when someone will read the question (a terminal, no --yes), and never
 * in the way (any failure leaves the id alone).
 */
async function nameOf(
  ctx: Context,
  r: ResourceDef,
  op: OperationDef,
  given: OperationOptions['path'],
): Promise<string> {
  if (ctx.globals.yes || !ctx.io.isStdinTTY) return '';
  const get = r.operations.find((x) => x.method === 'GET' && x.kind !== 'list' && x.path === op.path);
  if (!get) return '';
  try {
    const res = await (await ctx.http()).request<{ data?: { name?: unknown } }>({
      method: 'GET',
      host: 'ads',
      path: await fillPath(ctx, r, get, given),
      auth: 'user',
      retry: false,
    });
    const name = res.data.data?.name;
    return typeof name === 'string' && name ? ` ("${escapeForTerminal(name.slice(0, 80))}")` : '';
  } catch {
    return '';
  }
}

/** Calls the operation's endpoint (op.method op.path of the ads API) and prints the result. */
export async function runOperation(
  ctx: Context,
  r: ResourceDef,
  op: OperationDef,
  o: OperationOptions,
  hooks: OperationHooks = {},
): Promise<void> {
  const columns = op.columns ?? r.columns;
  if (op.kind === 'batch')
    return sendBatch(
      ctx,
      r,
      op,
      await readFileBody(ctx, o, 'a JSON array of {"operation_type","params"} items'),
      o.path,
      columns,
      o.dryRun,
    );
  if (op.body === 'json')
    return sendJsonBody(ctx, r, op, await readFileBody(ctx, o, 'a JSON object'), o.path, columns, '--file', o.dryRun);
  const raw = { ...o.params };
  if (o.money && Object.keys(o.money).length) await applyMoney(ctx, op, o.money, raw);
  for (const d of op.params) {
    if (raw[d.name] === undefined && d.cliDefault) raw[d.name] = d.cliDefault({ nowMs: ctx.clock.now() });
    // `--start today-7d`: sent as the ISO time it stands for.
    const rel =
      d.kind === 'time' && raw[d.name] !== undefined ? parseRelativeTime(raw[d.name]!, ctx.clock.now()) : undefined;
    if (rel !== undefined) raw[d.name] = isoSeconds(rel);
  }
  caseEnums(op.params, raw);
  const { violations } = validateParams(op.params, raw, op.rules, { nowMs: ctx.clock.now() });
  if (violations.length) throw violationsError(violations, op.params, raw);
  const limit = parseLimit(o.limit);
  await checkSandboxOnly(ctx, op);
  const path = await fillPath(ctx, r, op, o.path);
  await hooks.beforeSend?.(ctx, o);
  if (o.dryRun) return printDryRun(ctx, op.method, (await ctx.http()).url({ path, host: 'ads' }).toString(), raw);
  if (o.ifExists) {
    const found = await findByName(ctx, r, op, path, raw.name, o.ifExists);
    if (found) return printOne(ctx.io, await ctx.output(), found, { columns });
  }
  if (asksFirst(op) && !(await ctx.confirm(await deleteQuestion(ctx, r, op, o.path)))) {
    ctx.io.info(`nothing ${op.verb === 'revoke' ? 'revoked' : 'deleted'}`);
    return;
  }
  const received = async (data: unknown) => (hooks.afterReceive ? hooks.afterReceive(ctx, data, o) : data);
  const http = await ctx.http();
  const settings = await ctx.output();
  const send = (params: Record<string, string>) =>
    http.request<Envelope>({
      method: op.method,
      host: 'ads',
      path,
      auth: 'user',
      ...(op.method === 'GET' || op.method === 'DELETE' ? { query: params } : { form: params }),
    });

  if (op.kind === 'list' && op.method === 'GET') {
    let first = true;
    const cursorFlag = op.params.find((d) => d.name === 'cursor')?.flag;
    const state: PageState = cursorFlag ? { flag: cursorFlag } : {};
    const pages = paginate<Rec>(
      async (cursor) => {
        const params = { ...raw };
        if (cursor !== undefined) {
          params.cursor = cursor;
          // Spec 2.1: with_total_count excludes cursor; the count came with the first page.
          if (!first) delete params.with_total_count;
        }
        const res = await send(params);
        if (first && typeof res.data?.total_count === 'number') ctx.io.info(`total_count: ${res.data.total_count}`);
        first = false;
        return { items: asRecords(await received(res.data?.data)), next: res.data?.next_cursor ?? null };
      },
      { all: !!o.all, limit, cursor: raw.cursor, state },
    );
    await printList(ctx.io, settings, pages, { columns, pages: state });
    return;
  }
  let res;
  try {
    res = await send(raw);
  } catch (e) {
    await hooks.onError?.(ctx, e, o);
    throw duplicateFromService(e) ?? e;
  }
  if (op.output === 'stats') return printStats(ctx, res.data as StatsEnvelope, columns, { chart: !!o.chart });
  const data = await received(res.data?.data);
  if (Array.isArray(data)) await printList(ctx.io, settings, asRecords(data), { columns });
  else await printOne(ctx.io, settings, (data ?? {}) as Rec, { columns });
}

async function readFileBody(ctx: Context, o: OperationOptions, what: string): Promise<unknown> {
  if (typeof o.file !== 'string')
    throw new UsageError(`--file is required (${what}, or - for stdin)`, { flag: '--file' });
  return parseJsonInput(await readInputArg(ctx, o.file, '--file'), '--file', 'body');
}

/** Validates a JSON body like flags (problems name `flag`, the input it came from), sends it, prints the result. */
export async function sendJsonBody(
  ctx: Context,
  r: ResourceDef,
  op: OperationDef,
  body: unknown,
  pathArgs: OperationOptions['path'],
  columns: string[],
  flag = '--file',
  dryRun = false,
): Promise<void> {
  if (!isRecord(body)) throw new UsageError(`${flag}: the body must be a JSON object`, { flag });
  const { violations } = validateParams(op.params, body, op.rules, {
    nowMs: ctx.clock.now(),
  });
  if (violations.length) {
    const v = violations[0]!;
    throw new UsageError(`${flag}: ${v.param} ${v.message}`, { flag, parameter: v.param, code: v.code });
  }
  await checkSandboxOnly(ctx, op);
  const path = await fillPath(ctx, r, op, pathArgs);
  if (dryRun) return dryRunJson(ctx, op.method, path, body);
  const res = await (await ctx.http()).request<Envelope>({
    method: op.method,
    host: 'ads',
    path,
    auth: 'user',
    json: body,
  });
  const data = res.data?.data;
  if (Array.isArray(data)) await printList(ctx.io, await ctx.output(), asRecords(data), { columns });
  else await printOne(ctx.io, await ctx.output(), (data ?? {}) as Rec, { columns });
}

/** Validates a batch body item by item (nothing is sent when one fails), sends it, prints the results. */
export async function sendBatch(
  ctx: Context,
  r: ResourceDef,
  op: OperationDef,
  body: unknown,
  pathArgs: OperationOptions['path'],
  columns: string[],
  dryRun = false,
): Promise<void> {
  const check = checkBatch(op, body);
  if (check.requestErrors.length)
    throw new UsageError(`--file: the batch ${check.requestErrors[0]!.message}`, { flag: '--file' });
  const bad = check.itemErrors.map((errs, i) => ({ errs, i })).filter((x) => x.errs.length);
  if (bad.length) {
    const items: unknown[] = Array.isArray(body) ? body : [];
    const typeOf = (item: unknown) => (isRecord(item) ? String(item.operation_type ?? '?') : '?');
    const lines = bad.flatMap(({ errs, i }) =>
      errs.map((e) => `item ${i + 1} (${typeOf(items[i])}): ${e.param} ${e.message}`),
    );
    throw new UsageError(
      `--file: ${lines.length} problem${lines.length > 1 ? 's' : ''} in the batch, nothing was sent:\n  ${lines.join('\n  ')}`,
      { flag: '--file' },
    );
  }
  await checkSandboxOnly(ctx, op);
  const path = await fillPath(ctx, r, op, pathArgs);
  if (dryRun) return dryRunJson(ctx, 'POST', path, body);
  const http = await ctx.http();
  let res;
  try {
    res = await http.request<Envelope>({ method: 'POST', host: 'ads', path, auth: 'user', json: body });
  } catch (e) {
    const env = e instanceof ApiError ? (e.body as Envelope | undefined) : undefined;
    if (e instanceof ApiError && Array.isArray(env?.operation_errors)) {
      const lines = env.operation_errors.flatMap((errs, i) =>
        (errs ?? []).map((x) => `item ${i + 1}: ${x.code ?? ''} ${x.message ?? ''}`.trim()),
      );
      throw new ApiError(`the batch was refused as a whole (nothing was applied):\n  ${lines.join('\n  ')}`, {
        status: e.status,
        code: lines.length ? env.operation_errors.flat()[0]?.code : undefined,
        body: env,
      });
    }
    throw e;
  }
  await printList(ctx.io, await ctx.output(), asRecords(res.data?.data), { columns });
}

/** --dry-run of a JSON-bodied or batch write: the request it would send (nothing is sent). */
async function dryRunJson(ctx: Context, method: string, path: string, json: unknown): Promise<void> {
  const { dryRunDone, printRequest } = await import('../dry-run.js');
  await printRequest(ctx, { method, host: 'ads', path, json });
  dryRunDone(ctx);
}
