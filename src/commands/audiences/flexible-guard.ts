// Flexible audiences are immutable once created (docs/contract.md, ads section 3): the client side of that
// rule, a read before any change is sent, shared by `audiences update` and `flexible create`.
import type { Context } from '../../context.js';
import { UsageError } from '../../core/errors.js';
import type { OperationHooks } from '../ads/run.js';

export const IMMUTABLE_HINT =
  'flexible audiences are immutable once created: create a new one with `xctl audiences flexible create` and delete the old one';

/** GET /12/accounts/:account_id/custom_audiences/:id: the audience as the account sees it. */
export async function fetchAudience(ctx: Context, id: string): Promise<Record<string, unknown>> {
  const res = await (await ctx.http()).request<{ data?: Record<string, unknown> }>({
    method: 'GET',
    host: 'ads',
    path: `/12/accounts/${encodeURIComponent(await ctx.accountId())}/custom_audiences/${encodeURIComponent(id)}`,
    auth: 'user',
  });
  return res.data?.data ?? {};
}

/** Refuses, before any change is sent, to update an audience that is flexible (one read first). */
export async function refuseFlexible(ctx: Context, id: string, where: string): Promise<void> {
  const aud = await fetchAudience(ctx, id);
  if (aud.audience_type === 'FLEXIBLE')
    throw new UsageError(
      `${where}: custom audience ${id} ("${String(aud.name)}") is a flexible audience; ${IMMUTABLE_HINT}`,
      { code: 'IMMUTABLE' },
    );
}

/** `audiences update`: its flags are checked first (by the generated verb), then the audience is read. */
export const UPDATE_HOOKS: OperationHooks = {
  beforeSend: (ctx, o) => refuseFlexible(ctx, o.path.custom_audience_id!, 'audiences update'),
};
