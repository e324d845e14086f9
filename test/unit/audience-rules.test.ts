// Flexible audience and audience estimate rules (docs/contract.md, ads 4.4, 4.3, 8): each limit just
// inside and just outside, through the functions the CLI and the sandbox both run.
import { describe, expect, it } from 'vitest';
import {
  checkSegments,
  checkTargetingCriteria,
  leavesWithoutNegate,
  MAX_FLEXIBLE_LEAVES,
  AUDIENCE_BATCH_MAX,
  segmentLeaves,
  withSegmentDefaults,
} from '../../src/ads/resources/audience-rules.js';
import { resourceByName } from '../../src/ads/resources.js';
import { checkBatch } from '../../src/ads/batch.js';
import { validateParams } from '../../src/ads/params.js';
import { flexibleItems } from '../../src/commands/audiences/flexible/create.js';

const leaf = (id: string, extra: Record<string, unknown> = {}) => ({ custom_audience_id: id, ...extra });
const group = (op: string, kids: unknown[], extra: Record<string, unknown> = {}) => ({
  boolean_operator: op,
  child_segments: kids,
  ...extra,
});

describe('flexible audience segments', () => {
  it('accepts a nested AND/OR tree with every optional field', () => {
    const root = group('AND', [
      leaf('a1', { lookback_window: 7, frequency: 3, frequency_comparator: 'NUM_GT', negate: false }),
      group('OR', [leaf('a2'), leaf('a3', { negate: true })]),
    ]);
    expect(checkSegments(root)).toBeUndefined();
    expect(segmentLeaves(root)).toEqual(['a1', 'a2', 'a3']);
  });

  it(`at most ${MAX_FLEXIBLE_LEAVES} leaf custom audiences, counted across nesting`, () => {
    expect(MAX_FLEXIBLE_LEAVES).toBe(10);
    const ten = group('OR', [
      ...Array.from({ length: 5 }, (_, i) => leaf(`a${i}`)),
      group(
        'AND',
        Array.from({ length: 5 }, (_, i) => leaf(`b${i}`)),
      ),
    ]);
    expect(checkSegments(ten)).toBeUndefined();
    const eleven = group('OR', [
      ...Array.from({ length: 5 }, (_, i) => leaf(`a${i}`)),
      group(
        'AND',
        Array.from({ length: 6 }, (_, i) => leaf(`b${i}`)),
      ),
    ]);
    expect(checkSegments(eleven)).toEqual({
      path: 'segments',
      message: 'must hold at most 10 custom audiences (leaf segments), got 11',
    });
  });

  it('boolean_operator is required when child_segments is non-empty, and is AND or OR', () => {
    expect(checkSegments({ child_segments: [leaf('a')] })).toMatchObject({
      path: 'segments.boolean_operator',
      message: expect.stringMatching(/required when child_segments is non-empty/),
    });
    expect(checkSegments(group('AND', [{ child_segments: [leaf('a')] }]))).toMatchObject({
      path: 'segments.child_segments[0].boolean_operator',
    });
    expect(checkSegments(group('XOR', [leaf('a')]))).toMatchObject({
      path: 'segments.boolean_operator',
      message: 'must be one of AND, OR',
    });
  });

  it('the root needs child_segments; a segment is a leaf or a group, not both, not neither', () => {
    expect(checkSegments({ boolean_operator: 'AND' })?.path).toBe('segments.child_segments');
    expect(checkSegments(group('AND', []))?.path).toBe('segments.child_segments');
    expect(
      checkSegments({ boolean_operator: 'AND', child_segments: [leaf('a')], custom_audience_id: 'x' })?.message,
    ).toMatch(/not the root/);
    expect(
      checkSegments(group('AND', [{ custom_audience_id: 'a', boolean_operator: 'OR', child_segments: [leaf('b')] }]))
        ?.message,
    ).toMatch(/not both/);
    expect(checkSegments(group('AND', [{ lookback_window: 7 }]))?.message).toMatch(
      /needs custom_audience_id or a non-empty child_segments/,
    );
    expect(checkSegments(group('AND', 'a' as never))?.message).toBe('must be an array of segments');
    expect(checkSegments([leaf('a')])?.message).toBe('must be an object');
  });

  it('lookback_window is 1, 7, 14 or 30 days', () => {
    for (const ok of [1, 7, 14, 30, '30'])
      expect(checkSegments(group('AND', [leaf('a', { lookback_window: ok })]))).toBeUndefined();
    for (const bad of [0, 2, 15, 31, 7.5, 'week']) {
      expect(checkSegments(group('AND', [leaf('a', { lookback_window: bad })]))).toEqual({
        path: 'segments.child_segments[0].lookback_window',
        message: 'must be one of 1, 7, 14, 30 (days)',
      });
    }
  });

  it('frequency is a whole number >= 1; frequency_comparator is one of the five; negate is a boolean', () => {
    expect(checkSegments(group('AND', [leaf('a', { frequency: 1 })]))).toBeUndefined();
    expect(checkSegments(group('AND', [leaf('a', { frequency: 0 })]))?.path).toBe(
      'segments.child_segments[0].frequency',
    );
    for (const c of ['NUM_GTE', 'NUM_GT', 'NUM_EQ', 'NUM_LTE', 'NUM_LT'])
      expect(checkSegments(group('AND', [leaf('a', { frequency_comparator: c })]))).toBeUndefined();
    expect(checkSegments(group('AND', [leaf('a', { frequency_comparator: 'GTE' })]))?.message).toMatch(
      /must be one of NUM_GTE/,
    );
    expect(checkSegments(group('AND', [leaf('a', { negate: 'yes' })]))?.message).toBe('must be true or false');
  });

  it('unknown fields and bad ids are named with their path', () => {
    expect(checkSegments(group('AND', [leaf('a', { lookback: 7 })]))?.path).toBe('segments.child_segments[0].lookback');
    expect(checkSegments(group('AND', [leaf('a b')]))?.path).toBe('segments.child_segments[0].custom_audience_id');
  });

  it('the stored tree carries the spec defaults (frequency 1, NUM_GTE, negate true); the CLI warns where negate was omitted', () => {
    const root = group('AND', [leaf('a', { negate: false, lookback_window: '14' }), leaf('b')]);
    expect(withSegmentDefaults(root)).toEqual(
      group('AND', [
        { custom_audience_id: 'a', negate: false, lookback_window: 14, frequency: 1, frequency_comparator: 'NUM_GTE' },
        { custom_audience_id: 'b', frequency: 1, frequency_comparator: 'NUM_GTE', negate: true },
      ]),
    );
    expect(leavesWithoutNegate(root)).toEqual(['segments.child_segments[1]']);
  });
});

describe('custom audience batch (spec 8: 10 items)', () => {
  const batch = resourceByName('custom_audiences')!.operations.find((o) => o.verb === 'batch')!;
  const create = {
    operation_type: 'Create',
    params: { audience_type: 'FLEXIBLE', name: 'f', child_segments: [leaf('a', { negate: false })] },
  };
  it(`${AUDIENCE_BATCH_MAX} items pass, ${AUDIENCE_BATCH_MAX + 1} is a request-level error`, () => {
    expect(AUDIENCE_BATCH_MAX).toBe(10);
    const ok = checkBatch(batch, Array(10).fill(create));
    expect(ok.requestErrors).toEqual([]);
    expect(ok.itemErrors.every((e) => e.length === 0)).toBe(true);
    expect(checkBatch(batch, Array(11).fill(create)).requestErrors[0]?.message).toBe(
      'must hold at most 10 items (got 11)',
    );
  });
  it('item errors by position: required fields, audience_type, segment rules', () => {
    const r = checkBatch(batch, [
      create,
      { operation_type: 'Create', params: { name: 'x', child_segments: [leaf('a')] } },
      {
        operation_type: 'Create',
        params: { audience_type: 'LOOKALIKE', name: 'x', child_segments: [leaf('a')] },
      },
      {
        operation_type: 'Create',
        params: { audience_type: 'FLEXIBLE', name: 'x', child_segments: [leaf('a', { lookback_window: 3 })] },
      },
      // docs/contract.md, ads 4.4: child_segments is the required field; segments (the root object) is optional.
      {
        operation_type: 'Create',
        params: { audience_type: 'FLEXIBLE', name: 'x', segments: group('AND', [leaf('a')]) },
      },
      { operation_type: 'Update', params: { name: 'y' } },
      { operation_type: 'Delete', params: { custom_audience_id: 'abc' } },
    ]);
    expect(r.itemErrors[0]).toEqual([]);
    expect(r.itemErrors[1]).toEqual([{ param: 'audience_type', code: 'MISSING_PARAMETER', message: 'is required' }]);
    expect(r.itemErrors[2]![0]).toMatchObject({
      param: 'audience_type',
      message: 'must be one of FLEXIBLE, MOBILE_AUDIENCE',
    });
    expect(r.itemErrors[3]![0]).toMatchObject({
      param: 'child_segments',
      message: 'at [0].lookback_window: must be one of 1, 7, 14, 30 (days)',
    });
    expect(r.itemErrors[4]![0]).toMatchObject({ param: 'child_segments', code: 'MISSING_PARAMETER' });
    expect(r.itemErrors[5]![0]).toMatchObject({ param: 'custom_audience_id', code: 'MISSING_PARAMETER' });
    expect(r.itemErrors[6]).toEqual([]);
  });
  it('flexible create files: bare audiences become FLEXIBLE Create items; batch items pass as they are', () => {
    expect(flexibleItems({ name: 'n', segments: {} })).toEqual([
      { operation_type: 'Create', params: { audience_type: 'FLEXIBLE', name: 'n', segments: {} } },
    ]);
    expect(flexibleItems([{ name: 'n', audience_type: 'MOBILE_AUDIENCE' }])[0]).toMatchObject({
      params: { audience_type: 'MOBILE_AUDIENCE' },
    });
    const item = { operation_type: 'Delete', params: { custom_audience_id: 'a' } };
    expect(flexibleItems([item])).toEqual([item]);
  });
});

describe('audience estimate targeting (spec 4.3)', () => {
  const primary = { targeting_type: 'BROAD_KEYWORD', targeting_value: 'nba' };
  const location = { targeting_type: 'LOCATION', targeting_value: '96683cc9126741d1' };
  it('needs a non-empty array with at least one primary criterion', () => {
    expect(checkTargetingCriteria([primary, location])).toBeUndefined();
    expect(checkTargetingCriteria([{ ...primary, operator_type: 'NE' }, location])).toBeUndefined();
    expect(checkTargetingCriteria([location])).toMatch(/needs at least one primary criterion/);
    expect(checkTargetingCriteria([])).toMatch(/non-empty array/);
    expect(checkTargetingCriteria({ targeting_type: 'INTEREST' })).toMatch(/non-empty array/);
  });
  it('each criterion has a known targeting_type, a targeting_value and an EQ/NE operator_type', () => {
    expect(checkTargetingCriteria([{ targeting_value: 'x' }])).toBe('[0].targeting_type is required');
    expect(checkTargetingCriteria([primary, { targeting_type: 'MOOD', targeting_value: 'x' }])).toMatch(
      /^\[1\]\.targeting_type must be a targeting type/,
    );
    expect(checkTargetingCriteria([{ targeting_type: 'INTEREST', targeting_value: '' }])).toMatch(
      /targeting_value is required/,
    );
    expect(checkTargetingCriteria([{ ...primary, operator_type: 'GT' }])).toBe('[0].operator_type must be EQ or NE');
  });
  it('the estimate operation: targeting_criteria required, operator_type EQ or NE', () => {
    const op = resourceByName('audience_estimates')!.operations[0]!;
    expect(validateParams(op.params, {}, op.rules).violations[0]).toMatchObject({
      param: 'targeting_criteria',
      code: 'MISSING_PARAMETER',
    });
    expect(
      validateParams(op.params, { targeting_criteria: [primary], operator_type: 'NE' }, op.rules).violations,
    ).toEqual([]);
    expect(
      validateParams(op.params, { targeting_criteria: [primary], operator_type: 'NOT' }, op.rules).violations[0]?.param,
    ).toBe('operator_type');
    expect(validateParams(op.params, { targeting_criteria: [location] }, op.rules).violations[0]?.message).toMatch(
      /primary/,
    );
  });
});

describe('audience resources', () => {
  it('permissions take READ_ONLY or READ_WRITE, both required; permission_scope is OWNER or SHARED', () => {
    for (const name of ['custom_audience_permissions', 'tailored_audience_permissions'] as const) {
      const grant = resourceByName(name)!.operations.find((o) => o.verb === 'grant')!;
      expect(
        validateParams(grant.params, { granted_account_id: 'a1', permission_level: 'READ_WRITE' }).violations,
      ).toEqual([]);
      expect(
        validateParams(grant.params, { granted_account_id: 'a1', permission_level: 'WRITE' }).violations[0]?.param,
      ).toBe('permission_level');
      expect(validateParams(grant.params, {}).violations.map((v) => v.param)).toEqual([
        'granted_account_id',
        'permission_level',
      ]);
    }
    const list = resourceByName('custom_audiences')!.operations.find((o) => o.verb === 'list')!;
    expect(validateParams(list.params, { permission_scope: 'SHARED' }).violations).toEqual([]);
    expect(validateParams(list.params, { permission_scope: 'ALL' }).violations[0]?.param).toBe('permission_scope');
  });
  it('tailored audience permissions are the /5 endpoints; everything is served under `xctl audiences`', () => {
    const t = resourceByName('tailored_audience_permissions')!;
    expect(
      t.operations.every(
        (o) => o.version === '5' && o.path.includes('/tailored_audiences/:tailored_audience_id/permissions'),
      ),
    ).toBe(true);
    for (const n of [
      'custom_audiences',
      'custom_audience_permissions',
      'tailored_audience_permissions',
      'do_not_reach_lists',
      'audience_estimates',
    ] as const)
      expect(resourceByName(n)!.home).toBe('audiences');
  });
});
