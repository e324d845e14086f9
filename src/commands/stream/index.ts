// `xctl stream ...`: filtered stream rules and the webhooks that receive matching posts.
import type { Command } from 'commander';
import { register as rules } from './rules/index.js';
import { register as webhooks } from './webhooks/index.js';

export function register(cmd: Command): void {
  rules(cmd);
  webhooks(cmd);
}
