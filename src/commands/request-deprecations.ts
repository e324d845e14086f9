// Paths the platform's change history (docs/contract.md, credentials section 9) marks deprecated or retired.
import type { Context } from '../context.js';

interface Deprecation {
  match: RegExp;
  method?: string;
  what: string;
  replacement?: string;
}

export const DEPRECATIONS: Deprecation[] = [
  {
    match: /^\/2\/account_activity\/replay\/webhooks\/[^/]+\/subscriptions\/all/,
    what: 'the account-activity replay endpoint was deprecated effective March 25, 2026',
    replacement: 'POST /2/webhooks/replay (`xctl webhooks replay`)',
  },
  {
    match: /^\/1\.1\/statuses\/filter(\.json)?/,
    what: 'statuses/filter is deprecated',
    replacement: 'filtered stream, /2/tweets/search/stream (`xctl stream rules`)',
  },
  { match: /^\/1\.1\/help\/configuration(\.json)?/, what: 'help/configuration is retired' },
  {
    match: /^\/(1\.1\/)?oembed|^\/1\.1\/statuses\/oembed/,
    what: 'v1.1 oEmbed was retired November 23, 2021',
    replacement: 'the publish oEmbed endpoint',
  },
];

const DM_COMMAND_PARAMS = ['enable_dm_commands', 'fail_dm_commands'];

export function deprecationFor(method: string, pathWithQuery: string): Deprecation | undefined {
  const u = new URL(pathWithQuery, 'http://x');
  const d = DEPRECATIONS.find((x) => x.match.test(u.pathname) && (!x.method || x.method === method));
  if (d) return d;
  if (/^\/1\.1\/statuses\/update(\.json)?$/.test(u.pathname) && DM_COMMAND_PARAMS.some((p) => u.searchParams.has(p))) {
    return { match: /./, what: 'DM commands in statuses/update (enable_dm_commands, fail_dm_commands) were removed' };
  }
  return undefined;
}

export function warnDeprecated(ctx: Context, method: string, path: string): void {
  let d: Deprecation | undefined;
  try {
    d = deprecationFor(method, path.replace(/^https?:\/\/[^/]+/, ''));
  } catch {
    return;
  }
  if (d) ctx.io.warn(`${d.what}${d.replacement ? `; use ${d.replacement}` : ''}`);
}
