// `xctl sandbox start`: serve the emulator until Ctrl-C; print its base URL and credentials.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../core/errors.js';
import { define } from '../define.js';
import { OAUTH2_TOKEN_FIELDS } from '../../core/config.js';

export interface SandboxStartOptions {
  port?: string;
  host?: string;
  clock?: string;
  faults?: string;
  configure?: boolean;
  log?: boolean;
}

export function register(parent: Command, runF = sandboxStart): void {
  parent
    .command('start')
    .description('serve the emulator until Ctrl-C; prints base URL and credentials (one JSON line with --json)')
    .option('--port <n>', 'port (0 picks a free one)', '0')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--clock <mode>', 'real, or manual (moved by POST /_sandbox/clock)', 'real')
    .option('--faults <spec>', 'inject faults: "error_rate=0.1,status=503,latency_ms=20,drop_rate=0.05,rate_limit=100" or JSON')
    .option('--configure', 'store the sandbox credentials and base URL in the selected profile')
    .option('--no-log', 'do not log requests on stderr')
    .action(define<SandboxStartOptions>((ctx, o) => runF(ctx, o)));
}

export async function sandboxStart(ctx: Context, opts: SandboxStartOptions): Promise<void> {
  // Digits only: Number() would take "1e3", "0x50" or " 80 " as ports.
  const port = /^\d{1,5}$/.test(opts.port ?? '0') ? Number(opts.port ?? 0) : NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0-65535 (got "${opts.port}")`, { flag: '--port' });
  if (opts.clock !== 'real' && opts.clock !== 'manual') throw new UsageError(`--clock must be real or manual (got "${opts.clock}")`, { flag: '--clock' });
  const { parseFaultSpec } = await import('../../sandbox/faults.js');
  let faults;
  if (opts.faults) {
    try {
      faults = parseFaultSpec(opts.faults);
    } catch (e) {
      throw new UsageError(`--faults: ${(e as Error).message}`, { flag: '--faults' });
    }
  }
  const { startSandbox } = await import('../../sandbox/server.js');
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
      client_id: s.client_id,
      client_secret: s.client_secret,
      // An OAuth 2.0 token of an earlier sandbox means nothing to this one.
      ...Object.fromEntries(OAUTH2_TOKEN_FIELDS.map((k) => [k, undefined])),
    });
  }
  if (ctx.wantsJson) {
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
              `  export XCTL_CLIENT_ID=${s.client_id}`,
              `  export XCTL_CLIENT_SECRET=${s.client_secret}`,
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
