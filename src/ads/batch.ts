// Batch bodies (`[{operation_type, params}]`): one validation for the CLI (before sending) and
// the sandbox (request-level `errors`, item-level `operation_errors` by position).
import type { OperationDef, Values, Violation } from './resource-types.js';
import { validateParams } from './params.js';
import { isRecord } from '../contract/guards.js';

export interface BatchItem {
  operation_type: string;
  values: Values;
}

export interface BatchCheck {
  /** Request-level problems (not an array, too many items): nothing else was looked at. */
  requestErrors: Violation[];
  /** One list per input position; empty when the item is valid. */
  itemErrors: Violation[][];
  items: BatchItem[];
}

/** Validates a batch body against the operation's item definitions. */
export function checkBatch(op: OperationDef, body: unknown): BatchCheck {
  const spec = op.batch!;
  const out: BatchCheck = { requestErrors: [], itemErrors: [], items: [] };
  if (!Array.isArray(body)) {
    out.requestErrors.push({
      param: 'body',
      code: 'INVALID_PARAMETER',
      message: 'must be a JSON array of {"operation_type","params"} items',
    });
    return out;
  }
  if (body.length === 0)
    out.requestErrors.push({ param: 'body', code: 'INVALID_PARAMETER', message: 'must hold at least one item' });
  // Spec section 8: campaign batch 40 items (custom audience batch 10): a request-level error.
  if (body.length > spec.maxItems)
    out.requestErrors.push({
      param: 'body',
      code: 'INVALID_PARAMETER',
      message: `must hold at most ${spec.maxItems} items (got ${body.length})`,
    });
  if (out.requestErrors.length) return out;
  const types = Object.keys(spec.operations);
  body.forEach((item: unknown) => {
    const errs: Violation[] = [];
    let values: Values = {};
    let type = '';
    if (!isRecord(item)) {
      errs.push({
        param: 'operation_type',
        code: 'INVALID_PARAMETER',
        message: 'each item must be an object with operation_type and params',
      });
    } else {
      const it = item;
      type = String(it.operation_type ?? '');
      const opSpec = spec.operations[type];
      if (it.operation_type === undefined)
        errs.push({ param: 'operation_type', code: 'MISSING_PARAMETER', message: 'is required' });
      else if (!opSpec)
        errs.push({
          param: 'operation_type',
          code: 'INVALID_PARAMETER',
          message: `must be one of ${types.join(', ')}`,
        });
      const params = it.params ?? {};
      if (typeof params !== 'object' || params === null || Array.isArray(params))
        errs.push({ param: 'params', code: 'INVALID_PARAMETER', message: 'must be an object' });
      else if (opSpec) {
        const v = validateParams(opSpec.params, params as Record<string, unknown>, opSpec.rules);
        errs.push(...v.violations);
        values = v.values;
      }
    }
    out.itemErrors.push(errs);
    out.items.push({ operation_type: type, values });
  });
  return out;
}
