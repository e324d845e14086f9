// `xctl webhooks ...`: v2 webhooks (create, list, delete, validate, replay), the two HMAC checks
// done locally (crc, verify) and a local receiver (listen). One file per verb.
import type { Command } from 'commander';
import { register as create } from './create.js';
import { register as list } from './list.js';
import { register as del } from './delete.js';
import { register as validate } from './validate.js';
import { register as replay } from './replay.js';
import { register as crc } from './crc.js';
import { register as verify } from './verify.js';
import { register as listen } from './listen.js';

export function register(cmd: Command): void {
  for (const verb of [create, list, del, validate, replay, crc, verify, listen]) verb(cmd);
}
