// `xctl sandbox ...`: run the local emulator, and drive it. One file per verb.
import type { Command } from 'commander';
import { register as start } from './start.js';
import { register as trigger } from './trigger.js';
import { register as clock } from './clock.js';
import { register as logs } from './logs.js';
import { register as state } from './state.js';
import { register as faults } from './faults.js';

export function register(cmd: Command): void {
  for (const verb of [start, trigger, logs, state, clock, faults]) verb(cmd);
}
