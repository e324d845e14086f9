// `xctl stream webhooks ...`: one file per verb.
import type { Command } from 'commander';
import { register as link } from './link.js';
import { register as unlink } from './unlink.js';
import { register as list } from './list.js';

export function register(parent: Command): void {
  const wh = parent.command('webhooks').description('webhooks that receive posts matching the rules');
  for (const verb of [link, unlink, list]) verb(wh);
}
