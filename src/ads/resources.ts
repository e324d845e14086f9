// The ads API as data: every resource, one import line per domain file (see resource-types.ts
// for how to add one). The CLI (src/commands/ads/) and the sandbox (src/sandbox/modules/ads.ts)
// are generated from this list.
import type { AdsCollection, OperationDef, ResourceDef } from './resource-types.js';
import { RESOURCES as accounts } from './resources/accounts.js';
import { RESOURCES as campaigns } from './resources/campaigns.js';
import { RESOURCES as lineItems } from './resources/line-items.js';
import { RESOURCES as targeting } from './resources/targeting.js';
import { RESOURCES as stats } from './resources/stats.js';
import { RESOURCES as attachments } from './resources/attachments.js';
import { RESOURCES as reference } from './resources/reference.js';
import { RESOURCES as settings } from './resources/settings.js';
import { RESOURCES as audiences } from './resources/audiences.js';
import { RESOURCES as creatives } from './resources/creatives.js';

export const RESOURCES: ResourceDef[] = [
  ...accounts,
  ...campaigns,
  ...lineItems,
  ...targeting,
  ...stats,
  ...attachments,
  ...reference,
  ...settings,
  ...audiences,
  ...creatives,
];

export function resourceByName(name: AdsCollection): ResourceDef | undefined {
  return RESOURCES.find((r) => r.name === name);
}

/** A resource the CLI registers by name; a missing one is a programming error. */
export function requireResource(name: AdsCollection): ResourceDef {
  const r = resourceByName(name);
  if (!r) throw new Error(`no ads resource ${name}`);
  return r;
}

export function requireOperation(r: ResourceDef, verb: string): OperationDef {
  const op = r.operations.find((o) => o.verb === verb);
  if (!op) throw new Error(`no ${r.name} ${verb}`);
  return op;
}
