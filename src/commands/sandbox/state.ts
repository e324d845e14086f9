// `xctl sandbox state [--out FILE]`: a running sandbox's counts, clock and faults; with --out,
// its whole state (keys and tokens included) as `sandbox start --state FILE` loads it.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError, errorMessage } from '../../core/errors.js';
import { SANDBOX_ADMIN_ENDPOINTS } from '../../contract/sandbox-admin.js';
import { declare } from '../define.js';

const STATE_MAX_BYTES = 1024 * 1024 * 1024;

export interface SandboxStateOptions {
  out?: string;
}

export function register(parent: Command, runF = sandboxState): void {
  declare(parent, {
    name: 'state',
    description:
      "print a running sandbox's entity counts, clock and faults; --out saves its whole state for `sandbox start --state`",
    options: [
      [
        '--out <file>',
        'write the whole state (credentials included) to this file, mode 0600, atomically; - for stdout',
      ],
    ],
    run: (ctx, o) => runF(ctx, o),
  });
}

interface StateSummary {
  counts: Record<string, number>;
  clock: { mode: string; now: string };
  faults: Record<string, unknown>;
  faults_injected: number;
}

/** GET /_sandbox/state, or GET /_sandbox/state/export (the sandbox app's key, Basic) with --out */
export async function sandboxState(ctx: Context, o: SandboxStateOptions): Promise<void> {
  if (o.out === '') throw new UsageError('--out needs a file name (or - for stdout)', { flag: '--out' });
  const http = await ctx.http();
  if (o.out !== undefined) {
    const e = SANDBOX_ADMIN_ENDPOINTS.stateExport;
    // Audience members make a state large (64 hex characters each): no API answer's 8 MiB cap here.
    const res = await http.request<Record<string, unknown>>({
      method: e.method,
      path: e.path,
      auth: 'basic',
      maxBytes: STATE_MAX_BYTES,
    });
    const text = JSON.stringify(res.data, undefined, 1) + '\n';
    if (o.out === '-') {
      ctx.io.raw(text);
      return;
    }
    const path = await import('node:path');
    const { writeAtomic } = await import('../../core/config.js');
    const file = path.resolve(ctx.cwd, o.out);
    try {
      writeAtomic(file, text);
    } catch (err) {
      throw new UsageError(`cannot write ${o.out}: ${errorMessage(err)}`, { flag: '--out' });
    }
    const counts = res.data.collections as Record<string, unknown[]> | undefined;
    const n = Object.values(counts ?? {}).reduce((s, l) => s + (Array.isArray(l) ? l.length : 0), 0);
    ctx.io.info(
      `saved the sandbox state (${n} entities) to ${o.out} (mode 0600); load it with \`xctl sandbox start --state ${o.out}\``,
    );
    return;
  }
  const e = SANDBOX_ADMIN_ENDPOINTS.state;
  const res = await http.request<StateSummary>({ method: e.method, path: e.path, auth: 'none' });
  const s = res.data;
  const { printList, printOne } = await import('../../core/output.js');
  const fmt = await ctx.output();
  if (ctx.globals.json || ctx.globals.output === 'json' || ctx.globals.output === 'jsonl')
    return printOne(ctx.io, fmt, { ...s });
  const faults = Object.entries(s.faults ?? {})
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(',');
  const rows = [
    { name: 'clock', value: `${s.clock.now} (${s.clock.mode})` },
    { name: 'faults', value: faults ? `${faults} (injected ${s.faults_injected})` : 'none' },
    ...Object.entries(s.counts).map(([name, n]) => ({ name, value: String(n) })),
  ];
  await printList(ctx.io, fmt, rows, { columns: ['name', 'value'] });
}
