// `xctl activity ...`: activity API subscriptions and the live event stream.
import type { Command } from 'commander';
import { register as subscriptions } from './subscriptions/index.js';
import { register as stream } from './stream.js';

export function register(cmd: Command): void {
  subscriptions(cmd);
  stream(cmd);
}
