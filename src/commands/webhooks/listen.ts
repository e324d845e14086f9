// `xctl webhooks listen`: the local receiver (docs/contract.md, design "Webhook receiver"), optionally registered
// with the service on start (`--register`) with activity subscriptions pointing at it (like
// `stripe listen`), and both removed again on exit unless `--keep`.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError, errnoCode, errorMessage } from '../../core/errors.js';
import { boundAddress, isRecord } from '../../contract/guards.js';
import { escapeForTerminal } from '../../core/sanitize.js';
import { isLoopbackHost } from '../../contract/hosts.js';
import { checkBaseUrl } from '../../core/base-url.js';
import { ACTIVITY_EVENT_TYPES, DEPRECATED_EVENT_NAMES, canonicalEventType } from '../../contract/activity.js';
import { NUMERIC_ID, idProblem } from '../../contract/ids.js';
import type { ReceivedDelivery } from '../../webhooks/listener.js';
import { printJqText } from '../../core/output.js';
import { declare } from '../define.js';
import { checkWebhookUrl } from './checks.js';
import { createWebhook } from './create.js';
import { deleteWebhook } from './delete.js';

export interface ListenOptions {
  port?: string;
  host?: string;
  path?: string;
  forwardTo?: string;
  publicUrl?: string;
  register?: boolean;
  events?: string;
  userId?: string;
  subscribe?: boolean;
  keep?: boolean;
}

const FORWARD_TIMEOUT_MS = 10_000;
/** Event ids remembered to drop repeated deliveries (the service retries; a replay may repeat). */
const SEEN_MAX = 20_000;

export function register(parent: Command, runF = webhooksListen): void {
  declare(parent, {
    name: 'listen',
    description: 'run a local receiver: answers CRC checks, verifies signatures, prints each event',
    options: [
      ['--port <n>', 'port (0 picks a free one)', '0'],
      ['--host <host>', 'address to listen on', '127.0.0.1'],
      ['--path <path>', 'URL path of the receiver', '/webhooks'],
      ['--forward-to <url>', 'POST each verified delivery (raw body and headers) to this URL'],
      ['--public-url <url>', 'the public URL reaching this listener (registered with --register)'],
      [
        '--register',
        'register the webhook on start (the local URL on a loopback sandbox) and subscribe it to events; both are removed on exit',
      ],
      [
        '--events <types>',
        'with --register: the event types to subscribe it to, comma-separated (default on the sandbox: all 29; required against the service)',
      ],
      ['--user-id <id>', 'with --register: subscribe to the events about this user only (filter.user_id)'],
      ['--no-subscribe', 'with --register: register the webhook only, create no activity subscription'],
      ['--keep', 'with --register: leave the webhook and its subscriptions registered on exit'],
    ],
    helpAfter:
      '\nWith --register the webhook gets one activity subscription per event type (--events, or on a ' +
      'loopback sandbox every type it knows; against the service --events is required, since each ' +
      "subscription counts against the app's limit and DM events need a DM-permission token). " +
      'On exit (Ctrl-C, SIGTERM) the subscriptions and the webhook are deleted unless --keep. ' +
      'Webhooks left by runs that were killed are reported; `xctl webhooks delete --all-stale` removes them.',
    run: (ctx, o) => runF(ctx, o),
  });
}

const idText = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : undefined);

/**
 * Whose event it is: the matched filter's user (`user_id`; `userId` as the SDKs spell it), else
 * the user the payload names (post.delete's author, a follow's source), else "-".
 */
function eventUser(filter: Record<string, unknown>, payload: Record<string, unknown>): string {
  const source = isRecord(payload.source) ? payload.source.id : undefined;
  return [filter.user_id, filter.userId, payload.user_id, payload.author_id, source].map(idText).find(Boolean) ?? '-';
}

/** One printable line per event: time, type, user, summary. */
export function summarize(json: unknown): { type: string; user: string; summary: string } {
  const body: unknown = isRecord(json) ? (json.data ?? json) : json;
  if (!body || typeof body !== 'object') return { type: 'unknown', user: '-', summary: '' };
  // A list has no named fields: it is summarized as an unnamed event.
  const d: Record<string, unknown> = isRecord(body) ? body : {};
  const short = (s: string) => (s.length > 80 ? s.slice(0, 79) + '…' : s);
  if (typeof d.event_type === 'string') {
    const payload = isRecord(d.payload) ? d.payload : {};
    const filter = isRecord(d.filter) ? d.filter : {};
    const user = eventUser(filter, payload);
    const summary =
      'before' in payload || 'after' in payload
        ? `${JSON.stringify(payload.before ?? null)} -> ${JSON.stringify(payload.after ?? null)}`
        : JSON.stringify(d.payload ?? {});
    return { type: d.event_type, user, summary: short(summary + (d.tag ? ` [tag ${String(d.tag)}]` : '')) };
  }
  if (typeof d.text === 'string') {
    const edits =
      Array.isArray(d.edit_history_tweet_ids) && d.edit_history_tweet_ids.length > 1
        ? ` (edit ${d.edit_history_tweet_ids.length - 1})`
        : '';
    const matching = isRecord(json) && Array.isArray(json.matching_rules) ? json.matching_rules : undefined;
    const rules = matching?.map((r: unknown) => (isRecord(r) ? (r.tag ?? r.id) : undefined)).join(',');
    return {
      type: 'post',
      user: String(d.author_id ?? '-'),
      summary: short(`${d.id}${edits}: ${d.text}${rules ? ` [rules ${rules}]` : ''}`),
    };
  }
  return {
    type: Object.keys(body).find((k) => k.endsWith('_events')) ?? 'event',
    user: String(d.for_user_id ?? '-'),
    summary: short(JSON.stringify(body)),
  };
}

/** Serves the receiver; with --register it calls POST /2/webhooks on start and DELETE /2/webhooks/:id on exit. */
export async function webhooksListen(ctx: Context, o: ListenOptions): Promise<void> {
  const { port, host, path, forward } = checkListenFlags(o);
  const events = o.register && o.subscribe !== false ? await eventsToSubscribe(ctx, o.events) : [];
  if (o.publicUrl) await checkWebhookUrl(ctx, o.publicUrl, '--public-url');
  const creds = await ctx.credentials();
  if (!creds.api_secret)
    throw new UsageError('no API secret is set: CRC answers and signatures are keyed with it', {
      hint: 'run `xctl auth set --api-key KEY --api-secret -` or set XCTL_API_SECRET',
    });
  const secret = creds.api_secret;
  const wantJson = ctx.wantsJson;
  // --jq runs over each event's JSON (checked before the receiver starts).
  const { jq } = await ctx.output();
  const onDelivery = deliveryHandler(ctx, { jq, wantJson, forward });

  const { createReceiver } = await import('../../webhooks/listener.js');
  const server = createReceiver({
    secret,
    path,
    onCrc: () => ctx.io.info('answered a challenge check (CRC)'),
    onDelivery: (d) => void onDelivery(d).catch((e) => ctx.io.warn(`handling a delivery failed: ${errorMessage(e)}`)),
    onRejected: (reason, req) => ctx.io.warn(`rejected ${req.method} from ${req.socket.remoteAddress}: ${reason}`),
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
  } catch (e) {
    const code = errnoCode(e);
    throw new UsageError(
      code === 'EADDRINUSE' ? `port ${port} is in use` : `cannot listen on ${host}:${port}: ${errorMessage(e)}`,
      { flag: '--port' },
    );
  }
  const addr = boundAddress(server);
  const local = `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}${path}`;
  ctx.io.info(`listening on ${local}${forward ? ` (forwarding to ${forward})` : ''}; Ctrl-C stops`);

  let registered: string | undefined;
  const subscriptions: string[] = [];
  const stop = async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  };
  try {
    if (o.register) {
      let url = o.publicUrl;
      if (!url) {
        if (!isLoopbackHost(new URL(await ctx.apiBase()).hostname)) {
          throw new UsageError('--register needs --public-url (the https URL that reaches this listener)', {
            flag: '--public-url',
          });
        }
        url = local; // the sandbox accepts loopback receivers
      }
      try {
        const w = await createWebhook(ctx, url);
        registered = String(w.id);
      } catch (e) {
        await reportStale(ctx, []);
        throw e;
      }
      ctx.io.info(`registered webhook ${registered} for ${url} (challenge check passed)`);
      if (events.length) subscriptions.push(...(await subscribeAll(ctx, registered, events, o.userId)));
      await reportStale(ctx, [registered]);
    }
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) return resolve();
      ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
  } finally {
    await stop();
    if (registered) await cleanUp(ctx, registered, subscriptions, !!o.keep);
  }
}

/** --port, --host, --path, --forward-to and the flags that go with --register, checked before anything starts. */
function checkListenFlags(o: ListenOptions): { port: number; host: string; path: string; forward?: string } {
  const port = Number(o.port ?? '0');
  if (!/^\d+$/.test(o.port ?? '0') || port > 65535)
    throw new UsageError(`--port must be 0-65535 (got "${o.port}")`, { flag: '--port' });
  const host = o.host ?? '127.0.0.1';
  const path = o.path ?? '/webhooks';
  if (!path.startsWith('/')) throw new UsageError(`--path must start with / (got "${path}")`, { flag: '--path' });
  const forward = o.forwardTo ? checkBaseUrl(o.forwardTo, '--forward-to').toString() : undefined;
  if (o.publicUrl && !o.register)
    throw new UsageError('--public-url is the URL to register: pass --register with it', { flag: '--public-url' });
  for (const [flag, given] of [
    ['--events', o.events !== undefined],
    ['--user-id', o.userId !== undefined],
    ['--keep', !!o.keep],
    ['--no-subscribe', o.subscribe === false],
  ] as const) {
    if (given && !o.register) throw new UsageError(`${flag} goes with --register`, { flag });
  }
  if (o.userId !== undefined && !NUMERIC_ID.test(o.userId))
    throw new UsageError(idProblem('--user-id', o.userId), { flag: '--user-id' });
  if (o.events !== undefined && o.subscribe === false)
    throw new UsageError('--events and --no-subscribe contradict each other', { flag: '--events' });
  return { port, host, path, forward };
}

/**
 * What the receiver does with a verified delivery: drops a repeated event, renames a deprecated
 * type (warning once), prints it (a line, its JSON, or --jq's output; the sender's text escaped),
 * and forwards the raw body and signature headers with --forward-to.
 */
function deliveryHandler(
  ctx: Context,
  o: { jq: Awaited<ReturnType<Context['output']>>['jq']; wantJson: boolean; forward?: string },
): (d: ReceivedDelivery) => Promise<void> {
  const { jq, wantJson, forward } = o;
  const warned = new Set<string>();
  const seen = new Set<string>();

  return async (d: ReceivedDelivery) => {
    const data = isRecord(d.json) && isRecord(d.json.data) ? d.json.data : undefined;
    const uuid = data && typeof data.event_uuid === 'string' ? data.event_uuid : undefined;
    if (uuid) {
      if (seen.has(uuid)) return ctx.io.info(`dropped a repeated delivery of event ${uuid}`);
      seen.add(uuid);
      if (seen.size > SEEN_MAX) seen.delete(seen.values().next().value!);
    }
    const name = data && typeof data.event_type === 'string' ? data.event_type : undefined;
    if (name && DEPRECATED_EVENT_NAMES[name]) {
      if (!warned.has(name)) {
        warned.add(name);
        ctx.io.warn(`event type ${name} is deprecated (renamed 2026-03-18); shown as ${DEPRECATED_EVENT_NAMES[name]}`);
      }
      data!.event_type = DEPRECATED_EVENT_NAMES[name];
    }
    // Event data is the sender's text: escaped in the line and in the JSON (as JSON escapes, so
    // the JSON still parses to the same value).
    if (jq !== undefined)
      await printJqText(
        ctx.io,
        jq,
        d.json === undefined ? JSON.stringify({ raw: d.raw.toString('utf8') }) : JSON.stringify(d.json),
      );
    else if (wantJson)
      ctx.io.out(
        escapeForTerminal(
          d.json === undefined ? JSON.stringify({ raw: d.raw.toString('utf8') }) : JSON.stringify(d.json),
        ),
      );
    else {
      const s = summarize(d.json);
      ctx.io.out(
        escapeForTerminal(`${new Date(ctx.clock.now()).toISOString()}  ${s.type}  user=${s.user}  ${s.summary}`),
      );
    }
    if (forward) {
      const { exchange } = await import('../../webhooks/outbound.js');
      const { SIGNATURE_HEADERS } = await import('../../webhooks/crypto.js');
      const headers: Record<string, string> = {};
      for (const h of ['content-type', ...SIGNATURE_HEADERS]) {
        const v = d.headers[h];
        if (typeof v === 'string') headers[h] = v;
      }
      const r = await exchange('POST', forward, { headers, body: d.raw, timeoutMs: FORWARD_TIMEOUT_MS });
      ctx.io.info(
        `forwarded to ${forward}: ${r.status !== undefined ? `HTTP ${r.status}` : r.kind + (r.error ? ` (${r.error})` : '')} in ${r.ms} ms`,
      );
    }
  };
}

/** The event types `--register` subscribes to: --events, else (on a loopback sandbox) all of them. */
async function eventsToSubscribe(ctx: Context, list: string | undefined): Promise<string[]> {
  const hint = `event types: ${ACTIVITY_EVENT_TYPES.join(' ')}`;
  if (list === undefined) {
    if (!isLoopbackHost(new URL(await ctx.apiBase()).hostname)) {
      throw new UsageError(
        '--register against the service needs --events TYPE,... (the event types to subscribe the webhook to), or --no-subscribe',
        { flag: '--events', hint },
      );
    }
    return [...ACTIVITY_EVENT_TYPES];
  }
  const out: string[] = [];
  for (const raw of list
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)) {
    const renamed = DEPRECATED_EVENT_NAMES[raw];
    if (renamed)
      throw new UsageError(`--events: ${raw} is a deprecated name (renamed 2026-03-18): use ${renamed}`, {
        flag: '--events',
      });
    const ev = canonicalEventType(raw);
    if (!ev)
      throw new UsageError(`--events: "${raw.slice(0, 80)}" is not one of the platform's event types`, {
        flag: '--events',
        hint,
      });
    if (!out.includes(ev)) out.push(ev);
  }
  if (!out.length) throw new UsageError('--events needs at least one event type', { flag: '--events', hint });
  return out;
}

/** POST /2/activity/subscriptions, once per event type, each pointing at the webhook. */
async function subscribeAll(
  ctx: Context,
  webhookId: string,
  events: string[],
  userId: string | undefined,
): Promise<string[]> {
  const { buildSubscription } = await import('../activity/subscriptions/create.js');
  const { SUBSCRIPTION_ENDPOINTS } = await import('../activity/subscriptions/shape.js');
  const { chooseAuth } = await import('../v2-auth.js');
  const { scopesForEvent } = await import('../../contract/oauth2.js');
  const { ACTIVITY_ENDPOINTS: A } = await import('../../contract/activity.js');
  const auth = await chooseAuth(ctx, undefined, SUBSCRIPTION_ENDPOINTS.create);
  const http = await ctx.http();
  const ids: string[] = [];
  const failed: string[] = [];
  for (const ev of events) {
    const body = buildSubscription({ event: ev, webhook: webhookId, ...(userId !== undefined ? { userId } : {}) });
    try {
      const res = await http.request<{ data?: { subscription?: { subscription_id?: string } } }>({
        method: A.createSubscription.method,
        path: A.createSubscription.path,
        auth,
        json: body,
        scopes: scopesForEvent(ev),
      });
      const id = res.data.data?.subscription?.subscription_id;
      if (id) ids.push(String(id));
    } catch (e) {
      if (ctx.signal.aborted) break;
      failed.push(ev);
      ctx.io.warn(`could not subscribe to ${ev}: ${errorMessage(e)}`);
    }
  }
  const what =
    events.length === ACTIVITY_EVENT_TYPES.length && !failed.length
      ? `all ${events.length} event types`
      : `${ids.length} event type${ids.length === 1 ? '' : 's'} (${events.filter((e) => !failed.includes(e)).join(', ')})`;
  ctx.io.info(`subscribed webhook ${webhookId} to ${what}${userId ? ` about user ${userId}` : ''}`);
  return ids;
}

/** Webhooks left by earlier runs, with the command that deletes them (never fatal). */
async function reportStale(ctx: Context, except: string[]): Promise<void> {
  try {
    const { findStaleWebhooks } = await import('./stale.js');
    const stale = await findStaleWebhooks(ctx, except);
    if (!stale.length) return;
    for (const w of stale) ctx.io.warn(escapeForTerminal(`stale webhook ${w.id} (${w.url}): ${w.reason}`));
    ctx.io.info(
      `delete ${stale.length === 1 ? 'it' : 'them'} with \`xctl webhooks delete --all-stale\` (\`--dry-run\` lists them first)`,
    );
  } catch {
    /* a report only: the receiver runs regardless */
  }
}

/** DELETE /2/activity/subscriptions?ids= and DELETE /2/webhooks/:id, unless --keep. */
async function cleanUp(ctx: Context, webhookId: string, subscriptions: string[], keep: boolean): Promise<void> {
  if (keep) {
    ctx.io.info(
      `webhook ${webhookId}${subscriptions.length ? ` and its ${subscriptions.length} subscription${subscriptions.length === 1 ? '' : 's'}` : ''} stay registered (--keep); ` +
        `delete with \`xctl webhooks delete ${webhookId}\`${subscriptions.length ? ` and \`xctl activity subscriptions delete ${subscriptions.join(' ')}\`` : ''}`,
    );
    return;
  }
  const { Context } = await import('../../context.js');
  // ctx's signal is aborted (that is why we stop): the deletions need a fresh one.
  // The bearer obtained for registering is reused: asking for another one is punished (code 99).
  const env = { ...ctx.env, XCTL_BEARER_TOKEN: await ctx.bearer({ cacheOnly: true }) };
  const c2 = new Context({
    streams: { stdin: ctx.io.stdin, stdout: ctx.io.stdout, stderr: ctx.io.stderr },
    env,
    globals: ctx.globals,
    version: ctx.version,
    clock: ctx.clock,
    transport: ctx.transport,
  });
  if (subscriptions.length) {
    const { ACTIVITY_ENDPOINTS: A, SUBSCRIPTION_LIMITS: L } = await import('../../contract/activity.js');
    let deleted = 0;
    try {
      const http = await c2.http();
      for (let i = 0; i < subscriptions.length; i += L.deleteManyIds.max) {
        const chunk = subscriptions.slice(i, i + L.deleteManyIds.max);
        const res = await http.request<{ data?: Array<{ deleted?: boolean }> }>({
          method: A.deleteSubscriptions.method,
          path: A.deleteSubscriptions.path,
          auth: 'app',
          query: { ids: chunk.join(',') },
        });
        deleted += (res.data.data ?? []).filter((d) => d.deleted).length;
      }
      ctx.io.info(`deleted ${deleted} subscription${deleted === 1 ? '' : 's'}`);
    } catch (e) {
      ctx.io.warn(`could not delete the subscriptions (${subscriptions.join(' ')}): ${errorMessage(e)}`);
    }
  }
  try {
    await deleteWebhook(c2, webhookId);
    ctx.io.info(`deleted webhook ${webhookId}`);
  } catch (e) {
    ctx.io.warn(
      `could not delete webhook ${webhookId}: ${errorMessage(e)}; \`xctl webhooks delete --all-stale\` removes it later`,
    );
  }
}
