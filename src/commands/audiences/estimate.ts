// `xctl audiences estimate --targeting file.json [--operator EQ|NE]`: POST audience_estimate.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../core/errors.js';
import { requireOperation, requireResource } from '../../ads/resources.js';
import { validateParams } from '../../ads/params.js';
import { declare } from '../define.js';
import { parseJsonInput, readInputArg } from '../input.js';
import { sendJsonBody } from '../ads/run.js';

export interface EstimateOptions {
  targeting: string;
  operator?: string;
}

export function register(parent: Command, runF = audiencesEstimate): void {
  const op = requireOperation(requireResource('audience_estimates'), 'estimate');
  declare(parent, {
    name: 'estimate',
    description: `estimate the audience size of a targeting (at least one primary criterion) — POST /12${op.path}`,
    options: [
      {
        flags: '--targeting <file>',
        description:
          'targeting criteria: a JSON array of {"targeting_type","targeting_value"[,"operator_type"]}, or {"targeting_criteria":[...]}; - for stdin',
        required: true,
      },
      { flags: '--operator <type>', description: 'EQ (default) or NE: NE negates the whole targeting' },
    ],
    run: (ctx, o) => runF(ctx, o),
  });
}

export async function audiencesEstimate(ctx: Context, o: EstimateOptions): Promise<void> {
  const r = requireResource('audience_estimates');
  const op = requireOperation(r, 'estimate');
  const spec = parseJsonInput(await readInputArg(ctx, o.targeting, '--targeting'), '--targeting', 'targeting');
  const body: Record<string, unknown> = Array.isArray(spec)
    ? { targeting_criteria: spec }
    : { ...(spec as Record<string, unknown>) };
  if (o.operator !== undefined) {
    const v = validateParams(
      op.params.filter((d) => d.name === 'operator_type'),
      { operator_type: o.operator },
    );
    if (v.violations.length)
      throw new UsageError(`--operator ${v.violations[0]!.message} (got "${o.operator}")`, { flag: '--operator' });
    body.operator_type = o.operator;
  }
  await sendJsonBody(ctx, r, op, body, {}, op.columns ?? r.columns, '--targeting');
}
