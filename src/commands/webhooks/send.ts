// `xctl webhooks send --to URL (--event TYPE [--user-id ID] [--data JSON] | --from FILE|-)`: one
// delivery signed with the profile's consumer secret and shaped like the platform's, to test a
// handler without the platform. Exit 0 when the receiver acknowledges it with 200.
import fs from 'node:fs';
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { CheckFailed, InterruptedError, UsageError, XctlError, errnoCode, errorMessage } from '../../core/errors.js';
import { checkBaseUrl } from '../../core/base-url.js';
import { ACTIVITY_EVENT_TYPES, DEPRECATED_EVENT_NAMES, canonicalEventType } from '../../contract/activity.js';
import { NUMERIC_ID, idProblem } from '../../contract/ids.js';
import { DELIVERY_TIMEOUT_MS } from '../../contract/webhooks.js';
import { declare } from '../define.js';
import { consumerSecret } from './checks.js';
import { bufferOf, isRecord } from '../../contract/guards.js';

export interface SendOptions {
  to?: string;
  event?: string;
  userId?: string;
  data?: string;
  tag?: string;
  from?: string;
}

export function register(parent: Command, runF = webhooksSend): void {
  declare(parent, {
    name: 'send',
    description: "POST one signed delivery shaped like the platform's to a URL (exit 0 when it answers 200)",
    options: [
      ['--to <url>', 'the receiver URL (https, or http on loopback)'],
      ['--event <type>', 'the event type, e.g. profile.update.bio'],
      ['--user-id <id>', "the user the event is about (the envelope's filter.user_id)"],
      ['--data <json>', 'the event payload (a JSON object)'],
      ['--tag <tag>', "the subscription's tag the envelope carries"],
      [
        '--from <file>',
        'a recorded delivery: a `webhooks listen --json` line or a `sandbox logs --json` delivery entry (- for stdin)',
      ],
    ],
    run: (ctx, o) => runF(ctx, o),
  });
}

/** POSTs the delivery (no redirect followed, the whole answer within 10 s) and prints what was sent and the answer. */
export async function webhooksSend(ctx: Context, o: SendOptions): Promise<void> {
  if (!o.to)
    throw new UsageError('--to URL is required (the receiver to POST the delivery to)', {
      flag: '--to',
    });
  const to = checkBaseUrl(o.to, '--to').toString();
  const body = await deliveryBody(ctx, o);
  const secret = await consumerSecret(ctx);
  const { deliveryHeaders } = await import('../../webhooks/crypto.js');
  const { exchange } = await import('../../webhooks/outbound.js');
  const signed = deliveryHeaders(secret, body);
  const headers = { ...signed, 'user-agent': 'xctl-webhooks-send' };
  // The whole answer within the platform's 10 s (a receiver dripping a byte now and then is cut
  // off too); the global --deadline, Ctrl-C and SIGTERM end it sooner.
  const r = await exchange('POST', to, {
    headers,
    body,
    timeoutMs: DELIVERY_TIMEOUT_MS,
    deadlineMs: DELIVERY_TIMEOUT_MS,
    signal: ctx.signal,
  });
  if (ctx.signal.aborted) {
    const why: unknown = ctx.signal.reason;
    throw why instanceof XctlError ? why : new InterruptedError('interrupted');
  }
  const rec = {
    url: to,
    status: r.status ?? null,
    ms: r.ms,
    event_type: eventTypeOf(body),
    signature: signed['x-service-webhooks-signature'] ?? null,
    body,
  };
  const { printOne } = await import('../../core/output.js');
  await printOne(ctx.io, await ctx.output(), rec, {
    columns: ['status', 'ms', 'event_type', 'url', 'signature'],
  });
  if (r.status !== 200) {
    const what = r.status !== undefined ? `HTTP ${r.status}` : `${r.kind}${r.error ? ` (${r.error})` : ''}`;
    throw new CheckFailed(
      `the receiver did not acknowledge the delivery: ${what} (the platform needs 200 within ${DELIVERY_TIMEOUT_MS / 1000} s)`,
    );
  }
}

/** The raw JSON text to send: a recorded delivery (--from), else an envelope built from the flags. */
async function deliveryBody(ctx: Context, o: SendOptions): Promise<string> {
  const { activityDelivery, parseRecorded } = await import('../../webhooks/event.js');
  const built = o.event !== undefined || o.data !== undefined || o.userId !== undefined || o.tag !== undefined;
  if (o.from !== undefined) {
    if (o.data !== undefined || o.userId !== undefined || o.tag !== undefined)
      throw new UsageError('--from sends a recorded delivery: --data, --user-id and --tag build a new one', {
        flag: '--from',
      });
    const rec = parseRecorded(await readInput(ctx, o.from));
    if (typeof rec === 'string') throw new UsageError(`--from: ${rec}`, { flag: '--from' });
    if (o.event !== undefined) throw new UsageError('--from carries its event type: drop --event', { flag: '--event' });
    return rec.kind === 'body'
      ? rec.raw
      : activityDelivery({ eventType: rec.eventType, ...(rec.uuid ? { uuid: rec.uuid } : {}) });
  }
  if (!built || o.event === undefined)
    throw new UsageError('--event TYPE (or --from a recorded delivery) is required', {
      flag: '--event',
      hint: `event types: ${ACTIVITY_EVENT_TYPES.join(' ')}`,
    });
  return activityDelivery({
    eventType: checkEvent(o.event),
    ...(o.userId !== undefined ? { userId: checkUser(o.userId) } : {}),
    ...(o.tag !== undefined ? { tag: o.tag } : {}),
    payload: payloadOf(o.data),
  });
}

function checkEvent(raw: string): string {
  const renamed = DEPRECATED_EVENT_NAMES[raw];
  if (renamed)
    throw new UsageError(`--event: ${raw} is a deprecated name (renamed 2026-03-18): use ${renamed}`, {
      flag: '--event',
    });
  const ev = canonicalEventType(raw);
  if (!ev)
    throw new UsageError(`--event: "${raw.slice(0, 80)}" is not one of the platform's event types`, {
      flag: '--event',
      hint: `event types: ${ACTIVITY_EVENT_TYPES.join(' ')}`,
    });
  return ev;
}

function checkUser(id: string): string {
  if (!NUMERIC_ID.test(id)) throw new UsageError(idProblem('--user-id', id), { flag: '--user-id' });
  return id;
}

function payloadOf(data: string | undefined): Record<string, unknown> {
  if (data === undefined) return {};
  let v: unknown;
  try {
    v = JSON.parse(data);
  } catch (e) {
    throw new UsageError(`--data is not valid JSON: ${errorMessage(e)}`, { flag: '--data' });
  }
  if (!isRecord(v)) throw new UsageError('--data must be a JSON object', { flag: '--data' });
  return v;
}

async function readInput(ctx: Context, spec: string): Promise<string> {
  if (spec === '-' || spec === '@-') {
    const chunks: Buffer[] = [];
    for await (const c of ctx.io.stdin) chunks.push(bufferOf(c));
    return Buffer.concat(chunks).toString('utf8');
  }
  const p = spec.startsWith('@') ? spec.slice(1) : spec;
  try {
    return await fs.promises.readFile(p, 'utf8');
  } catch (e) {
    throw new UsageError(`--from: cannot read ${p}: ${errnoCode(e) ?? errorMessage(e)}`, {
      flag: '--from',
    });
  }
}

function eventTypeOf(body: string): string | null {
  try {
    const d = (JSON.parse(body) as { data?: { event_type?: unknown } }).data;
    return typeof d?.event_type === 'string' ? d.event_type : null;
  } catch {
    return null;
  }
}
