// Builders of operation definitions (see resource-types.ts for how to add a resource).
import type { OperationDef, ParamDef, ResourceDef, Rule } from './resource-types.js';
import { exclusive } from './params.js';

interface OpOptions {
  verb?: string;
  rules?: Rule[];
  description: string;
  sandboxOnly?: boolean;
  version?: '12' | '5';
  columns?: string[];
  rate?: string;
  output?: OperationDef['output'];
}

/**
 * A resource whose operations are built on first use. What names and lists it (name, noun,
 * description, columns...) is plain data; its operations hold every parameter with its rules,
 * which a command builds only for the resource it runs (`ads campaigns list` builds campaigns
 * and funding instruments, the other 40-odd resources stay unbuilt until something reads them).
 */
export function resource(def: Omit<ResourceDef, 'operations'> & { operations: () => OperationDef[] }): ResourceDef {
  const { operations, ...head } = def;
  let built: OperationDef[] | undefined;
  return Object.defineProperty(head, 'operations', {
    enumerable: true,
    configurable: true,
    get: () => (built ??= operations()),
    set: (v: OperationDef[]) => {
      built = v;
    },
  }) as ResourceDef;
}

function withCommonRules(params: ParamDef[], rules: Rule[] = []): Rule[] {
  const names = new Set(params.map((x) => x.name));
  // Spec 2.1: with_total_count is exclusive with cursor, wherever both exist.
  return names.has('with_total_count') && names.has('cursor')
    ? [exclusive('with_total_count', 'cursor'), ...rules]
    : rules;
}

function build(
  std: OperationDef['std'],
  method: OperationDef['method'],
  kind: OperationDef['kind'],
  path: string,
  params: ParamDef[],
  o: OpOptions,
): OperationDef {
  const op: OperationDef = {
    verb: o.verb ?? std ?? 'run',
    method,
    path,
    kind,
    params,
    rules: withCommonRules(params, o.rules),
    description: o.description,
  };
  if (std) op.std = std;
  if (o.sandboxOnly) op.sandboxOnly = true;
  if (o.version) op.version = o.version;
  if (o.columns) op.columns = o.columns;
  if (o.rate) op.rate = o.rate;
  if (o.output) op.output = o.output;
  return op;
}

/** GET collection: a paginated list. */
export const listOp = (path: string, params: ParamDef[], o: OpOptions) => build('list', 'GET', 'list', path, params, o);
/** GET one by the id in the path. */
export const getOp = (path: string, params: ParamDef[], o: OpOptions) => build('get', 'GET', 'one', path, params, o);
/** POST collection: stores a new entity. */
export const createOp = (path: string, params: ParamDef[], o: OpOptions) =>
  build('create', 'POST', 'one', path, params, o);
/** PUT one: changes the given fields. */
export const updateOp = (path: string, params: ParamDef[], o: OpOptions) =>
  build('update', 'PUT', 'one', path, params, o);
/** DELETE one: soft or hard per the sandbox's deleteMode hook. */
export const deleteOp = (path: string, params: ParamDef[], o: OpOptions) =>
  build('delete', 'DELETE', 'one', path, params, o);
/** A bespoke endpoint: the sandbox's operation of the same verb (src/sandbox/ads/), or a std behaviour, says what it does. */
export const customOp = (
  verb: string,
  method: OperationDef['method'],
  kind: OperationDef['kind'],
  path: string,
  params: ParamDef[],
  o: Omit<OpOptions, 'verb'> & { std?: OperationDef['std'] },
) => build(o.std, method, kind, path, params, { ...o, verb });

/**
 * POST /batch/...: a JSON array of `{operation_type, params}` (spec 4.4 "Batch rules": all or
 * nothing, request order kept; request-level errors in `errors`, item-level in
 * `operation_errors` by position). `operations` maps each operation_type to the item's params.
 */
export function batchOp(
  path: string,
  maxItems: number,
  operations: NonNullable<OperationDef['batch']>['operations'],
  o: OpOptions,
): OperationDef {
  const op = build('batch', 'POST', 'batch', path, [], o);
  op.body = 'json';
  op.batch = { maxItems, operations };
  return op;
}
