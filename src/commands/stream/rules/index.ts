// `xctl stream rules ...`: one file per verb.
import type { Command } from 'commander';
import { RULE_MAX_CHARS } from '../../../contract/stream.js';
import { register as list } from './list.js';
import { register as add } from './add.js';
import { register as del } from './delete.js';
import { register as counts } from './counts.js';

export function register(parent: Command): void {
  const rules = parent
    .command('rules')
    .description(`filtered stream rules (up to ${RULE_MAX_CHARS.toLocaleString('en-US')} characters each)`);
  for (const verb of [list, add, counts, del]) verb(rules);
}
