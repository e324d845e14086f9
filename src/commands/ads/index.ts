// `xctl ads <noun> <verb>` (and `xctl ads ref|settings <noun> [verb]`): every verb is generated
// from the ads table (src/ads/resources/); bespoke steps are hooks declared here by noun and verb.
import type { Command } from 'commander';
import { RESOURCES } from '../../ads/resources.js';
import { addResource } from './generate.js';
import type { OperationHooks } from './run.js';
import { register as registerReport } from './report.js';
import { registerJobVerbs } from './stats-jobs.js';

const GROUPS: Record<string, string> = {
  ref: 'reference data: bidding rules, categories, publishers, placements, features, keyword insights',
  settings: 'tax and user settings of the account',
};

/** Hooks of generated verbs, by resource name and verb (none under `xctl ads` today). */
const HOOKS: Record<string, Record<string, OperationHooks>> = {};

export function register(ads: Command, operands?: string[]): void {
  ads.description(
    'the advertising API: accounts, campaigns, line items, targeting, creatives, analytics, reference data, settings',
  );
  const own = RESOURCES.filter((r) => r.home !== 'audiences'); // the rest: `xctl audiences` (src/commands/audiences/)
  // `xctl ads campaigns list` builds the verbs of campaigns only: the others are named (for help
  // and suggestions) but get their verbs only when asked for. `xctl ads` and `xctl ads --help`
  // (no operand) show the nouns only: no verbs. An unknown noun, or no command line (the
  // completion script walks the tree), builds everything.
  const asked = operands?.[0];
  const known = asked !== undefined && own.some((r) => (r.group ?? r.noun) === asked);
  const only = known ? asked : operands?.length === 0 ? '' : undefined;
  const parents = new Map<string, Command>();
  const nouns = new Map<string, Command>();
  for (const r of own) {
    let parent = ads;
    if (r.group) {
      // A group is another resource's noun (`stats job`) or a plain group (`ref`, `settings`).
      if (!parents.has(r.group))
        parents.set(r.group, nouns.get(r.group) ?? ads.command(r.group).description(GROUPS[r.group] ?? r.group));
      parent = parents.get(r.group)!;
    }
    const built = only === undefined || (r.group ?? r.noun) === only;
    nouns.set(
      r.noun,
      built ? addResource(parent, r, HOOKS[r.name]) : parent.command(r.noun).description(r.description),
    );
  }
  // The stats job verbs around the endpoints: get, wait, download (src/commands/ads/stats-jobs.ts).
  if (only === undefined || only === 'stats')
    registerJobVerbs(nouns.get('job')!, RESOURCES.find((r) => r.name === 'stats')!.columns);
  registerReport(ads);
}
