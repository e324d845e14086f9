// `xctl ads <noun> <verb>` (and `xctl ads ref|settings <noun> [verb]`): every verb is generated
// from the ads table (src/ads/resources/); bespoke steps are hooks declared here by noun and verb.
import type { Command } from 'commander';
import { RESOURCES } from '../../ads/resources.js';
import { addResource } from './generate.js';
import type { OperationHooks } from './run.js';

const GROUPS: Record<string, string> = {
  ref: 'reference data: bidding rules, categories, publishers, placements, features, keyword insights',
  settings: 'tax and user settings of the account',
};

/** Hooks of generated verbs, by resource name and verb (none under `xctl ads` today). */
const HOOKS: Record<string, Record<string, OperationHooks>> = {};

export function register(ads: Command): void {
  ads.description('the advertising API: accounts, campaigns, line-item attachments, creatives, reference data, settings');
  const parents = new Map<string, Command>();
  for (const r of RESOURCES) {
    if (r.home === 'audiences') continue; // served by `xctl audiences` (src/commands/audiences/)
    let parent = ads;
    if (r.group) {
      if (!parents.has(r.group)) parents.set(r.group, ads.command(r.group).description(GROUPS[r.group] ?? r.group));
      parent = parents.get(r.group)!;
    }
    addResource(parent, r, HOOKS[r.name]);
  }
}
