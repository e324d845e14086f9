// `xctl sandbox faults [list | set NAME=VALUE... | clear]`: a running sandbox's fault injection,
// instead of POSTing to /_sandbox/faults by hand. Names and values are checked here first.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError, errorMessage } from '../../core/errors.js';
import { SANDBOX_ADMIN_ENDPOINTS as E } from '../../contract/sandbox-admin.js';
import { FAULT_NAMES, FAULT_SYNTAX, faultNameRows, parseFaultSpec, type FaultSpec } from '../../sandbox/faults.js';
import { declare } from '../define.js';
import { termList } from '../help-text.js';

export interface SandboxFaultsOptions {
  action: 'list' | 'set' | 'clear';
  specs?: string[];
}

export function register(parent: Command, runF = sandboxFaults): void {
  const faults = parent
    .command('faults')
    .description("show, set or clear a running sandbox's injected faults (errors, latency, drops, rate limits)")
    .addHelpText('after', () => `\nFaults (${FAULT_SYNTAX}):\n${termList(faultNameRows())}`);
  declare(faults, {
    name: 'list',
    description: 'the faults in force and how many were injected',
    isDefault: true,
    run: (ctx) => runF(ctx, { action: 'list' }),
  });
  declare(faults, {
    name: 'set',
    description: 'replace the faults in force, e.g. `set error_rate=0.2 status=503 match=^/2/webhooks`',
    arguments: [['<spec...>', `NAME=VALUE pairs (or one JSON object); names: ${Object.keys(FAULT_NAMES).join(', ')}`]],
    helpAfter: () => `\nFaults:\n${termList(faultNameRows())}`,
    run: (ctx, _o, [specs]) => runF(ctx, { action: 'set', specs }),
  });
  declare(faults, {
    name: 'clear',
    description: 'no faults',
    run: (ctx) => runF(ctx, { action: 'clear' }),
  });
}

/** The spec a user typed: NAME=VALUE words (each may hold several, comma-separated) or one JSON object. */
export function faultSpecOf(words: string[]): FaultSpec {
  const text = words.length === 1 && words[0]!.trim().startsWith('{') ? words[0]! : words.join(',');
  try {
    return parseFaultSpec(text);
  } catch (e) {
    throw new UsageError(`faults: ${errorMessage(e)}`, {
      hint: `${FAULT_SYNTAX}; see \`xctl sandbox faults set --help\``,
    });
  }
}

const describe = (spec: Record<string, unknown>) =>
  Object.entries(spec)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(',') || 'none';

/** GET, POST or DELETE /_sandbox/faults */
export async function sandboxFaults(ctx: Context, o: SandboxFaultsOptions): Promise<void> {
  const spec = o.action === 'set' ? faultSpecOf(o.specs ?? []) : undefined;
  const http = await ctx.http();
  const json = ctx.globals.json || ctx.globals.output === 'json' || ctx.globals.output === 'jsonl';
  if (o.action === 'list') {
    const res = await http.request<{ faults: Record<string, unknown>; injected: number }>({
      method: E.faults.method,
      path: E.faults.path,
      auth: 'basic',
    });
    if (json) return void ctx.io.out(JSON.stringify(res.data));
    ctx.io.out(
      `faults: ${describe(res.data.faults)}${Object.keys(res.data.faults).length ? ` (injected ${res.data.injected})` : ''}`,
    );
    return;
  }
  const e = o.action === 'set' ? E.setFaults : E.clearFaults;
  const res = await http.request<{ faults: Record<string, unknown> }>({
    method: e.method,
    path: e.path,
    auth: 'basic',
    ...(spec ? { json: spec } : {}),
  });
  if (json) return void ctx.io.out(JSON.stringify(res.data));
  ctx.io.out(`faults: ${describe(res.data.faults)}`);
}
