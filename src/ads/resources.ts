// The ads API as data: every resource, one import line per domain file (see resource-types.ts
// for how to add one). The CLI (src/commands/ads/) and the sandbox (src/sandbox/modules/ads.ts)
// are generated from this list.
import type { ResourceDef } from './resource-types.js';
import { RESOURCES as accounts } from './resources/accounts.js';
import { RESOURCES as campaigns } from './resources/campaigns.js';

export const RESOURCES: ResourceDef[] = [
  ...accounts,
  ...campaigns,
];

export function resourceByName(name: string): ResourceDef | undefined {
  return RESOURCES.find((r) => r.name === name);
}
