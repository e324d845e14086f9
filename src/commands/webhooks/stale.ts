// Stale webhooks: what killed `webhooks listen --register` runs leave behind. A webhook is stale
// when either
//   - the service marks it invalid (`valid: false`: its last challenge check failed, and it gets
//     no deliveries until `webhooks validate` passes), or
//   - its URL is a loopback receiver (http://127.x.x.x, localhost, [::1]) and nothing on this
//     machine accepts a connection on its port now (the receiver is gone).
// A live loopback receiver of another process is not stale: the probe only asks whether the port
// answers, so a receiver that is up keeps its webhook.
import net from 'node:net';
import type { Context } from '../../context.js';
import { isLoopbackHost } from '../../contract/hosts.js';
import { WEBHOOK_ENDPOINTS as E } from '../../contract/webhooks.js';

export interface StaleWebhook {
  id: string;
  url: string;
  reason: string;
}

const PROBE_TIMEOUT_MS = 1000;

/** True when something accepts a TCP connection on host:port within the timeout. */
export function portAnswers(host: string, port: number, timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: host.replace(/^\[|\]$/g, ''), port });
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

/** Why a webhook is stale, or undefined when it is not. */
export async function staleReason(w: { url: string; valid?: boolean }): Promise<string | undefined> {
  if (w.valid === false) return 'invalid: its last challenge check (CRC) failed';
  let u: URL;
  try {
    u = new URL(w.url);
  } catch {
    return undefined;
  }
  if (!isLoopbackHost(u.hostname)) return undefined;
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  return (await portAnswers(u.hostname, port))
    ? undefined
    : `nothing answers at ${u.host} (a loopback receiver that is gone)`;
}

/** GET /2/webhooks, then the stale ones among them (`except`: ids to leave out). */
export async function findStaleWebhooks(ctx: Context, except: string[] = []): Promise<StaleWebhook[]> {
  const http = await ctx.http();
  const res = await http.request<{ data?: Array<{ id: string; url: string; valid?: boolean }> }>({
    method: E.list.method,
    path: E.list.path,
    auth: 'app',
  });
  const all = (res.data.data ?? []).filter((w) => !except.includes(String(w.id)));
  const reasons = await Promise.all(all.map((w) => staleReason(w)));
  return all.flatMap((w, i) => (reasons[i] ? [{ id: String(w.id), url: String(w.url), reason: reasons[i]! }] : []));
}
