// `xctl sandbox trigger <event-type>`: deliver an event through a running sandbox.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError, errorMessage } from '../../core/errors.js';
import { ACTIVITY_EVENT_TYPES, EVENT_TYPE_ALIASES, canonicalEventType } from '../../contract/activity.js';
import { checkInput } from '../../core/check-input.js';
import { SANDBOX_ADMIN_ENDPOINTS } from '../../contract/sandbox-admin.js';
import { declare } from '../define.js';
import { DRY_RUN_OPTION } from '../dry-run.js';
import { wrapWords } from '../help-text.js';

export interface SandboxTriggerOptions {
  eventType: string;
  userId?: string;
  data?: string;
  dryRun?: boolean;
}

export function register(parent: Command, runF = sandboxTrigger): void {
  declare(parent, {
    name: 'trigger',
    description: 'deliver an event to every matching webhook, stream and subscription of a running sandbox',
    arguments: [['<event-type>', 'one of the 29 event types (listed below)']],
    options: [
      ['--user-id <id>', 'the user the event is about'],
      ['--data <json>', 'the event payload (a JSON object)'],
      DRY_RUN_OPTION,
    ],
    helpAfter: () =>
      `\nEvent types:\n${wrapWords(ACTIVITY_EVENT_TYPES, '  ')}\n${wrapWords(['(also', 'accepted:', ...Object.keys(EVENT_TYPE_ALIASES).map((a, i, l) => a + (i < l.length - 1 ? ',' : ')'))], '  ')}`,
    run: (ctx, o, [eventType]) => runF(ctx, { ...o, eventType }),
  });
}

export async function sandboxTrigger(ctx: Context, opts: SandboxTriggerOptions): Promise<void> {
  const eventType = opts.eventType;
  let payload: unknown = {};
  if (opts.data !== undefined) {
    try {
      payload = JSON.parse(opts.data);
    } catch (e) {
      throw new UsageError(`--data is not valid JSON: ${errorMessage(e)}`, { flag: '--data' });
    }
  }
  // The platform's names only (aliases resolved): an unknown type would match nothing, silently.
  const body = { event_type: eventType, user_id: opts.userId, payload };
  const types = `event types: ${ACTIVITY_EVENT_TYPES.join(' ')}`;
  // The suggestions only for a name that is not the platform's (the check below then refuses it).
  const near = canonicalEventType(eventType) ? '' : await nearEventTypes(eventType);
  checkInput(SANDBOX_ADMIN_ENDPOINTS.events, { body }, { event_type: near ? `${near.slice(2, -1)}; ${types}` : types });
  if (opts.dryRun) {
    const { printRequest, dryRunDone } = await import('../dry-run.js');
    const e = SANDBOX_ADMIN_ENDPOINTS.events;
    await printRequest(ctx, { method: e.method, path: e.path, json: body });
    return dryRunDone(ctx);
  }
  const http = await ctx.http();
  const res = await http.request<{ data: Record<string, unknown> }>({
    method: SANDBOX_ADMIN_ENDPOINTS.events.method,
    path: SANDBOX_ADMIN_ENDPOINTS.events.path,
    auth: 'basic',
    json: body,
  });
  const { printOne } = await import('../../core/output.js');
  await printOne(ctx.io, await ctx.output(), res.data.data);
  const { deliveries, unreached } = res.data.data;
  if (deliveries !== 0) return;
  // A subscription may match and still reach nobody: say which, and what to connect.
  if (Array.isArray(unreached) && unreached.length) {
    const { escapeForTerminal } = await import('../../core/sanitize.js');
    ctx.io.info(
      `deliveries 0: ${escapeForTerminal(unreached.map(String).join('; '))}; connect \`xctl activity stream\` (the event is kept for its backfill), or give the subscription a webhook (\`xctl webhooks listen --register\`)`,
    );
  } else
    ctx.io.info(
      'deliveries 0: no subscription matches; run `xctl webhooks listen --register` (or `xctl activity stream`) to receive events',
    );
}

/** " (did you mean ...?)" for an unknown event type, or "". */
async function nearEventTypes(eventType: string): Promise<string> {
  const { didYouMean } = await import('../../core/suggest.js');
  return didYouMean(eventType.slice(0, 80), ACTIVITY_EVENT_TYPES);
}
