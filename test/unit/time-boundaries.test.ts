// Boundary tables for the one ISO 8601 parser and the duration parser (contract/time.ts).
// Mutation testing (TESTING.md) showed hour 23, the 4-digit fraction limit, +hhmm offsets, the
// end anchors and odd durations unpinned: each row here kills one of those mutants.
import { describe, expect, it } from 'vitest';
import { parseDuration, parseInstant, parseIsoParts, parseIsoTime } from '../../src/contract/time.js';

const utc = (s: string) => Date.parse(s);

describe('parseIsoTime (strict)', () => {
  const rows: Array<[string, number | undefined]> = [
    ['2026-01-31T23:59:59Z', utc('2026-01-31T23:59:59Z')],
    ['2026-01-31T24:00:00Z', undefined],
    ['2026-01-31T23:60:00Z', undefined],
    ['2026-01-31T23:59:60Z', undefined],
    ['2026-01-31T00:00:00Z', utc('2026-01-31T00:00:00Z')],
    ['2026-01-31T10:00Z', utc('2026-01-31T10:00:00Z')],
    ['2026-01-31T10:00:00.123Z', utc('2026-01-31T10:00:00.123Z')],
    ['2026-01-31T10:00:00.1234Z', undefined], // strict: milliseconds at most (".123" is 4 characters)
    ['2026-01-31T10:00:00.12345Z', undefined],
    ['2026-01-31T10:00:00+0530', utc('2026-01-31T04:30:00Z')],
    ['2026-01-31T10:00:00-08:00', utc('2026-01-31T18:00:00Z')],
    ['2026-01-31T10:00:00', undefined], // no zone
    ['2026-01-31', undefined], // a date alone only when loose
    ['2026-01-31 10:00:00Z', undefined],
    ['2026-02-29T00:00:00Z', undefined], // not a leap year
    ['2028-02-29T00:00:00Z', utc('2028-02-29T00:00:00Z')],
    ['2026-13-01T00:00:00Z', undefined],
    ['2026-01-31T10:00:00Zjunk', undefined],
    ['x2026-01-31T10:00:00Z', undefined],
    // the start anchor: Date.parse alone takes an expanded year
    ['+002026-01-31T10:00:00Z', undefined],
  ];
  it.each(rows)('%s -> %s', (s, want) => expect(parseIsoTime(s)).toBe(want));

  it('loose (audience uploads): a date alone, a space for the T, long fractions', () => {
    expect(parseIsoTime('2026-01-31', { loose: true })).toBe(utc('2026-01-31T00:00:00Z'));
    expect(parseIsoTime('2026-01-31 10:00:00Z', { loose: true })).toBe(utc('2026-01-31T10:00:00Z'));
    expect(parseIsoTime('2026-01-31T10:00:00.123456Z', { loose: true })).toBe(utc('2026-01-31T10:00:00.123Z'));
    expect(parseIsoTime('2026-01-31T24:00:00Z', { loose: true })).toBeUndefined();
    // Date.parse alone reads these as local midnight: the start anchor refuses them
    expect(parseIsoTime('x 2026-01-31', { loose: true })).toBeUndefined();
    expect(parseIsoTime('Jan 2026-01-31', { loose: true })).toBeUndefined();
  });

  it('keeps the parts the service echoes', () => {
    expect(parseIsoParts('2026-01-31T10:07:05.25Z')).toEqual({
      ms: utc('2026-01-31T10:07:05.250Z'),
      minute: '07',
      second: '05',
      fraction: '.25',
    });
    expect(parseIsoParts('2026-01-31T10:07Z')).toEqual({
      ms: utc('2026-01-31T10:07:00Z'),
      minute: '07',
      second: undefined,
      fraction: undefined,
    });
    // a date alone (loose) is on the hour: minute "00", as the hour-granular ads checks expect
    expect(parseIsoParts('2026-01-31', { loose: true })).toEqual({
      ms: utc('2026-01-31T00:00:00Z'),
      minute: '00',
      second: undefined,
      fraction: undefined,
    });
  });
});

describe('parseInstant (ads time parameters)', () => {
  const rows: Array<[string, number | undefined]> = [
    ['2026-05-19', utc('2026-05-19T00:00:00Z')],
    ['2026-05-19T23:00:00Z', utc('2026-05-19T23:00:00Z')],
    ['2026-05-19T10:00:00-07', utc('2026-05-19T17:00:00Z')],
    ['2026-05-19T10:00:00+0530', utc('2026-05-19T04:30:00Z')],
    ['2026-05-19T10:00:00+05:30', utc('2026-05-19T04:30:00Z')],
    ['2026-05-19T10:00Z', utc('2026-05-19T10:00:00Z')],
    ['2026-05-19T10:00:00.123Z', utc('2026-05-19T10:00:00.123Z')],
    ['2026-05-19T10:00:00.1234Z', undefined], // not silently midnight
    ['2026-05-19T10:00:00', undefined],
    ['2026-05-19x', undefined],
    ['2026-05-32', undefined],
    // the start anchor: the date is rebuilt from the match, so text before it must refuse
    ['x2026-05-19', undefined],
    ['12026-05-19', undefined],
    ['+002026-05-19T10:00:00Z', undefined],
  ];
  it.each(rows)('%s -> %s', (s, want) => expect(parseInstant(s)).toBe(want));
});

describe('parseDuration', () => {
  const rows: Array<[unknown, number | undefined]> = [
    ['1500', 1500],
    ['1500ms', 1500],
    ['90s', 90_000],
    ['1.5s', 1500],
    ['1.25s', 1250],
    ['30m', 1_800_000],
    ['29h', 104_400_000],
    ['1d', 86_400_000],
    [' 2s ', 2000],
    [0, 0],
    [250, 250],
    [-1, undefined],
    ['-1', undefined],
    ['5x', undefined],
    ['s', undefined],
    ['1e3', undefined],
    ['', undefined],
    [Number.POSITIVE_INFINITY, undefined],
    [Number.NaN, undefined],
    [null, undefined],
  ];
  it.each(rows)('%j -> %s', (v, want) => expect(parseDuration(v)).toBe(want));
});

describe('parseDuration: the unit of a bare number and the suffixes taken', () => {
  const seconds = { bare: 's', units: ['ms', 's', 'm', 'h'] } as const;
  const rows: Array<[unknown, number | undefined]> = [
    ['90', 90_000],
    ['1.5', 1500],
    ['500ms', 500],
    ['1.5m', 90_000],
    ['2h', 7_200_000],
    ['5d', undefined],
    ['0', 0],
    [2, 2000],
  ];
  it.each(rows)('%j -> %s', (v, want) => expect(parseDuration(v, seconds)).toBe(want));
  it('a day is taken unless the suffixes leave it out', () => {
    expect(parseDuration('1d', { bare: 's' })).toBe(86_400_000);
    expect(parseDuration('1500', { bare: 's' })).toBe(1_500_000);
  });
});
