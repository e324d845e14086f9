// --state-dir / XCTL_STATE_DIR: where sync snapshots and upload journals live, so that a CI
// runner can restore them from a cache. Never credentials: the profile store stays where it is.
import path from 'node:path';
import type { Context } from '../../context.js';
import { UsageError } from '../../core/errors.js';

export const STATE_DIR_OPTION = {
  flags: '--state-dir <dir>',
  description: 'folder for sync snapshots and upload journals (default: the config folder); cache it between CI runs',
  env: 'XCTL_STATE_DIR',
} as const;

/** The state folder as an absolute path, or undefined for the config folder. */
export function resolveStateDir(ctx: Context, v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  if (v.trim() === '') {
    const from = ctx.env.XCTL_STATE_DIR === v ? 'XCTL_STATE_DIR is set but empty' : '--state-dir is empty';
    throw new UsageError(`${from}: name a folder, or unset it to use the config folder`, { flag: '--state-dir' });
  }
  return path.resolve(ctx.cwd, v);
}
