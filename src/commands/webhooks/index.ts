// `xctl webhooks ...`: v2 webhooks (create, list, delete, validate, replay), the two HMAC checks
// done locally (crc, verify), a local receiver (listen), a deployed receiver's check (doctor)
// and one signed delivery to any URL (send). One file per verb.
import type { Command } from 'commander';
import { register as create } from './create.js';
import { register as list } from './list.js';
import { register as del } from './delete.js';
import { register as validate } from './validate.js';
import { register as replay } from './replay.js';
import { register as crc } from './crc.js';
import { register as verify } from './verify.js';
import { register as listen } from './listen.js';
import { register as doctor } from './doctor.js';
import { register as send } from './send.js';

export function register(cmd: Command): void {
  for (const verb of [create, list, del, validate, replay, crc, verify, listen, doctor, send]) verb(cmd);
}
