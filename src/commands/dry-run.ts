// `--dry-run` on every command that changes something on the service (issue 33): the request it
// would send, printed instead of sent, in one format for the generated ads writes and the
// hand-written ones alike: one JSON line per request on stdout
// ({"dry_run":true,"method","url","params"|"json"}), then "dry run: nothing was sent" on stderr.
import type { Context } from '../context.js';
import type { HttpRequest } from '../core/http.js';

export const DRY_RUN_HELP = 'print the request that would be sent (method, URL, body) and send nothing';

export interface DryRequest {
  method: string;
  url: string;
  /** A form body, or a DELETE's query parameters (the ads API's writes). */
  params?: Record<string, string>;
  /** A JSON body. */
  json?: unknown;
}

/**
 * Prints one request as it would go; any registered secret in it is masked. With --jq, the
 * program runs on that JSON (issue 46: it was ignored with a warning).
 */
export async function printDryRun(ctx: Context, r: DryRequest): Promise<void> {
  const line = ctx.io.redact(JSON.stringify({ dry_run: true, ...r }));
  if (ctx.globals.jq === undefined) return void ctx.io.out(line);
  const { printJqText } = await import('../core/output.js');
  await ctx.output(); // counts as asked: the --jq was used
  await printJqText(ctx.io, ctx.globals.jq, line);
}

/** The line closing a dry run on stderr. */
export function dryRunDone(ctx: Context, requests = 1): void {
  ctx.io.info(requests === 1 ? 'dry run: nothing was sent' : `dry run: ${requests} requests, nothing was sent`);
}

/** The request `http.request(req)` would send, printed (its URL as the client builds it). */
export async function printRequest(
  ctx: Context,
  req: Pick<HttpRequest, 'method' | 'path' | 'host' | 'query' | 'json' | 'form'>,
): Promise<void> {
  const url = (await ctx.http()).url(req).toString();
  const form = Array.isArray(req.form) ? Object.fromEntries(req.form) : req.form;
  const params = form
    ? Object.fromEntries(Object.entries(form).filter((e): e is [string, string] => e[1] !== undefined))
    : undefined;
  await printDryRun(ctx, {
    method: req.method ?? 'GET',
    url,
    ...(params ? { params } : {}),
    ...(req.json !== undefined ? { json: req.json } : {}),
  });
}

/** The --dry-run flag as a declaration (`declare(parent, {options: [..., DRY_RUN_OPTION]})`). */
export const DRY_RUN_OPTION = ['--dry-run', DRY_RUN_HELP] as const;
