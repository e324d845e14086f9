// Header detection as people write headers, the unmapped-column check, the stderr line, and
// the reject-rate gate (before sending and while sending).
import { describe, expect, it } from 'vitest';
import type { ChunkResult } from '../../src/audiences/chunk-processor.js';
import { headerType, rowLikeTest, unmappedIdentifiers, valueKind } from '../../src/audiences/columns.js';
import { parseRejectGate, PRECHECK_VALUES, rejectRate, withinGate } from '../../src/audiences/gate.js';
import { checkUnmapped, describeColumns, gatedResults, RecordTally } from '../../src/audiences/hashed-input.js';
import { planColumns } from '../../src/audiences/input.js';
import { PartialError, UsageError, type XctlError } from '../../src/core/errors.js';

describe('header names', () => {
  it('reads the names people give each type', () => {
    const cases: Array<[string, string | undefined]> = [
      ['Email', 'email'],
      ['E-mail', 'email'],
      ['Email Address', 'email'],
      ['E-mail Address', 'email'],
      ['e_mail', 'email'],
      ['Mail', 'email'],
      ['Primary Email', 'email'],
      ['\uFEFFEMAIL', 'email'],
      ['Work E-Mail', 'email'],
      ['Phone', 'phone_number'],
      ['Phone Number', 'phone_number'],
      ['Mobile', 'phone_number'],
      ['Mobile Phone', 'phone_number'],
      ['Cell', 'phone_number'],
      ['Telephone', 'phone_number'],
      ['Tel.', 'phone_number'],
      ['phone_number', 'phone_number'],
      ['Twitter Handle', 'handle'],
      ['X handle', 'handle'],
      ['@handle', 'handle'],
      ['Username', 'handle'],
      ['Twitter User ID', 'twitter_id'],
      ['X user id', 'twitter_id'],
      ['user_id', 'twitter_id'],
      ['service_id', 'twitter_id'],
      ['Device ID', 'device_id'],
      ['IDFA', 'device_id'],
      ['AAID', 'device_id'],
      ['Advertising ID', 'device_id'],
      ['Name', undefined],
      ['Notes', undefined],
      ['Email Opt Out', undefined],
      ['Phone Type', undefined],
      ['Customer', undefined],
    ];
    for (const [cell, type] of cases) expect([cell, headerType(cell)]).toEqual([cell, type]);
  });
  it('tells emails and written phone numbers from ids, dates and amounts', () => {
    expect(valueKind(' Ann@Example.com ')).toBe('email');
    expect(valueKind('+44 20 7946 0958')).toBe('phone_number');
    expect(valueKind('(415) 555-0100')).toBe('phone_number');
    for (const v of ['12345678', '2026-01-15', '12.50', '192.168.1.1', 'n/a', '@jack'])
      expect([v, valueKind(v)]).toEqual([v, undefined]);
  });
});

describe('planColumns and the stderr line', () => {
  it('maps a CRM header with a BOM and words, and says what it ignores', () => {
    const plan = planColumns('csv', '\uFEFF"Email Address","Phone Number",Name,"Notes, free text"', { columns: [] });
    expect(plan.columns).toEqual([
      { type: 'email', name: 'Email Address', index: 0 },
      { type: 'phone_number', name: 'Phone Number', index: 1 },
    ]);
    expect(describeColumns(plan, { columns: [] })).toBe(
      'header: Email Address -> email, Phone Number -> phone_number; ignored: Name, Notes, free text',
    );
  });
  it('says nothing when --type already says it; --ignore-column drops a found column', () => {
    const plan = planColumns('csv', 'email', { type: 'email', columns: [] });
    expect(plan.header).toBe(true);
    expect(describeColumns(plan, { type: 'email', columns: [] })).toBeUndefined();
    const two = planColumns('csv', 'Email,Backup Email', { columns: [], ignore: ['backup email'] });
    expect(two.columns).toEqual([{ type: 'email', name: 'Email', index: 0 }]);
    expect(two.ignored).toEqual(['Backup Email']);
    expect(() => planColumns('csv', 'Email', { columns: [], ignore: ['Nope'] })).toThrow(
      /--ignore-column Nope: no column "Nope"/,
    );
    // --column matches a header however it is written
    expect(planColumns('csv', 'E-Mail,x', { columns: [{ type: 'email', header: 'e_mail' }] }).columns).toEqual([
      { type: 'email', name: 'e_mail', index: 0 },
    ]);
  });
  it('an unmapped column whose values look like emails or phones is exit 2 naming it and the flags', () => {
    const text =
      'Phone,Contact,Id\n+1 415 555 0100,ann@example.com,123456789\n+1 415 555 0101,bob@example.com,123456790\n';
    const plan = planColumns('csv', 'Phone,Contact,Id', { columns: [] });
    let err: unknown;
    try {
      checkUnmapped(plan, 'csv', text);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toBe(
      'column "Contact" is not mapped to any type, but 2 of its 2 sampled values look like email addresses: nothing was sent',
    );
    expect((err as UsageError).hint).toContain('--column email=Contact');
    expect((err as UsageError).hint).toContain('--ignore-column Contact');
    const ignored = planColumns('csv', 'Phone,Contact,Id', { columns: [], ignore: ['Contact'] });
    expect(() => checkUnmapped(ignored, 'csv', text)).not.toThrow();
    expect(
      unmappedIdentifiers(['a', 'b'], new Set([0]), new Set(), [
        ['x', '555-0100 x'],
        ['y', ''],
      ]),
    ).toEqual([]);
  });
  it('a line inside a quoted field reads as a row when its identifier column holds one', () => {
    const t = rowLikeTest([{ type: 'email', index: 0 }], ',', 3)!;
    expect(t('b@x.com,Bob,')).toBe(true);
    expect(t(',Bob,')).toBe(true); // the header's width, identifier empty
    expect(t('called twice, no answer')).toBe(false);
  });
});

function result(values: number, rejects: number): ChunkResult {
  return {
    seq: 0,
    frags: new Uint8Array(0),
    ends: new Int32Array(0),
    bytes: 0,
    lines: values,
    read: values,
    valid: values - rejects,
    blank: 0,
    joined: 0,
    values,
    rejects: Array.from(
      { length: rejects },
      (_, i) => [i + 1, 'email', 'not an email address'] as [number, string, string],
    ),
    digestLine: 0,
  };
}

async function gateRun(chunks: ChunkResult[], flag?: string) {
  const src = {
    async *results() {
      yield* chunks;
    },
  };
  const tally = new RecordTally({ lineBase: 1 }, false);
  let stopped: XctlError | undefined;
  let passed = 0;
  for await (const r of gatedResults(
    src,
    tally,
    parseRejectGate(flag),
    () => passed > 0,
    (e) => (stopped = e),
  ))
    passed += r.values;
  return { stopped, passed, tally };
}

describe('the reject-rate gate', () => {
  it('parses --max-reject-rate; default 0.2 from 1,000 values; 1 is off', () => {
    expect(parseRejectGate(undefined)).toEqual({ max: 0.2, minValues: 1000, explicit: false });
    expect(parseRejectGate('0.05')).toEqual({ max: 0.05, minValues: 1, explicit: true });
    for (const bad of ['-0.1', '1.5', 'abc', ''])
      expect(() => parseRejectGate(bad)).toThrow(/--max-reject-rate must be a number from 0 to 1/);
    expect(withinGate(parseRejectGate(undefined), 999, 900)).toBe(true);
    expect(withinGate(parseRejectGate(undefined), 1000, 201)).toBe(false);
    expect(withinGate(parseRejectGate('1'), 1000, 1000)).toBe(true);
    expect(rejectRate(3, 1)).toBe(0.3333);
  });
  it('refuses before anything passes when the first values are over it (exit 2)', async () => {
    const r = await gateRun([result(4000, 1300), result(4000, 1300), result(4000, 100), result(4000, 0)], '0.1');
    expect(r.passed).toBe(0);
    expect(r.stopped).toBeInstanceOf(UsageError);
    expect(r.stopped!.message).toMatch(
      /^2700 of the first 12000 values were rejected \(22.5%\), more than --max-reject-rate 0.1: nothing was sent/,
    );
  });
  it('small files are not gated by default; a file under PRECHECK_VALUES is checked whole before it passes', async () => {
    expect((await gateRun([result(500, 400)])).stopped).toBeUndefined();
    const small = await gateRun([result(1500, 400)]);
    expect(small.stopped).toBeInstanceOf(UsageError);
    expect(small.passed).toBe(0);
  });
  it('past the first values, the running rate stops the run (partial, resumable)', async () => {
    const good = Array.from({ length: 3 }, () => result(PRECHECK_VALUES / 2, 0));
    const r = await gateRun([...good, result(PRECHECK_VALUES, PRECHECK_VALUES)]);
    expect(r.passed).toBe(PRECHECK_VALUES * 1.5);
    expect(r.stopped).toBeInstanceOf(PartialError);
    expect(r.stopped!.message).toMatch(/the run stopped/);
  });
});
