// The ads API calls `audiences apply` makes besides the member uploads (which go through sync):
// custom audiences, their permissions and the do-not-reach list of an account (docs/contract.md, ads 4.4).
import type { Context } from '../../context.js';

export interface RemoteAudience {
  id: string;
  name: string;
  deleted: boolean;
}

export interface RemoteGrant {
  id: string;
  granted_account_id: string;
  permission_level: string;
}

type Rec = Record<string, unknown>;
const enc = encodeURIComponent;

async function call<T>(ctx: Context, method: string, path: string, params?: Record<string, string>): Promise<T> {
  const http = await ctx.http();
  const body = method === 'GET' || method === 'DELETE' ? { query: params } : { form: params };
  const res = await http.request<{ data?: T; next_cursor?: string | null }>({
    method,
    host: 'ads',
    path: `/12${path}`,
    auth: 'user',
    ...body,
  });
  return res.data?.data as T;
}

/** Every page of a list; `paged` false for lists that take no count/cursor (do-not-reach). */
async function listAll<T>(ctx: Context, path: string, params: Record<string, string> = {}, paged = true): Promise<T[]> {
  const http = await ctx.http();
  const out: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 10_000; page++) {
    const query: Record<string, string> = {
      ...params,
      ...(paged ? { count: '1000' } : {}),
      ...(cursor ? { cursor } : {}),
    };
    const res = await http.request<{ data?: T[]; next_cursor?: string | null }>({
      method: 'GET',
      host: 'ads',
      path: `/12${path}`,
      auth: 'user',
      query,
    });
    out.push(...(res.data?.data ?? []));
    cursor = res.data?.next_cursor ?? undefined;
    if (!cursor) break;
  }
  return out;
}

const audienceOf = (r: Rec): RemoteAudience => ({
  id: String(r.id),
  name: String(r.name ?? r.description ?? ''),
  deleted: r.deleted === true,
});

/** GET /12/accounts/:account_id/custom_audiences (owned, deleted ones too) */
export async function listAudiences(ctx: Context, account: string): Promise<RemoteAudience[]> {
  return (await listAll<Rec>(ctx, `/accounts/${enc(account)}/custom_audiences`, { with_deleted: 'true' })).map(
    audienceOf,
  );
}

/** GET /12/accounts/:account_id/do_not_reach_lists (deleted ones too; at most one live) */
export async function listDoNotReach(ctx: Context, account: string): Promise<RemoteAudience[]> {
  return (await listAll<Rec>(ctx, `/accounts/${enc(account)}/do_not_reach_lists`, { with_deleted: 'true' }, false)).map(
    audienceOf,
  );
}

/** POST /12/accounts/:account_id/custom_audiences */
export async function createAudience(
  ctx: Context,
  account: string,
  name: string,
  description?: string,
): Promise<RemoteAudience> {
  return audienceOf(
    await call<Rec>(ctx, 'POST', `/accounts/${enc(account)}/custom_audiences`, {
      name,
      ...(description ? { description } : {}),
    }),
  );
}

/** POST /12/accounts/:account_id/do_not_reach_lists (its description holds the file's name) */
export async function createDoNotReach(ctx: Context, account: string, name: string): Promise<RemoteAudience> {
  return audienceOf(
    await call<Rec>(ctx, 'POST', `/accounts/${enc(account)}/do_not_reach_lists`, {
      description: name,
    }),
  );
}

/** PUT /12/accounts/:account_id/custom_audiences/:id (a name changed by hand, put back) */
export async function renameAudience(ctx: Context, account: string, id: string, name: string): Promise<void> {
  await call<Rec>(ctx, 'PUT', `/accounts/${enc(account)}/custom_audiences/${enc(id)}`, { name });
}

/** DELETE /12/accounts/:account_id/custom_audiences/:id or do_not_reach_lists/:id */
export async function deleteAudience(
  ctx: Context,
  account: string,
  kind: 'custom_audience' | 'do_not_reach',
  id: string,
): Promise<void> {
  const coll = kind === 'do_not_reach' ? 'do_not_reach_lists' : 'custom_audiences';
  await call<Rec>(ctx, 'DELETE', `/accounts/${enc(account)}/${coll}/${enc(id)}`);
}

/** GET /12/accounts/:account_id/custom_audiences/:id/permissions (live grants) */
export async function listGrants(ctx: Context, account: string, id: string): Promise<RemoteGrant[]> {
  const rows = await listAll<Rec>(ctx, `/accounts/${enc(account)}/custom_audiences/${enc(id)}/permissions`);
  return rows
    .filter((r) => r.deleted !== true)
    .map((r) => ({
      id: String(r.id),
      granted_account_id: String(r.granted_account_id),
      permission_level: String(r.permission_level),
    }));
}

/** POST /12/accounts/:account_id/custom_audiences/:id/permissions */
export async function grant(
  ctx: Context,
  account: string,
  id: string,
  to: string,
  level: string,
): Promise<RemoteGrant> {
  const r = await call<Rec>(ctx, 'POST', `/accounts/${enc(account)}/custom_audiences/${enc(id)}/permissions`, {
    granted_account_id: to,
    permission_level: level,
  });
  return { id: String(r.id), granted_account_id: to, permission_level: level };
}

/** DELETE /12/accounts/:account_id/custom_audiences/:id/permissions/:permission_id */
export async function revoke(ctx: Context, account: string, id: string, permissionId: string): Promise<void> {
  await call<Rec>(
    ctx,
    'DELETE',
    `/accounts/${enc(account)}/custom_audiences/${enc(id)}/permissions/${enc(permissionId)}`,
  );
}
