// `xctl stream rules counts`
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { STREAM_ENDPOINTS as E } from '../../../contract/stream.js';
import { declare } from '../../define.js';

export function register(parent: Command, runF = rulesCounts): void {
  declare(parent, {
    name: 'counts',
    description: 'rule caps, and how many rules this app and its project use',
    run: (ctx) => runF(ctx),
  });
}

/** GET /2/tweets/search/stream/rules/counts (XDK's stream.getRuleCounts) */
export async function rulesCounts(ctx: Context): Promise<void> {
  const http = await ctx.http();
  const res = await http.request<{ data?: Record<string, unknown> }>({
    method: E.ruleCounts.method,
    path: E.ruleCounts.path,
    auth: 'app',
    query: {
      'rules_count.fields':
        'all_project_client_apps,cap_per_client_app,cap_per_project,client_app_rules_count,project_rules_count',
    },
  });
  const d = res.data.data ?? {};
  const app = (d.client_app_rules_count ?? {}) as { rule_count?: number; client_app_id?: string };
  const { printOne } = await import('../../../core/output.js');
  await printOne(ctx.io, await ctx.output(), {
    app_rules: app.rule_count,
    cap_per_client_app: d.cap_per_client_app,
    project_rules: d.project_rules_count,
    cap_per_project: d.cap_per_project,
    client_app_id: app.client_app_id,
  });
}
