// Flags of generated writes for pipelines that run twice (issue 33): `--if-exists return|fail`
// on creates of named things (a campaign launch re-run must not make a second campaign), and
// `--dry-run` on every create, update and delete (the request it would send; nothing is sent).
import type { Context } from '../../context.js';
import { ApiError, DuplicateError, UsageError } from '../../core/errors.js';
import type { OperationDef, ResourceDef } from '../../ads/resource-types.js';
import type { Rec } from '../../core/output.js';
import type { OptionDecl } from '../define.js';
import { DRY_RUN_OPTION, dryRunDone, printDryRun as printRequestLine } from '../dry-run.js';

export { DuplicateError };

/** Writes (any method but GET) take --dry-run; creates with a name (and a list to look in) take --if-exists. */
export function writeOptions(r: ResourceDef, op: OperationDef): OptionDecl[] {
  if (op.method === 'GET') return [];
  const out: OptionDecl[] = [DRY_RUN_OPTION];
  if (nameLookup(r, op)) {
    out.push({
      flags: '--if-exists <action>',
      description:
        'when one of this name exists already: return prints it (exit 0), fail exits 1 with its id; nothing is created',
      choices: ['return', 'fail'],
    });
  }
  return out;
}

/** The list that finds an existing one by name: same path as the create, GET. */
function nameLookup(r: ResourceDef, op: OperationDef): OperationDef | undefined {
  if (op.std !== 'create' || !op.params.some((d) => d.name === 'name')) return undefined;
  return r.operations.find((x) => x.kind === 'list' && x.method === 'GET' && x.path === op.path);
}

/** --dry-run: the request as it would go, on stdout as one JSON object. */
export async function printDryRun(
  ctx: Context,
  method: string,
  url: string,
  params: Record<string, string>,
): Promise<void> {
  await printRequestLine(ctx, { method, url, params });
  dryRunDone(ctx);
}

/**
 * --if-exists: reads every page of the list for a live one with the same name. Returns it for
 * `return`; throws a DuplicateError for `fail`; undefined when there is none.
 */
export async function findByName(
  ctx: Context,
  r: ResourceDef,
  op: OperationDef,
  path: string,
  name: string | undefined,
  action: string,
): Promise<Rec | undefined> {
  const list = nameLookup(r, op);
  if (!list || name === undefined) throw new UsageError('--if-exists needs --name', { flag: '--if-exists' });
  const http = await ctx.http();
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const res = await http.request<{ data?: Rec[]; next_cursor?: string | null }>({
      method: 'GET',
      host: 'ads',
      path,
      auth: 'user',
      query: { count: 1000, cursor },
    });
    const found = (res.data?.data ?? []).find((x) => x.name === name && x.deleted !== true);
    if (found) {
      const id = String(found.id);
      if (action === 'fail')
        throw new DuplicateError(
          `a ${r.dataType.replace(/_/g, ' ')} named "${name}" exists already (${id}): nothing was created`,
          id,
          { hint: 'use it (--if-exists return prints it), or choose another --name' },
        );
      ctx.io.info(
        `--if-exists return: ${r.dataType.replace(/_/g, ' ')} "${name}" exists already (${id}); nothing was created`,
      );
      return found;
    }
    cursor = res.data?.next_cursor ?? undefined;
    if (!cursor) return undefined;
  }
  return undefined;
}

/** A service error saying the name is taken ("... already exists (ID) ..."): the id, as data. */
export function duplicateFromService(e: unknown): DuplicateError | undefined {
  if (!(e instanceof ApiError)) return undefined;
  const m = /already exists \(([A-Za-z0-9_-]{1,64})\)/.exec(e.message);
  if (!m) return undefined;
  return new DuplicateError(e.message, m[1]!, {
    status: e.status,
    hint: `${e.hint ? `${e.hint}; ` : ''}--if-exists return prints the existing one instead`,
  });
}
