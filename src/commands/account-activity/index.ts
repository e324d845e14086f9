// `xctl account-activity ...`: the Account Activity API, one of the three webhook products
// (docs/contract.md, credentials 1, 6), shaped as XDK's accountActivity.* (OpenAPI 2.167). One file per verb.
import type { Command } from 'commander';
import { register as subscribe } from './subscribe.js';
import { register as list } from './list.js';
import { register as count } from './count.js';
import { register as unsubscribe } from './unsubscribe.js';

export function register(cmd: Command): void {
  for (const verb of [subscribe, list, count, unsubscribe]) verb(cmd);
}
