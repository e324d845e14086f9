// POST /2/tweets/search/stream/rules: the one call `rules add` and `rules delete` make.
import type { Context } from '../../../context.js';
import { errorFromResponse } from '../../../core/errors.js';
import { STREAM_ENDPOINTS as E } from '../../../contract/stream.js';

export const RULE_COLUMNS = ['id', 'value', 'tag'];

export interface RulesReply {
  data?: Array<Record<string, unknown>>;
  meta?: { summary?: Record<string, number> };
  errors?: Array<Record<string, unknown>>;
}

/** POST /2/tweets/search/stream/rules (add or delete; dry_run). Per-rule errors go to stderr. */
export async function postRules(ctx: Context, body: unknown, dryRun?: boolean) {
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
    if (res.status >= 500)
      err.hint = 'not retried: the POST may have been applied; check with `xctl stream rules list`';
    throw err;
  }
  reportErrors(ctx, res.data.errors);
  return res;
}

function reportErrors(ctx: Context, errs: Array<Record<string, unknown>> | undefined): void {
  for (const e of errs ?? [])
    ctx.io.warn(
      `${String(e.title ?? 'error')}: ${JSON.stringify(e.value ?? e.id ?? '')}${e.detail ? ` (${String(e.detail)})` : ''}`,
    );
}
