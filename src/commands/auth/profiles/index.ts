// `xctl auth profiles ...`: one file per verb.
import type { Command } from 'commander';
import { register as list } from './list.js';
import { register as use } from './use.js';
import { register as remove } from './remove.js';

export function register(parent: Command): void {
  const profiles = parent.command('profiles').description('list, select and remove profiles');
  for (const verb of [list, use, remove]) verb(profiles);
}
