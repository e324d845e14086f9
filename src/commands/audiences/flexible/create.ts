// `xctl audiences flexible create --file spec.json`: flexible audiences (combinations of custom
// audiences) through the custom audiences batch endpoint.
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { UsageError } from '../../../core/errors.js';
import { requireOperation, requireResource } from '../../../ads/resources.js';
import { checkBatch } from '../../../ads/batch.js';
import { leavesWithoutNegate } from '../../../ads/resources/audience-rules.js';
import { declare } from '../../define.js';
import { DRY_RUN_OPTION } from '../../dry-run.js';
import { parseJsonInput, readInputArg } from '../../input.js';
import { sendBatch } from '../../ads/run.js';
import { IMMUTABLE_HINT, refuseFlexible } from '../flexible-guard.js';
import { isRecord } from '../../../contract/guards.js';

export interface FlexibleCreateOptions {
  file: string;
  dryRun?: boolean;
}

interface BatchItem {
  operation_type?: unknown;
  params?: Record<string, unknown>;
}

export function register(parent: Command, runF = flexibleCreate): void {
  const op = requireOperation(requireResource('custom_audiences'), 'batch');
  declare(parent, {
    name: 'create',
    description: `create flexible audiences from a spec file (up to 10 per request, at most 10 custom audiences each) — POST /12${op.path}`,
    options: [
      {
        flags: '--file <path>',
        description:
          'the spec: one audience {"name","child_segments":[...]}, an array of them, or the batch body; - for stdin',
        required: true,
      },
      DRY_RUN_OPTION,
    ],
    run: (ctx, o) => runF(ctx, o),
  });
}

/**
 * The spec file of `flexible create`: the batch body itself (an array of {operation_type,
 * params}), or one or more bare audiences ({name, child_segments, segments?, ...}), which become Create items
 * with audience_type FLEXIBLE unless they say otherwise.
 */
export function flexibleItems(spec: unknown): unknown[] {
  const list = Array.isArray(spec) ? spec : [spec];
  return list.map((x) => {
    if (!isRecord(x) || 'operation_type' in x) return x;
    return { operation_type: 'Create', params: { audience_type: 'FLEXIBLE', ...x } };
  });
}

/** POST /12/batch/accounts/:account_id/custom_audiences with the spec's items. */
export async function flexibleCreate(ctx: Context, o: FlexibleCreateOptions): Promise<void> {
  const ca = requireResource('custom_audiences');
  const op = requireOperation(ca, 'batch');
  const items = flexibleItems(
    parseJsonInput(await readInputArg(ctx, o.file, '--file'), '--file', 'flexible audience spec'),
  );
  for (const [i, item] of items.entries()) {
    const it = item as BatchItem | null;
    if (it?.operation_type !== 'Update') continue;
    if (it.params?.audience_type === 'FLEXIBLE')
      throw new UsageError(`--file: item ${i + 1} (Update): ${IMMUTABLE_HINT}`, { flag: '--file', code: 'IMMUTABLE' });
  }
  // Item checks first (nothing is read or sent while the file itself is wrong).
  const check = checkBatch(op, items);
  if (!check.requestErrors.length && check.itemErrors.every((e) => e.length === 0)) {
    for (const [i, item] of items.entries()) {
      const it = item as BatchItem;
      if (it.operation_type === 'Update')
        await refuseFlexible(ctx, String(it.params?.custom_audience_id), `--file: item ${i + 1} (Update)`);
      const paths = [
        ...leavesWithoutNegate({ child_segments: it.params?.child_segments }).map((x) => x.slice('segments.'.length)),
        ...leavesWithoutNegate(it.params?.segments),
      ];
      for (const path of paths) {
        ctx.io.warn(
          `item ${i + 1}: ${path} has no "negate": the spec's default is true, which EXCLUDES that audience; say "negate": false to include it`,
        );
      }
    }
  }
  await sendBatch(ctx, ca, op, items, {}, op.columns ?? ca.columns, o.dryRun);
}
