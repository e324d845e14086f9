// `xctl webhooks doctor [URL] [--id ID]`: the platform's checks against a deployed receiver,
// step by step with the profile's consumer secret; exit 0 healthy, 1 not, with the first failure
// named by a stable `cause` (`-o json`).
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { CheckFailed, UsageError } from '../../core/errors.js';
import { escapeForTerminal } from '../../core/sanitize.js';
import { WEBHOOK_ENDPOINTS as E } from '../../contract/webhooks.js';
import type { DoctorCause, DoctorReport } from '../../webhooks/doctor.js';
import { declare } from '../define.js';
import { checkWebhookId, consumerSecret } from './checks.js';

export interface DoctorOptions {
  url?: string;
  id?: string;
  delivery?: boolean;
}

export function register(parent: Command, runF = webhooksDoctor): void {
  declare(parent, {
    name: 'doctor',
    description:
      'check a deployed receiver the way the platform does and name the first failure (exit 0 healthy, 1 not)',
    arguments: [['[url]', 'the receiver URL (or --id of a registered webhook)']],
    options: [
      ['--id <webhook_id>', "check a registered webhook's URL (`xctl webhooks list`)"],
      ['--no-delivery', 'skip the signed test delivery (a POST of a profile.update.bio test event)'],
    ],
    helpAfter:
      '\nSteps: url (https, public host, no port; loopback http is the local stand-in), dns, tcp, tls ' +
      '(chain, expiry, host name, SNI), crc (a GET with a fresh crc_token: no redirect, 200 within 3 s, ' +
      "JSON, a response_token signed with this profile's API secret), delivery (a signed POST, 200 within 10 s).\n" +
      'Causes (-o json "cause"): url_rules dns unreachable tls redirect http_status slow not_json ' +
      'bad_response_token wrong_secret content_type delivery_status delivery_slow delivery_failed.',
    run: (ctx, o, [url]) => runF(ctx, { ...o, ...(url !== undefined ? { url } : {}) }),
  });
}

/** What to do about each cause: the last line of the report. */
export const CAUSE_HINTS: Record<DoctorCause, string> = {
  url_rules: 'register an https URL on a public host name, without a port',
  dns: 'publish the host name in public DNS, pointing at a public address',
  unreachable: 'open the port to the internet (firewall, load balancer, security group) and check the server runs',
  tls: 'serve a certificate from a public authority for this host name, unexpired, with its intermediate certificates',
  redirect: 'register the URL the redirect points to (often http->https or a trailing slash)',
  http_status: 'route GET requests with a crc_token to the handler (path, method, proxy rules, server logs)',
  slow: 'answer the challenge at once from the web process, without waiting on other services',
  not_json: 'answer {"response_token":"sha256=..."} as JSON; a proxy or framework page answered instead',
  bad_response_token: 'response_token is "sha256=" + base64(HMAC-SHA256(key = API secret, message = crc_token))',
  wrong_secret: "deploy this app's API secret (consumer secret); `xctl webhooks crc TOKEN` prints the answer expected",
  content_type: 'send the challenge answer with Content-Type: application/json',
  delivery_status: 'acknowledge each signed POST with HTTP 200 (verify the signature, then answer)',
  delivery_slow: 'acknowledge each POST at once and process the event afterwards',
  delivery_failed: 'accept POST requests on this URL (the connection failed during the delivery)',
};

/** Runs the checks; exit 0 when healthy, CheckFailed (exit 1) naming the cause otherwise. */
export async function webhooksDoctor(ctx: Context, o: DoctorOptions): Promise<void> {
  if (o.url !== undefined && o.id !== undefined)
    throw new UsageError('give the URL or --id, not both', { flag: '--id' });
  if (o.url === undefined && o.id === undefined)
    throw new UsageError('give the receiver URL, or --id WEBHOOK_ID of a registered webhook', {
      flag: '<url>',
    });
  const settings = await ctx.output();
  const secret = await consumerSecret(ctx);
  const url = o.url ?? (await registeredUrl(ctx, checkWebhookId(o.id!)));
  const { runDoctor } = await import('../../webhooks/doctor.js');
  const { activityDelivery } = await import('../../webhooks/event.js');
  const delivery =
    o.delivery === false
      ? undefined
      : activityDelivery({
          eventType: 'profile.update.bio',
          tag: 'xctl-webhooks-doctor',
          payload: { before: 'xctl webhooks doctor', after: 'xctl webhooks doctor' },
        });
  const spinner = await ctx.io.spinner(`checking ${url}`);
  const report = await runDoctor({
    url,
    secret,
    now: () => ctx.clock.now(),
    ...(delivery !== undefined ? { delivery } : {}),
  });
  spinner.stop();
  if (settings.jq !== undefined || settings.format === 'json' || settings.format === 'jsonl') {
    const { printJson } = await import('../../core/output.js');
    await printJson(ctx.io, settings, {
      ok: report.ok,
      cause: report.cause,
      url: report.url,
      steps: report.steps,
    });
  } else {
    ctx.io.out(formatReport(ctx, report));
  }
  if (!report.ok)
    throw new CheckFailed(`the webhook is not healthy: ${report.cause}`, {
      hint: CAUSE_HINTS[report.cause!],
    });
}

/** GET /2/webhooks: the URL of the webhook with this id. */
async function registeredUrl(ctx: Context, id: string): Promise<string> {
  const http = await ctx.http();
  const res = await http.request<{ data?: Array<{ id?: unknown; url?: unknown }> }>({
    method: E.list.method,
    path: E.list.path,
    auth: 'app',
  });
  const w = (res.data.data ?? []).find((x) => String(x.id) === id);
  if (!w || typeof w.url !== 'string')
    throw new UsageError(`no webhook ${id} is registered for this app (\`xctl webhooks list\`)`, {
      flag: '--id',
    });
  return w.url;
}

/** The readable report: one line per step, the steps not run, and the verdict with its hint. */
export function formatReport(ctx: Context, r: DoctorReport): string {
  const io = ctx.io;
  const width = Math.max(...r.steps.map((s) => String(s.ms).length), 1);
  // The URL and the details quote what the user and the receiver gave: escaped like service data.
  const lines = [`webhooks doctor ${escapeForTerminal(r.url)}`];
  for (const s of r.steps) {
    const mark = s.ok ? io.style('green', 'ok  ') : io.style('red', 'FAIL');
    lines.push(`  ${mark}  ${s.name.padEnd(8)} ${String(s.ms).padStart(width)} ms  ${escapeForTerminal(s.detail)}`);
  }
  if (r.skipped.length) lines.push(`  not run: ${r.skipped.join(', ')}`);
  lines.push(
    r.ok ? io.style('green', "healthy: the platform's checks pass") : io.style('red', `not healthy: ${r.cause}`),
  );
  return lines.join('\n');
}
