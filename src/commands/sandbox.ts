// `xctl sandbox start|trigger|clock`: run the local emulator, and drive it.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../core/errors.js';
import { run } from './kit.js';
import { NUMERIC_ID } from '../contract/ids.js';
import { parseDuration } from '../contract/time.js';

export interface SandboxStartOptions {
  port?: string;
  host?: string;
  clock?: string;
  faults?: string;
  configure?: boolean;
  log?: boolean;
}

export interface SandboxTriggerOptions {
  userId?: string;
  data?: string;
}

export function register(cmd: Command): void {
  cmd
    .command('start')
    .description('serve the emulator until Ctrl-C; prints base URL and credentials (one JSON line with --json)')
    .option('--port <n>', 'port (0 picks a free one)', '0')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--clock <mode>', 'real, or manual (moved by POST /_sandbox/clock)', 'real')
    .option('--faults <spec>', 'inject faults: "error_rate=0.1,status=503,latency_ms=20,drop_rate=0.05,rate_limit=100" or JSON')
    .option('--configure', 'store the sandbox credentials and base URL in the selected profile')
    .option('--no-log', 'do not log requests on stderr')
    .action(run<SandboxStartOptions>(sandboxStart));
  cmd
    .command('trigger <event-type>')
    .description('deliver an event to every matching webhook, stream and subscription of a running sandbox')
    .option('--user-id <id>', 'the user the event is about')
    .option('--data <json>', 'the event payload (a JSON object)')
    .action(run<SandboxTriggerOptions>(sandboxTrigger));
  cmd
    .command('clock')
    .description("print a running sandbox's clock, or move it forward (due jobs run: processing, stats jobs, polls; line items deliver)")
    .option('--advance <duration>', 'how far: 90s, 30m, 29h, 1d')
    .action(run<{ advance?: string }>(sandboxClock));
}

/** `sandbox clock [--advance D]`: GET /_sandbox/state or POST /_sandbox/clock of the sandbox at --base-url. */
export async function sandboxClock(ctx: Context, opts: { advance?: string }): Promise<void> {
  if (opts.advance !== undefined && (!/[a-z]$/.test(opts.advance) || parseDuration(opts.advance) === undefined)) {
    throw new UsageError(`--advance must be a duration such as 90s, 30m, 29h or 1d (got "${opts.advance}")`, { flag: '--advance' });
  }
  const http = await ctx.http();
  const { printOne } = await import('../core/output.js');
  if (opts.advance === undefined) {
    const res = await http.request<{ clock: { mode: string; now: string } }>({ method: 'GET', path: '/_sandbox/state', auth: 'none' });
    return printOne(ctx.io, await ctx.output(), res.data.clock);
  }
  const res = await http.request<{ now: string; ran: number }>({ method: 'POST', path: '/_sandbox/clock', auth: 'none', json: { advance: opts.advance } });
  await printOne(ctx.io, await ctx.output(), res.data);
}

export async function sandboxStart(ctx: Context, opts: SandboxStartOptions): Promise<void> {
  const port = Number(opts.port ?? 0);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0-65535 (got "${opts.port}")`, { flag: '--port' });
  if (opts.clock !== 'real' && opts.clock !== 'manual') throw new UsageError(`--clock must be real or manual (got "${opts.clock}")`, { flag: '--clock' });
  const { parseFaultSpec } = await import('../sandbox/faults.js');
  let faults;
  if (opts.faults) {
    try {
      faults = parseFaultSpec(opts.faults);
    } catch (e) {
      throw new UsageError(`--faults: ${(e as Error).message}`, { flag: '--faults' });
    }
  }
  const { startSandbox } = await import('../sandbox/server.js');
  const host = opts.host ?? '127.0.0.1';
  let sb;
  try {
    sb = await startSandbox({
      port,
      host,
      clock: opts.clock,
      faults,
      log: opts.log === false || ctx.io.quiet ? undefined : (line) => ctx.io.err(`sandbox: ${line}`),
    });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new UsageError(`port ${port} is in use`, { flag: '--port', hint: 'pass --port 0 for a free one' });
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new UsageError(`cannot listen on ${host}`, { flag: '--host' });
    if (typeof code === 'string') throw new UsageError(`cannot start the sandbox: ${(e as Error).message}`);
    throw e;
  }
  if (opts.configure) {
    const s = sb.seed;
    await ctx.updateProfile({
      base_url: s.base_url,
      api_key: s.api_key,
      api_secret: s.api_secret,
      access_token: s.access_token,
      access_token_secret: s.access_token_secret,
      user_id: s.user_id,
      screen_name: s.screen_name,
      account_id: s.account_id,
      bearer_token: undefined,
      bearer_key: undefined,
    });
  }
  if (ctx.globals.json || ctx.globals.output === 'json' || ctx.globals.output === 'jsonl') {
    ctx.io.out(JSON.stringify(sb.seed));
  } else {
    const s = sb.seed;
    ctx.io.out(
      [
        `xctl sandbox listening on ${s.base_url} (clock: ${opts.clock}${faults ? `, faults: ${JSON.stringify(faults)}` : ''})`,
        opts.configure ? `credentials stored in profile "${await ctx.profileName()}"` : 'point xctl at it from another shell:',
        ...(opts.configure
          ? []
          : [
              `  export XCTL_BASE_URL=${s.base_url}`,
              `  export XCTL_API_KEY=${s.api_key}`,
              `  export XCTL_API_SECRET=${s.api_secret}`,
              `  export XCTL_ACCESS_TOKEN=${s.access_token}`,
              `  export XCTL_ACCESS_TOKEN_SECRET=${s.access_token_secret}`,
              `  export XCTL_ACCOUNT_ID=${s.account_id}`,
            ]),
        `user @${s.screen_name} (${s.user_id}), ads account ${s.account_id}; Ctrl-C stops it`,
      ].join('\n'),
    );
  }
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) return resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await sb.close();
  ctx.io.info('sandbox stopped');
}

export async function sandboxTrigger(ctx: Context, opts: SandboxTriggerOptions, args: string[]): Promise<void> {
  const eventType = args[0]!;
  if (!/^[A-Za-z][A-Za-z0-9_.]{0,63}$/.test(eventType)) throw new UsageError(`"${eventType}" is not an event type (e.g. profile.update.bio)`);
  if (opts.userId !== undefined && !NUMERIC_ID.test(opts.userId)) throw new UsageError(`--user-id must be digits (got "${opts.userId}")`, { flag: '--user-id' });
  let payload: unknown = {};
  if (opts.data !== undefined) {
    try {
      payload = JSON.parse(opts.data);
    } catch (e) {
      throw new UsageError(`--data is not valid JSON: ${(e as Error).message}`, { flag: '--data' });
    }
    if (!payload || typeof payload !== 'object' || Array.isArray(payload)) throw new UsageError('--data must be a JSON object', { flag: '--data' });
  }
  const http = await ctx.http();
  const res = await http.request<{ data: Record<string, unknown> }>({
    method: 'POST',
    path: '/_sandbox/events',
    auth: 'none',
    json: { event_type: eventType, user_id: opts.userId, payload },
  });
  const { printOne } = await import('../core/output.js');
  await printOne(ctx.io, await ctx.output(), res.data.data);
}
