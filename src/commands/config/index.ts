// `xctl config ...`: settings kept in the profile (base_url, account_id, output, max_wait). One file per verb.
import type { Command } from 'commander';
import { register as get } from './get.js';
import { register as set } from './set.js';
import { register as unset } from './unset.js';
import { register as list } from './list.js';
import { register as path } from './path.js';

export function register(cmd: Command): void {
  for (const verb of [get, set, unset, list, path]) verb(cmd);
}
