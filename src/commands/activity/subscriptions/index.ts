// `xctl activity subscriptions ...`: one file per verb.
import type { Command } from 'commander';
import { register as create } from './create.js';
import { register as list } from './list.js';
import { register as update } from './update.js';
import { register as del } from './delete.js';

export function register(parent: Command): void {
  const subs = parent.command('subscriptions').description('create, list, update and delete activity subscriptions');
  for (const verb of [create, list, update, del]) verb(subs);
}
