// The contract's shared rules, each at its edges: the one ISO parser, the 13-month expiry rule,
// hosts and the loopback check, endpoint paths, replay dates and the named error codes.
import { describe, expect, it } from 'vitest';
import { addMonthsUtc, isoSeconds, parseDuration, parseIsoTime } from '../../src/contract/time.js';
import { EXPIRY_MONTHS, expiryFault, canonicalType, WIRE_KEYS, ID_TYPES } from '../../src/contract/audience-users.js';
import { HOSTS, isLoopbackAddress, isLoopbackHost } from '../../src/contract/hosts.js';
import { baseFor, checkBaseUrl } from '../../src/core/base-url.js';
import { endpoint, pathOf } from '../../src/contract/endpoint.js';
import { parseReplayDate, toReplayDate } from '../../src/contract/webhooks.js';
import { AdsCode, V1Code, hasCode } from '../../src/contract/service-errors.js';
import { errorFromResponse } from '../../src/core/errors.js';
import { CATEGORIES, categoryOfKey, keyPrefix, kindOfCategory } from '../../src/contract/media.js';
import { mediaKindOfKey } from '../../src/ads/rules/cards.js';

describe('parseIsoTime', () => {
  it('takes a date-time with a zone, and refuses days the month lacks', () => {
    expect(parseIsoTime('2026-01-31T14:00:00Z')).toBe(Date.UTC(2026, 0, 31, 14));
    expect(parseIsoTime('2026-01-31T14:00Z')).toBe(Date.UTC(2026, 0, 31, 14));
    expect(parseIsoTime('2026-01-31T14:00:00.123+02:00')).toBe(Date.UTC(2026, 0, 31, 12, 0, 0, 123));
    expect(parseIsoTime('2028-02-29T00:00:00Z')).toBe(Date.UTC(2028, 1, 29));
    for (const bad of [
      '2026-02-30T00:00:00Z',
      '2027-02-29T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T23:60:00Z',
      '2026-01-01T00:00:60Z',
      '2026-01-01T00:00:00',
      '2026-01-01',
      '2026-01-01 00:00:00Z',
      'soon',
      '',
    ]) {
      expect(parseIsoTime(bad), bad).toBeUndefined();
    }
  });
  it('loose (the upload endpoints) adds a date alone and a space separator, nothing else', () => {
    expect(parseIsoTime('2026-05-01', { loose: true })).toBe(Date.UTC(2026, 4, 1));
    expect(parseIsoTime('2026-05-01 10:00:00Z', { loose: true })).toBe(Date.UTC(2026, 4, 1, 10));
    for (const bad of ['2026-02-30', '2026-05-01T10:00:00', '2026-05-01 10:00', 'never'])
      expect(parseIsoTime(bad, { loose: true }), bad).toBeUndefined();
  });
  it('isoSeconds writes the service form, durations parse', () => {
    expect(isoSeconds(Date.UTC(2026, 0, 2, 3, 4, 5, 678))).toBe('2026-01-02T03:04:05Z');
    expect(parseDuration('29h')).toBe(29 * 3_600_000);
    expect(parseDuration('-1s')).toBeUndefined();
  });
});

describe('the 13-month expiry rule', () => {
  const now = Date.UTC(2026, 0, 31, 12);
  const limit = addMonthsUtc(now, EXPIRY_MONTHS);
  it('custom audience: after effective_at (default now), at most 13 months after it', () => {
    expect(expiryFault('custom_audience', now, { nowMs: now })).toBe('not-after-start');
    expect(expiryFault('custom_audience', now + 1, { nowMs: now })).toBeUndefined();
    expect(expiryFault('custom_audience', limit, { nowMs: now })).toBeUndefined();
    expect(expiryFault('custom_audience', limit + 1, { nowMs: now })).toBe('too-far');
    const eff = now + 86_400_000;
    expect(expiryFault('custom_audience', now + 3600_000, { nowMs: now, effectiveMs: eff })).toBe('not-after-start');
    expect(expiryFault('custom_audience', addMonthsUtc(eff, 13), { nowMs: now, effectiveMs: eff })).toBeUndefined();
  });
  it('do-not-reach: in the future and strictly less than 13 months ahead', () => {
    expect(expiryFault('do_not_reach_list', now, { nowMs: now })).toBe('not-after-start');
    expect(expiryFault('do_not_reach_list', limit - 1, { nowMs: now })).toBeUndefined();
    expect(expiryFault('do_not_reach_list', limit, { nowMs: now })).toBe('too-far');
    // effective_at does not move a do-not-reach list's window
    expect(expiryFault('do_not_reach_list', limit, { nowMs: now, effectiveMs: now + 86_400_000 })).toBe('too-far');
  });
  it('identifier types: aliases resolve, do-not-reach takes email and phone only', () => {
    expect(canonicalType(' Service_ID ')).toBe('twitter_id');
    expect(canonicalType('fax')).toBeUndefined();
    expect(WIRE_KEYS.do_not_reach_list).toEqual(['email', 'phone_number']);
    for (const t of ID_TYPES) expect(WIRE_KEYS.custom_audience).toContain(t);
  });
});

describe('hosts', () => {
  it('one loopback check for names, literals and socket addresses', () => {
    for (const h of ['localhost', 'LOCALHOST', '127.0.0.1', '127.8.9.10', '::1', '[::1]'])
      expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['127.0.0.1.example.com', 'localhost.example.com', '10.0.0.1', '0.0.0.0', 'example.com', '::2'])
      expect(isLoopbackHost(h), h).toBe(false);
    expect(isLoopbackAddress('::ffff:127.0.0.1')).toBe(true);
    expect(isLoopbackAddress('::ffff:10.0.0.1')).toBe(false);
    expect(isLoopbackAddress(undefined)).toBe(false);
  });
  it('baseFor: the override for both kinds, else the platform hosts', () => {
    expect(baseFor('api')).toBe(HOSTS.api);
    expect(baseFor('ads')).toBe(HOSTS.ads);
    expect(baseFor('ads', { sandbox: true })).toBe(HOSTS.adsSandbox);
    expect(baseFor('api', { sandbox: true })).toBe(HOSTS.api);
    expect(baseFor('ads', { override: 'http://127.0.0.1:8080/', sandbox: true })).toBe('http://127.0.0.1:8080');
    expect(() => baseFor('api', { override: 'http://api.example.com' })).toThrow(/plain http is refused/);
    expect(() => checkBaseUrl('ftp://127.0.0.1')).toThrow(/must be http/);
  });
});

describe('endpoints and replay dates', () => {
  it('pathOf fills and encodes every :param, and refuses a missing one', () => {
    const e = endpoint('DELETE', '/12/accounts/:account_id/x/:id', { auth: 'user', doc: 'test' });
    expect(pathOf(e, { account_id: 'a1', id: '../b c' })).toBe('/12/accounts/a1/x/..%2Fb%20c');
    expect(() => pathOf(e, { account_id: 'a1' })).toThrow(/:id/);
  });
  it('replay dates are yyyymmddhhmm in UTC', () => {
    const t = Date.UTC(2026, 0, 15, 12, 5);
    expect(parseReplayDate('202601151205')).toBe(t);
    expect(toReplayDate(t + 59_999)).toBe('202601151205');
    for (const bad of ['202613151205', '202602301205', '202601152405', '202601151260', '20260115120', 12, undefined])
      expect(parseReplayDate(bad), String(bad)).toBeUndefined();
  });
});

describe('named service error codes', () => {
  it('are what the service sends, and the CLI recognises them in a parsed body', () => {
    expect([
      V1Code.AuthFailed,
      V1Code.InvalidOrExpiredToken,
      V1Code.TokenRequestedTooOften,
      V1Code.AppOnlyForbidden,
    ]).toEqual([32, 89, 99, 220]);
    const err = errorFromResponse(401, { errors: [{ code: 89, message: 'Invalid or expired token.' }] });
    expect(hasCode(err, V1Code.InvalidOrExpiredToken)).toBe(true);
    expect(hasCode(err, V1Code.AuthFailed)).toBe(false);
    expect(err.hint).toMatch(/invalid or expired/);
    const ads = errorFromResponse(403, { errors: [{ code: 'ACCOUNT_NOT_FOUND', message: 'no' }] });
    expect(hasCode(ads, AdsCode.AccountNotFound)).toBe(true);
    // A wrong --account is not a credential problem: exit 1, not 3 (issue 33).
    expect(ads.exitCode).toBe(1);
    expect(errorFromResponse(403, { errors: [{ code: 'UNAUTHORIZED_ACCESS', message: 'no' }] }).exitCode).toBe(3);
  });
});

describe('media key prefixes (contract/media.ts), read by the upload and by the ads rules', () => {
  it('a key made for a category reads back as that kind of media', () => {
    for (const c of CATEGORIES) {
      const key = `${keyPrefix(c)}_1234`;
      expect(kindOfCategory(categoryOfKey(key)!), c).toBe(kindOfCategory(c));
    }
  });
  it('the ads rules see 3_ as an image, 16_ a GIF, 7_ and 13_ videos, anything else unknown', () => {
    expect(['3_1', '16_1', '7_1', '13_1', '19_1', '1_1', 'x'].map(mediaKindOfKey)).toEqual([
      'IMAGE',
      'GIF',
      'VIDEO',
      'VIDEO',
      undefined,
      undefined,
      undefined,
    ]);
    expect(categoryOfKey('13_99')).toBe('amplify_video');
    expect(categoryOfKey('7_99')).toBe('tweet_video');
  });
});
