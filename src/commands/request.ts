// `xctl request`: a raw signed call, like twurl. -d pairs are a signed form body; a JSON object
// after -d (as xurl), -d @file or --body is a JSON body (unsigned). --paginate follows the cursors.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../core/errors.js';
import type { AuthMode, HttpResponse } from '../core/http.js';
import type { OutputSettings } from '../core/output.js';
import { checkRelativePath } from '../core/base-url.js';
import { escapeForTerminal } from '../core/sanitize.js';
import { declareOn } from './define.js';
import { parseJsonInput, readInputArg } from './input.js';
import { authHint, nextPagePath, parseData } from './request-body.js';
import { isRecord } from '../contract/guards.js';

export interface RequestOptions {
  /** Path with optional query, or an absolute URL on the configured hosts. */
  path: string;
  method?: string;
  data?: string[];
  body?: string;
  header?: string[];
  auth?: string;
  ads?: boolean;
  include?: boolean;
  raw?: boolean;
  paginate?: boolean;
}

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD'];
const AUTHS: AuthMode[] = ['user', 'app', 'oauth2', 'none', 'basic'];

export function register(cmd: Command): void {
  registerRequest(cmd);
}

/** The verb on its command, with `runF` in place of its run function for tests (gh's runF). */
export function registerRequest(cmd: Command, runF = request): void {
  declareOn(cmd, {
    arguments: [['<path>', 'path with optional query, e.g. "/2/webhooks" or "/12/accounts?count=5"']],
    options: [
      ['-X, --method <method>', 'HTTP method (default GET, or POST with -d/--body)'],
      {
        flags: '-d, --data <key=value|json|@file>',
        description: 'form parameter, signed (repeatable); or a JSON body: \'{"text":"hi"}\' or @file',
        repeatable: true,
      },
      ['--body <@file|->', 'JSON body from a file or stdin (not signed, per OAuth 1.0a)'],
      { flags: '-H, --header <"Name: value">', description: 'extra header (repeatable)', repeatable: true },
      [
        '--auth <mode>',
        'user (OAuth 1.0a user context), app (bearer), oauth2 (OAuth 2.0 user token, refreshed when due), basic or none',
        'user',
      ],
      ['--ads', 'call the ads API host'],
      ['-i, --include', 'print the status line and response headers on stderr'],
      ['--raw', 'print the body exactly as received'],
      ['--paginate', 'GET every page (meta.next_token, next_cursor) and print each; --jq runs on each page'],
    ],
    run: (ctx, o, [path]) => runF(ctx, { ...o, path }),
  });
}

export async function request(ctx: Context, opts: RequestOptions): Promise<void> {
  const path = opts.path;
  if (!path.startsWith('/') && !/^https?:\/\//.test(path)) {
    throw new UsageError(`the path must start with "/" (got "${path}")`, { hint: 'e.g. xctl request /2/webhooks' });
  }
  checkRelativePath(path);
  const auth = (opts.auth ?? 'user') as AuthMode;
  if (!AUTHS.includes(auth))
    throw new UsageError(`--auth must be one of ${AUTHS.join(', ')} (got "${opts.auth}")`, { flag: '--auth' });
  const data = await parseData(ctx, opts.data ?? []);
  const form = data.form;
  if ((form.length || data.json !== undefined) && opts.body !== undefined)
    throw new UsageError('-d and --body cannot be combined: a request has one body', { flag: '--body' });
  const headers: Record<string, string> = {};
  for (const h of opts.header ?? []) {
    const m = /^([A-Za-z0-9-]+):\s*(.*)$/.exec(h);
    if (!m) throw new UsageError(`-H takes "Name: value" (got "${h}")`, { flag: '--header' });
    if (m[1]!.toLowerCase() === 'authorization')
      throw new UsageError('-H cannot set Authorization: use --auth', { flag: '--header' });
    headers[m[1]!.toLowerCase()] = m[2]!;
  }
  let json: unknown = data.json;
  if (opts.body !== undefined) json = parseJsonInput(await readInputArg(ctx, opts.body, '--body'), '--body', 'body');
  const method = (opts.method ?? (form.length || json !== undefined ? 'POST' : 'GET')).toUpperCase();
  if (!METHODS.includes(method))
    throw new UsageError(`-X must be one of ${METHODS.join(', ')} (got "${opts.method}")`, { flag: '--method' });
  if (opts.paginate && method !== 'GET')
    throw new UsageError(`--paginate reads pages with GET (got ${method})`, { flag: '--paginate' });

  // Output flags are checked before sending: --raw prints bytes, nothing to select or filter.
  const settings = await ctx.output();
  const asRecords =
    settings.fields !== undefined ||
    (ctx.globals.output !== undefined && ['table', 'tsv', 'csv'].includes(ctx.globals.output));
  if (
    opts.raw &&
    (settings.jq !== undefined ||
      settings.fields ||
      ctx.globals.output !== undefined ||
      (ctx.globals.json !== undefined && ctx.globals.json !== false))
  ) {
    throw new UsageError(
      '--raw prints the body exactly as received: it cannot be combined with -o, --json, --fields or --jq',
      { flag: '--raw' },
    );
  }

  const { warnDeprecated } = await import('./request-deprecations.js');
  warnDeprecated(ctx, method, path);

  const http = await ctx.http();
  const send = async (p: string): Promise<HttpResponse> => {
    try {
      return await http.request({ method, path: p, host: opts.ads ? 'ads' : 'api', form, json, headers, auth });
    } catch (e) {
      authHint(e);
      throw e;
    }
  };
  const pages = readPages(ctx, opts, send);
  if (asRecords && opts.paginate && !opts.raw) {
    const { printList } = await import('../core/output.js');
    await printList(
      ctx.io,
      settings,
      (async function* () {
        for await (const res of pages) if (typeof res.data !== 'string') yield* recordsOf(res.data);
      })(),
    );
    return;
  }
  for await (const res of pages) await printPage(ctx, opts, settings, asRecords, res);
}

/** The first answer, then (with --paginate) each next page until one names no cursor. */
async function* readPages(
  ctx: Context,
  opts: RequestOptions,
  send: (p: string) => Promise<HttpResponse>,
): AsyncGenerator<HttpResponse> {
  const seen = new Set<string>();
  for (let p: string | undefined = opts.path; p !== undefined && !seen.has(p); ) {
    seen.add(p); // a server repeating a cursor must not loop us forever
    const res = await send(p);
    if (opts.include) {
      ctx.io.err(`HTTP ${res.status}`);
      for (const [k, v] of Object.entries(res.headers)) ctx.io.err(`${k}: ${v}`);
    }
    yield res;
    p = opts.paginate && typeof res.data !== 'string' ? nextPagePath(p, res.data) : undefined;
  }
}

/** The records of an answer (its data, else the body itself), for --fields and -o table/tsv/csv. */
function recordsOf(body: unknown): Array<Record<string, unknown>> {
  const data = body && typeof body === 'object' && !Array.isArray(body) && 'data' in body ? body.data : body;
  const rec = (x: unknown): Record<string, unknown> => (isRecord(x) ? x : { value: x });
  return Array.isArray(data) ? data.map(rec) : [rec(data)];
}

async function printPage(
  ctx: Context,
  opts: RequestOptions,
  settings: OutputSettings,
  asRecords: boolean,
  res: HttpResponse,
): Promise<void> {
  if (opts.raw || typeof res.data === 'string') {
    // Exact bytes for a pipe; on a terminal, the server's text with its control characters shown.
    if (res.text) ctx.io.out(ctx.io.isStdoutTTY ? escapeForTerminal(res.text, { keepLayout: true }) : res.text);
    if (!opts.raw && (asRecords || settings.jq !== undefined))
      ctx.io.warn('the response is not JSON: printed as received');
    return;
  }
  const { printJson, printList, printOne } = await import('../core/output.js');
  if (!asRecords) return printJson(ctx.io, settings, res.data);
  const body: unknown = res.data;
  const isList = Array.isArray(body && typeof body === 'object' && 'data' in body ? body.data : body);
  if (isList) await printList(ctx.io, settings, recordsOf(body));
  else await printOne(ctx.io, settings, recordsOf(body)[0]!);
}
