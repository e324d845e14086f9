// `xctl webhooks create|list|delete|validate|replay|crc|verify`: v2 webhook management with the
// app-only bearer (credentials-webhooks.md 4.3, 5), and the two HMAC checks done locally.
import fs from 'node:fs';
import type { Context } from '../../context.js';
import { CheckFailed, UsageError } from '../../core/errors.js';
import { isLoopbackHost } from '../../contract/hosts.js';
import { pathOf } from '../../contract/endpoint.js';
import { NUMERIC_ID } from '../../contract/ids.js';
import { parseIsoTime } from '../../contract/time.js';
import { REPLAY_WINDOW_MS, WEBHOOK_ENDPOINTS as E, parseReplayDate, toReplayDate } from '../../contract/webhooks.js';
import { crcResponse, isServiceShapedCrcToken, verifySignature } from '../../webhooks/crypto.js';
import { webhookUrlProblem } from '../../webhooks/url-rules.js';

export const WEBHOOK_COLUMNS = ['id', 'url', 'valid', 'created_at'];

export function checkWebhookId(id: string): string {
  if (!NUMERIC_ID.test(id)) throw new UsageError(`webhook id must be 1-19 digits (got "${id}")`, { flag: '<id>' });
  return id;
}

/** Client-side URL rules; loopback http only when the API itself is on loopback (the sandbox). */
export async function checkWebhookUrl(ctx: Context, url: string, flag = '<url>'): Promise<string> {
  const base = new URL(await ctx.apiBase());
  const why = webhookUrlProblem(url, isLoopbackHost(base.hostname));
  if (why) {
    throw new UsageError(`webhook URL refused: ${why}`, {
      flag,
      hint: 'webhook URLs are https, public and without a port; http://127.0.0.1:PORT/... is accepted only with a loopback --base-url (the sandbox)',
    });
  }
  return url;
}

/** POST /2/webhooks */
export async function createWebhook(ctx: Context, url: string): Promise<Record<string, unknown>> {
  const http = await ctx.http();
  const res = await http.request<{ data: Record<string, unknown> }>({ method: E.create.method, path: E.create.path, auth: 'app', json: { url } });
  return res.data.data;
}

/** DELETE /2/webhooks/:id */
export async function deleteWebhook(ctx: Context, id: string): Promise<void> {
  const http = await ctx.http();
  await http.request({ method: E.delete.method, path: pathOf(E.delete, { id }), auth: 'app' });
}

/** Registers a webhook after the local URL checks (POST /2/webhooks). */
export async function webhooksCreate(ctx: Context, _o: unknown, args: string[]): Promise<void> {
  const url = await checkWebhookUrl(ctx, args[0]!);
  const w = await createWebhook(ctx, url);
  const { printOne } = await import('../../core/output.js');
  await printOne(ctx.io, await ctx.output(), w, { columns: WEBHOOK_COLUMNS });
}

/** GET /2/webhooks */
export async function webhooksList(ctx: Context): Promise<void> {
  const http = await ctx.http();
  const res = await http.request<{ data?: Array<Record<string, unknown>> }>({ method: E.list.method, path: E.list.path, auth: 'app' });
  const { printList } = await import('../../core/output.js');
  const rows = (res.data.data ?? []).map((w) => ({ ...w, status: w.valid ? 'valid' : 'invalid' }));
  await printList(ctx.io, await ctx.output(), rows, { columns: ['id', 'url', 'status', 'created_at'], knownFields: ['id', 'url', 'valid', 'status', 'created_at'] });
}

/** Deletes a webhook after confirmation (DELETE /2/webhooks/:id). */
export async function webhooksDelete(ctx: Context, _o: unknown, args: string[]): Promise<void> {
  const id = checkWebhookId(args[0]!);
  if (!(await ctx.confirm(`delete webhook ${id}?`))) throw new UsageError('not deleted');
  await deleteWebhook(ctx, id);
  ctx.io.info(`deleted webhook ${id}`);
}

/** PUT /2/webhooks/:id — a challenge check that re-enables the webhook when it passes. */
export async function webhooksValidate(ctx: Context, _o: unknown, args: string[]): Promise<void> {
  const id = checkWebhookId(args[0]!);
  const http = await ctx.http();
  const res = await http.request<{ data: { valid: boolean } }>({ method: E.validate.method, path: pathOf(E.validate, { id }), auth: 'app' });
  const valid = !!res.data.data?.valid;
  const { printOne } = await import('../../core/output.js');
  await printOne(ctx.io, await ctx.output(), { id, valid, status: valid ? 'valid' : 'invalid' });
  if (!valid) throw new CheckFailed(`webhook ${id} failed the challenge check and is invalid`, { hint: 'see GET /_sandbox/deliveries (sandbox) or your receiver logs; `xctl webhooks listen` answers checks' });
}

/** ISO 8601 or yyyymmddhhmm (UTC) to epoch ms. */
export function parseReplayTime(v: string, flag: string): number {
  const t = parseReplayDate(v) ?? parseIsoTime(v);
  if (t === undefined) throw new UsageError(`${flag} must be an ISO time (2026-01-15T12:00Z) or yyyymmddhhmm in UTC (got "${v}")`, { flag });
  return t;
}

export interface ReplayOptions {
  from?: string;
  to?: string;
}

/** POST /2/webhooks/replay */
export async function webhooksReplay(ctx: Context, o: ReplayOptions, args: string[]): Promise<void> {
  const id = checkWebhookId(args[0]!);
  if (!o.from) throw new UsageError('--from is required', { flag: '--from' });
  const now = ctx.clock.now();
  const from = parseReplayTime(o.from, '--from');
  const to = o.to ? parseReplayTime(o.to, '--to') : now;
  const floorNow = now - (now % 60_000);
  if (to < from) throw new UsageError('--to must not be before --from', { flag: '--to' });
  if (from < floorNow - REPLAY_WINDOW_MS) throw new UsageError('--from must be within the past 24 hours (replay window)', { flag: '--from' });
  if (to > now + 60_000) throw new UsageError('--to must not be in the future', { flag: '--to' });
  const http = await ctx.http();
  const body = { webhook_id: id, from_date: toReplayDate(from), to_date: toReplayDate(Math.min(to, floorNow)) };
  const res = await http.request<{ data: Record<string, unknown> }>({ method: E.replay.method, path: E.replay.path, auth: 'app', json: body });
  const { printOne } = await import('../../core/output.js');
  await printOne(ctx.io, await ctx.output(), { ...res.data.data, webhook_id: id, from_date: body.from_date, to_date: body.to_date });
}

async function consumerSecret(ctx: Context): Promise<string> {
  const c = await ctx.credentials();
  if (!c.api_secret) throw new UsageError('no API secret is set: the CRC and signatures are keyed with it', { hint: 'run `xctl auth set --api-key KEY --api-secret -` or set XCTL_API_SECRET' });
  return c.api_secret;
}

export async function webhooksCrc(ctx: Context, _o: unknown, args: string[]): Promise<void> {
  const token = args[0]!;
  if (!isServiceShapedCrcToken(token)) throw new UsageError('a crc_token is at most 256 letters, digits and -_=+/.: (anything else is not from the service)', { flag: '<crc_token>' });
  ctx.io.out(JSON.stringify(crcResponse(await consumerSecret(ctx), token)));
}

export interface VerifyOptions {
  signature?: string;
  body?: string;
}

/** Exit 0 when the signature matches the raw body, 1 when not (constant-time compare). */
export async function webhooksVerify(ctx: Context, o: VerifyOptions): Promise<void> {
  if (!o.signature) throw new UsageError('--signature is required (the x-service-webhooks-signature header value)', { flag: '--signature' });
  const spec = o.body ?? '-';
  let raw: Buffer;
  if (spec === '-' || spec === '@-') {
    const chunks: Buffer[] = [];
    for await (const c of ctx.io.stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
    raw = Buffer.concat(chunks); // the raw bytes: a re-encoded body would not match its signature
  } else {
    const p = spec.startsWith('@') ? spec.slice(1) : spec;
    try {
      raw = await fs.promises.readFile(p);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new UsageError(`--body: cannot read ${p}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (code ?? (e as Error).message)}`, { flag: '--body' });
    }
  }
  if (verifySignature(await consumerSecret(ctx), raw, o.signature)) {
    ctx.io.info('signature valid');
    return;
  }
  throw new CheckFailed('signature invalid for this body and API secret');
}
