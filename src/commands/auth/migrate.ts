// `xctl auth migrate --to keyring|file`: moves the selected profile's secrets between the OS
// keychain and the 0600 JSON store, all or nothing (core/profile-secrets.ts).
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../core/errors.js';
import { declare } from '../define.js';

export interface AuthMigrateOptions {
  to?: string;
}

export function register(parent: Command, runF = authMigrate): void {
  declare(parent, {
    name: 'migrate',
    description: "move the profile's secrets to the OS keychain or to the file, all or nothing",
    options: [['--to <place>', 'keyring (the OS keychain) or file (the 0600 JSON store)']],
    run: (ctx, o) => runF(ctx, o),
  });
}

/** Writes the secrets to their new place, reads them back, then gives up the old one. */
export async function authMigrate(ctx: Context, o: AuthMigrateOptions): Promise<void> {
  if (o.to !== 'keyring' && o.to !== 'file') throw new UsageError('--to must be keyring or file', { flag: '--to' });
  const store = await ctx.store();
  const name = await ctx.profileName();
  const was = store.rawProfiles()[name];
  if (!was) throw new UsageError(`profile "${name}" does not exist`, { flag: '--profile' });
  const from = was.secrets_in === 'keyring' ? 'keyring' : 'file';
  if (from === o.to) {
    ctx.io.info(`profile "${name}": its secrets are in the ${o.to === 'keyring' ? 'OS keychain' : 'file'} already`);
    return;
  }
  store.migrateSecrets(name, o.to);
  const where = o.to === 'keyring' ? 'the OS keychain' : `the file ${store.path}`;
  ctx.io.info(`profile "${name}": secrets moved to ${where}`);
}
