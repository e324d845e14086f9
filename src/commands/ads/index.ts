// `xctl ads <noun> <verb>` (and `xctl ads ref|settings <noun> [verb]`): every verb is generated
// from the ads table (src/ads/resources/); bespoke steps are hooks declared here by noun and verb.
import type { Command } from 'commander';
import { RESOURCES } from '../../ads/resources.js';
import { addResource } from './generate.js';
import type { OperationHooks } from './run.js';
import { registerJobVerbs } from './stats-jobs.js';

const GROUPS: Record<string, string> = {
  ref: 'reference data: bidding rules, categories, publishers, placements, features, keyword insights',
  settings: 'tax and user settings of the account',
};

/** Hooks of generated verbs, by resource name and verb (none under `xctl ads` today). */
const HOOKS: Record<string, Record<string, OperationHooks>> = {};

export function register(ads: Command): void {
  ads.description('the advertising API: accounts, campaigns, line items, targeting, creatives, analytics, reference data, settings');
  const parents = new Map<string, Command>();
  const nouns = new Map<string, Command>();
  for (const r of RESOURCES) {
    if (r.home === 'audiences') continue; // served by `xctl audiences` (src/commands/audiences/)
    let parent = ads;
    if (r.group) {
      // A group is another resource's noun (`stats job`) or a plain group (`ref`, `settings`).
      if (!parents.has(r.group)) parents.set(r.group, nouns.get(r.group) ?? ads.command(r.group).description(GROUPS[r.group] ?? r.group));
      parent = parents.get(r.group)!;
    }
    nouns.set(r.noun, addResource(parent, r, HOOKS[r.name]));
  }
  // The stats job verbs around the endpoints: get, wait, download (src/commands/ads/stats-jobs.ts).
  registerJobVerbs(nouns.get('job')!, RESOURCES.find((r) => r.name === 'stats')!.columns);
}
