// `xctl sandbox logs [--follow]`: what a running sandbox answered and delivered, one line each
// (like `stripe logs tail`): time, method, path, status, ms; webhook deliveries and CRC checks
// with their outcome. Paths only: the sandbox never records headers or query strings.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { checkInput } from '../../core/check-input.js';
import { escapeForTerminal } from '../../core/sanitize.js';
import { SANDBOX_ADMIN_ENDPOINTS } from '../../contract/sandbox-admin.js';
import type { LogEntry } from '../../sandbox/app.js';
import { declare } from '../define.js';

export interface SandboxLogsOptions {
  follow?: boolean;
  limit?: string;
}

/** How long one long poll waits on the sandbox for a new entry. */
const POLL_WAIT_MS = 20_000;

export function register(parent: Command, runF = sandboxLogs): void {
  declare(parent, {
    name: 'logs',
    description:
      "print a running sandbox's requests (method, path, status, ms) and webhook deliveries; follows on a terminal",
    options: [
      ['-f, --follow', 'keep printing new entries until Ctrl-C (the default on a terminal)'],
      ['--no-follow', 'print what is there and stop (the default when piped)'],
      ['--limit <n>', 'how many of the latest entries to print first (1-5000)', '50'],
    ],
    run: (ctx, o) => runF(ctx, o),
  });
}

/** One line of the log, escaped for the terminal. */
export function formatLogEntry(e: LogEntry): string {
  const t = e.at.replace('T', ' ').replace(/Z$/, '');
  const ms = e.ms !== undefined ? `${e.ms}ms` : '';
  if (e.kind === 'request') return escapeForTerminal(`${t}  ${e.method.padEnd(6)} ${e.path}  ${e.status}  ${ms}`);
  const what = e.kind === 'crc' ? 'CRC check' : `delivery ${e.event_type ?? ''}`.trim();
  const status = e.status !== undefined ? `${e.status} ` : '';
  return escapeForTerminal(
    `${t}  -> webhook ${e.webhook_id} ${what}: ${status}${e.outcome}  ${ms}  (${e.url})`.replace(/\s+\(/, '  ('),
  );
}

/** GET /_sandbox/logs (the sandbox app's key, Basic) */
export async function sandboxLogs(ctx: Context, o: SandboxLogsOptions): Promise<void> {
  checkInput(SANDBOX_ADMIN_ENDPOINTS.logs, { query: { limit: o.limit ?? '50' } });
  const limit = Number(o.limit ?? 50);
  const follow = o.follow ?? ctx.io.isStdoutTTY;
  const json = ctx.globals.json || ctx.globals.output === 'json' || ctx.globals.output === 'jsonl';
  const http = await ctx.http();
  const e = SANDBOX_ADMIN_ENDPOINTS.logs;
  const print = (entries: LogEntry[]) => {
    for (const x of entries) ctx.io.out(json ? escapeForTerminal(JSON.stringify(x)) : formatLogEntry(x));
  };
  let after = 0;
  try {
    const first = await http.request<{ data: LogEntry[]; next: number }>({
      method: e.method,
      path: e.path,
      auth: 'basic',
      query: { after: 0, limit },
    });
    print(first.data.data);
    after = first.data.next;
    if (follow) ctx.io.info('following the sandbox log; Ctrl-C stops');
    while (follow && !ctx.signal.aborted) {
      const r = await http.request<{ data: LogEntry[]; next: number }>({
        method: e.method,
        path: e.path,
        auth: 'basic',
        query: { after, wait_ms: POLL_WAIT_MS },
        timeoutMs: POLL_WAIT_MS + 15_000,
      });
      print(r.data.data);
      after = r.data.next;
    }
  } catch (err) {
    if (ctx.signal.aborted) return; // Ctrl-C while waiting: the normal way to stop following
    throw err;
  }
}
