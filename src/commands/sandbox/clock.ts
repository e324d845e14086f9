// `xctl sandbox clock [--advance D]`: print a running sandbox's clock, or move it forward (due
// jobs run in order: media processing, stats jobs, polls; line items deliver over the time).
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { checkInput } from '../../core/check-input.js';
import { SANDBOX_ADMIN_ENDPOINTS } from '../../contract/sandbox-admin.js';
import { declare } from '../define.js';

export interface SandboxClockOptions {
  advance?: string;
}

export function register(parent: Command, runF = sandboxClock): void {
  declare(parent, {
    name: 'clock',
    description: "print a running sandbox's clock, or move it forward (due jobs run; line items deliver meanwhile)",
    options: [['--advance <duration>', 'how far: 90s, 30m, 29h, 1d']],
    run: (ctx, o) => runF(ctx, o),
  });
}

export async function sandboxClock(ctx: Context, opts: SandboxClockOptions): Promise<void> {
  if (opts.advance !== undefined) checkInput(SANDBOX_ADMIN_ENDPOINTS.clock, { body: { advance: opts.advance } });
  const http = await ctx.http();
  const { printOne } = await import('../../core/output.js');
  if (opts.advance === undefined) {
    const e = SANDBOX_ADMIN_ENDPOINTS.state;
    const res = await http.request<{ clock: { mode: string; now: string } }>({
      method: e.method,
      path: e.path,
      auth: 'basic',
    });
    return printOne(ctx.io, await ctx.output(), res.data.clock);
  }
  const e = SANDBOX_ADMIN_ENDPOINTS.clock;
  const res = await http.request<{ now: string; ran: number }>({
    method: e.method,
    path: e.path,
    auth: 'basic',
    json: { advance: opts.advance },
  });
  await printOne(ctx.io, await ctx.output(), res.data);
}
