// `xctl config list`: every setting of the profile, with what it does.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { SETTINGS, type Profile } from '../../core/config.js';
import { printList } from '../../core/output.js';
import { redactUrlCredentials } from '../../core/redact.js';
import { declare } from '../define.js';

export function register(parent: Command, runF = configList): void {
  declare(parent, {
    name: 'list',
    description: 'every setting of the profile',
    run: (ctx) => runF(ctx),
  });
}

export async function configList(ctx: Context): Promise<void> {
  const p = (await ctx.profile()) ?? {};
  // A proxy's base URL may carry user:password@: shown as [redacted]@.
  const rows = Object.keys(SETTINGS).map((key) => ({
    key,
    value: redactUrlCredentials(String(p[key as keyof Profile] ?? '')),
    describe: SETTINGS[key]!.describe,
  }));
  await printList(ctx.io, await ctx.output(), rows, { columns: ['key', 'value', 'describe'] });
}
