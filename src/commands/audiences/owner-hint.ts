// A write to a shared audience by an account that does not own it: the service answers 403
// UNAUTHORIZED_ACCESS (docs/contract.md, ads section 4.4: "only the owning account may create or change
// permissions", and delete the audience), which reads like a credentials problem (exit 3, "check
// --account"). The credentials are fine; the account is the wrong one. One read of the audience,
// only after the failure, tells which: shared with this account (is_owner false) means ownership,
// reported as exit 1 with the owning account in the hint.
import { ApiError, AuthError } from '../../core/errors.js';
import { AdsCode } from '../../contract/service-errors.js';
import type { OperationHooks } from '../ads/run.js';
import { fetchAudience } from './flexible-guard.js';

/** Hooks for a verb that only the owning account may run (`what`: "delete", "revoke permissions of"). */
export function ownerOnlyHooks(what: string, idKey: string): OperationHooks {
  return {
    async onError(ctx, err, o) {
      if (!(err instanceof AuthError) || err.status !== 403 || String(err.code) !== AdsCode.UnauthorizedAccess) return;
      const id = o.path[idKey];
      if (!id) return;
      let aud: Record<string, unknown>;
      try {
        aud = await fetchAudience(ctx, id);
      } catch {
        return; // not even readable: the account is the problem after all, as the hint says
      }
      if (aud.is_owner !== false) return;
      const owner = typeof aud.account_id === 'string' ? aud.account_id : undefined;
      const here = await ctx.accountId();
      const run = `run this with ${owner ? `\`--account ${owner}\`` : 'the owning account'} as a user with access to it`;
      // A grantee may change an audience shared READ_WRITE: READ_ONLY is what stops it then.
      const hint =
        what === 'change'
          ? `custom audience ${id} is shared with account ${here} as ${String(aud.permission_level ?? 'READ_ONLY')}: changing it needs READ_WRITE from the owning account${owner ? ` (${owner})` : ''}; or ${run}`
          : `custom audience ${id} is shared with account ${here}, which does not own it (is_owner false): only the owning account${owner ? ` (${owner})` : ''} may ${what} it; ${run}, or ask its owner`;
      throw new ApiError(err.message, {
        status: err.status,
        code: err.code,
        parameter: err.parameter,
        body: err.body,
        hint,
      });
    },
  };
}
