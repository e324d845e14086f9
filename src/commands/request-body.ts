// `xctl request` helpers: what -d means (form pairs, a JSON object as xurl takes it, @file), the
// cursor of the next page for --paginate, and which --auth a 403 "Unsupported Authentication" asks for.
import type { Context } from '../context.js';
import { ApiError, UsageError } from '../core/errors.js';
import { parseJsonInput, readInputArg } from './input.js';

export interface RequestBody {
  form: Array<[string, string]>;
  json?: unknown;
}

/** A JSON object or array, as `-d '{"text":"hi"}'` (xurl) or the text of `-d @body.json`. */
const JSON_START = /^\s*[[{]/;

/** The -d values: key=value pairs (a signed form), or one JSON object inline or from `@file`. */
export async function parseData(ctx: Context, data: string[]): Promise<RequestBody> {
  const form: Array<[string, string]> = [];
  let json: unknown;
  for (const d of data) {
    const text = d.startsWith('@') ? await readInputArg(ctx, d, '--data') : d;
    if (JSON_START.test(text)) {
      if (json !== undefined || data.length > 1) {
        throw new UsageError('-d with a JSON body cannot be combined with another -d: a request has one body', {
          flag: '--data',
        });
      }
      json = parseJsonInput(text, '--data', 'JSON body');
      continue;
    }
    const pairs = d.startsWith('@') ? [...new URLSearchParams(text.trim())] : [pairOf(d)];
    form.push(...pairs);
  }
  return { form, json };
}

function pairOf(d: string): [string, string] {
  const i = d.indexOf('=');
  if (i <= 0) {
    throw new UsageError(`-d takes key=value, a JSON object or @file (got "${d}")`, {
      flag: '--data',
      hint: `a JSON body: -d '{"text":"hi"}', -d @body.json or --body - (stdin)`,
    });
  }
  return [d.slice(0, i), d.slice(i + 1)];
}

/**
 * The path of the page after `body`, or undefined on the last page. v2 answers name the next
 * page in meta.next_token (asked for with pagination_token, next_token on search endpoints); the
 * ads API in next_cursor (asked for with cursor).
 */
export function nextPagePath(path: string, body: unknown): string | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const b = body as { meta?: { next_token?: unknown }; next_cursor?: unknown };
  const token = typeof b.meta?.next_token === 'string' ? b.meta.next_token : undefined;
  const cursor = typeof b.next_cursor === 'string' ? b.next_cursor : undefined;
  if (!token && !cursor) return undefined;
  const absolute = /^https?:\/\//.test(path);
  const url = new URL(path, 'http://relative.invalid');
  const param = cursor ? 'cursor' : url.pathname.includes('/search/') ? 'next_token' : 'pagination_token';
  url.searchParams.set(param, (cursor ?? token)!);
  return absolute ? url.toString() : `${url.pathname}${url.search}`;
}

const AUTH_OF: Record<string, string> = {
  'OAuth 1.0a User Context': 'user',
  'OAuth 2.0 Application-Only': 'app',
  'OAuth 2.0 User Context': 'oauth2',
};

/** A 403 "Unsupported Authentication ... Supported authentication types are [..]": which --auth to pass. */
export function authHint(err: unknown): void {
  if (!(err instanceof ApiError) || err.status !== 403) return;
  const detail = `${err.message} ${JSON.stringify(err.body ?? '')}`;
  const m = /Supported authentication types are \[([^\]]*)\]/.exec(detail);
  if (!m) return;
  const modes = m[1]!
    .split(',')
    .map((s) => AUTH_OF[s.trim()])
    .filter((s): s is string => s !== undefined);
  if (!modes.length) return;
  err.hint = `this endpoint takes ${m[1]}: pass ${modes.map((x) => `--auth ${x}`).join(' or ')}`;
}
