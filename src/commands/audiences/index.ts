// `xctl audiences ...`: custom audiences (verbs generated from the ads table, `update` with a
// declared hook), bulk uploads, sync and hashing, sharing, flexible audiences, estimates and the do-not-reach list.
import type { Command } from 'commander';
import { requireOperation, requireResource } from '../../ads/resources.js';
import { addOperation } from '../ads/generate.js';
import { UPDATE_HOOKS } from './flexible-guard.js';
import { ownerOnlyHooks } from './owner-hint.js';
import type { OperationHooks } from '../ads/run.js';
import { register as upload, registerDoNotReach as doNotReachUpload } from './upload.js';
import { register as permissions } from './permissions.js';
import { register as flexibleCreate } from './flexible/create.js';
import { register as estimate } from './estimate.js';
import { register as sync } from './sync.js';
import { register as hash } from './hash.js';
import { register as inspect } from './inspect.js';
import { register as apply } from './apply.js';

export function register(audiences: Command): void {
  upload(audiences);
  sync(audiences);
  hash(audiences);
  inspect(audiences);
  apply(audiences);
  const dnr = audiences
    .command('do-not-reach')
    .description("the account's do-not-reach list: users excluded from every campaign");
  doNotReachUpload(dnr);
  audiences.description(
    'custom audiences: manage, share, combine, estimate; bulk hashed user uploads; do-not-reach lists',
  );
  const ca = requireResource('custom_audiences');
  const hooks: Record<string, OperationHooks> = {
    update: { ...UPDATE_HOOKS, ...ownerOnlyHooks('change', 'custom_audience_id') },
    delete: ownerOnlyHooks('delete', 'custom_audience_id'),
  };
  for (const verb of ['list', 'get', 'create', 'update', 'delete', 'targeted'])
    addOperation(audiences, ca, requireOperation(ca, verb), hooks[verb] ?? {});
  permissions(audiences);
  flexibleCreate(
    audiences
      .command('flexible')
      .description('flexible audiences: combinations of custom audiences (closed beta; immutable once created)'),
  );
  const lists = requireResource('do_not_reach_lists');
  for (const op of lists.operations) addOperation(dnr, lists, op);
  estimate(audiences);
}
