// `xctl stream webhooks list`
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { STREAM_ENDPOINTS as E } from '../../../contract/stream.js';
import { declare } from '../../define.js';

export function register(parent: Command, runF = listLinks): void {
  declare(parent, {
    name: 'list',
    description: 'list linked webhooks, each with its field set',
    run: (ctx) => runF(ctx),
  });
}

const COLUMNS = ['webhook_id', 'instance_id', 'fields', 'created_at'];

/**
 * GET /2/tweets/search/webhooks. OpenAPI 2.167 answers `{"data":[link]}`, 2.147-2.165 and the
 * quickstart `{"data":{"links":[link]}}`: both are read (docs/contract.md, notes-2 section 7).
 */
export async function listLinks(ctx: Context): Promise<void> {
  const http = await ctx.http();
  const res = await http.request<{
    data?: Array<Record<string, unknown>> | { links?: Array<Record<string, unknown>> };
  }>({ method: E.listLinks.method, path: E.listLinks.path, auth: 'app' });
  const d = res.data.data;
  const rows = (Array.isArray(d) ? d : (d?.links ?? [])).map((l) => ({
    ...l,
    fields: Array.isArray(l.fields) ? l.fields.join('&') : l.fields,
  }));
  const { printList } = await import('../../../core/output.js');
  await printList(ctx.io, await ctx.output(), rows, {
    columns: COLUMNS,
    knownFields: [...COLUMNS, 'application_id', 'business_user_id'],
  });
}
