// `xctl stream rules list|add|delete` on /2/tweets/search/stream/rules, and `xctl stream webhooks
// link|unlink|list` on /2/tweets/search/webhooks (filtered stream webhooks, section 6).
import type { Context } from '../../context.js';
import { ApiError, UsageError, errorFromResponse } from '../../core/errors.js';
import { RULE_MAX_CHARS, STREAM_ENDPOINTS as E } from '../../contract/stream.js';
import { pathOf } from '../../contract/endpoint.js';
import { NUMERIC_ID } from '../../contract/ids.js';
import { checkWebhookId } from '../webhooks/manage.js';
import { readInputArg } from '../kit.js';

export interface AddOptions {
  tag?: string;
  file?: string;
  dryRun?: boolean;
}

interface Rule {
  value: string;
  tag?: string;
}

/**
 * A rules file: a JSON array of {value, tag} (or of strings), JSON lines, or one rule value per
 * line (blank lines and lines starting with # skipped).
 */
export function parseRulesFile(text: string, flag = '--file'): Rule[] {
  const t = text.trim();
  const fromObj = (x: unknown, where: string): Rule => {
    if (typeof x === 'string') return { value: x };
    if (x && typeof x === 'object' && typeof (x as Rule).value === 'string') {
      const r = x as Rule;
      if (r.tag !== undefined && typeof r.tag !== 'string') throw new UsageError(`${flag}: ${where}: tag must be a string`, { flag });
      return { value: r.value, ...(r.tag !== undefined ? { tag: r.tag } : {}) };
    }
    throw new UsageError(`${flag}: ${where}: expected a rule value or {"value","tag"}`, { flag });
  };
  if (t.startsWith('[')) {
    let arr: unknown;
    try {
      arr = JSON.parse(t);
    } catch (e) {
      throw new UsageError(`${flag}: not valid JSON: ${(e as Error).message}`, { flag });
    }
    return (arr as unknown[]).map((x, i) => fromObj(x, `item ${i + 1}`));
  }
  const out: Rule[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    const l = line.trim();
    if (!l || l.startsWith('#')) return;
    if (l.startsWith('{')) {
      let o: unknown;
      try {
        o = JSON.parse(l);
      } catch (e) {
        throw new UsageError(`${flag}: line ${i + 1}: not valid JSON: ${(e as Error).message}`, { flag });
      }
      out.push(fromObj(o, `line ${i + 1}`));
    } else out.push({ value: l });
  });
  return out;
}

export function checkRules(rules: Rule[]): void {
  if (rules.length === 0) throw new UsageError('no rules given: pass rule values or --file', { flag: '--file' });
  rules.forEach((r, i) => {
    if (!r.value.trim()) throw new UsageError(`rule ${i + 1} is empty`, { flag: '<value>' });
    if (r.value.length > RULE_MAX_CHARS) throw new UsageError(`rule ${i + 1} is ${r.value.length} characters; at most ${RULE_MAX_CHARS}`, { flag: '<value>' });
    if (r.tag !== undefined && r.tag.length > 200) throw new UsageError(`rule ${i + 1}: tag is longer than 200 characters`, { flag: '--tag' });
  });
}

const COLUMNS = ['id', 'value', 'tag'];

/** GET /2/tweets/search/stream/rules */
export async function rulesList(ctx: Context): Promise<void> {
  const http = await ctx.http();
  const res = await http.request<{ data?: Array<Record<string, unknown>> }>({ method: E.listRules.method, path: E.listRules.path, auth: 'app' });
  const { printList } = await import('../../core/output.js');
  await printList(ctx.io, await ctx.output(), res.data.data ?? [], { columns: COLUMNS, knownFields: COLUMNS });
}

interface RulesReply {
  data?: Array<Record<string, unknown>>;
  meta?: { summary?: Record<string, number> };
  errors?: Array<Record<string, unknown>>;
}

/** POST /2/tweets/search/stream/rules (add or delete; dry_run). Per-rule errors go to stderr. */
async function postRules(ctx: Context, body: unknown, dryRun?: boolean) {
  const http = await ctx.http();
  const res = await http.request<RulesReply>({
    method: E.changeRules.method,
    path: E.changeRules.path,
    auth: 'app',
    query: { dry_run: dryRun ? 'true' : undefined },
    json: body,
    throwOnError: false, // per-rule errors come with a 400 and a summary worth showing
  });
  if (res.status >= 500 || (res.status >= 400 && !res.data?.meta)) {
    // Not a per-rule refusal: the usual error (auth exit 3; a 5xx may have applied the change).
    const err = errorFromResponse(res.status, res.data, { fallbackText: res.text });
    if (res.status >= 500) err.hint = 'not retried: the POST may have been applied; check with `xctl stream rules list`';
    throw err;
  }
  reportErrors(ctx, res.data.errors);
  return res;
}

function reportErrors(ctx: Context, errs: Array<Record<string, unknown>> | undefined): void {
  for (const e of errs ?? []) ctx.io.warn(`${String(e.title ?? 'error')}: ${JSON.stringify(e.value ?? e.id ?? '')}${e.detail ? ` (${String(e.detail)})` : ''}`);
}

/** Adds rules (POST /2/tweets/search/stream/rules {"add":[...]}). */
export async function rulesAdd(ctx: Context, o: AddOptions, args: string[]): Promise<void> {
  const rules: Rule[] = args.map((v) => ({ value: v, ...(o.tag !== undefined ? { tag: o.tag } : {}) }));
  if (o.file) rules.push(...parseRulesFile(await readInputArg(ctx, o.file, '--file')));
  checkRules(rules);
  const res = await postRules(ctx, { add: rules }, o.dryRun);
  if (res.status >= 400 && !res.data.meta) throw new ApiError(`adding rules failed (HTTP ${res.status})`, { status: res.status, body: res.data });
  const { printList } = await import('../../core/output.js');
  if (res.data.data?.length) await printList(ctx.io, await ctx.output(), res.data.data, { columns: COLUMNS });
  const s = res.data.meta?.summary ?? {};
  ctx.io.info(`${o.dryRun ? 'dry run: ' : ''}valid ${s.valid ?? 0}, invalid ${s.invalid ?? 0}, created ${s.created ?? 0}, not created ${s.not_created ?? 0}`);
  if (res.status >= 400) throw new ApiError(`${s.invalid ?? res.data.errors?.length ?? 0} rule(s) refused; none was added`, { status: res.status });
}

/** Deletes rules (POST /2/tweets/search/stream/rules {"delete":{"ids":[...]}}). */
export async function rulesDelete(ctx: Context, o: { dryRun?: boolean }, args: string[]): Promise<void> {
  for (const id of args) if (!NUMERIC_ID.test(id)) throw new UsageError(`rule ids are 1-19 digits (got "${id}")`, { flag: '<id>' });
  const res = await postRules(ctx, { delete: { ids: args } }, o.dryRun);
  if (res.status >= 400) throw new ApiError(`deleting rules failed (HTTP ${res.status})`, { status: res.status, body: res.data });
  const s = res.data.meta?.summary ?? {};
  ctx.io.info(`${o.dryRun ? 'dry run: ' : ''}deleted ${s.deleted ?? 0}, not deleted ${s.not_deleted ?? 0}`);
  if (res.data.errors?.length) throw new ApiError(`${res.data.errors.length} rule(s) not found`, { status: res.status });
}

/** POST /2/tweets/search/webhooks/:id — deliver matching posts to this webhook. */
export async function linkWebhook(ctx: Context, _o: unknown, args: string[]): Promise<void> {
  const id = checkWebhookId(args[0]!);
  const http = await ctx.http();
  await http.request({ method: E.link.method, path: pathOf(E.link, { id }), auth: 'app' });
  ctx.io.info(`webhook ${id} now receives posts matching the filtered stream rules`);
}

/** DELETE /2/tweets/search/webhooks/:id */
export async function unlinkWebhook(ctx: Context, _o: unknown, args: string[]): Promise<void> {
  const id = checkWebhookId(args[0]!);
  const http = await ctx.http();
  const res = await http.request<{ data?: { deleted?: boolean } }>({ method: E.unlink.method, path: pathOf(E.unlink, { id }), auth: 'app' });
  ctx.io.info(res.data.data?.deleted ? `webhook ${id} unlinked from the filtered stream` : `webhook ${id} was not linked`);
}

/** GET /2/tweets/search/webhooks */
export async function listLinks(ctx: Context): Promise<void> {
  const http = await ctx.http();
  const res = await http.request<{ data?: Array<Record<string, unknown>> }>({ method: E.listLinks.method, path: E.listLinks.path, auth: 'app' });
  const { printList } = await import('../../core/output.js');
  await printList(ctx.io, await ctx.output(), res.data.data ?? [], { columns: ['webhook_id', 'created_at'] });
}
